package trace

import (
	"encoding/hex"
	"hash/maphash"
	"math/bits"
	"unsafe"

	"github.com/idem-cli/idem/model"
)

// A browser's HAR entry says more than a proxy's line: the payload's
// fingerprint (a sha256 of its body), the id its answer named and, for a
// HAR on one line, the entry's number. Kept whole, a million entries held
// a million Observations (400 MB); kept here, an entry costs the compact
// line, a cextra and its strings in the arena (the digest as its 32
// bytes), and its delivery is worth a look only where something else makes
// it so, or where another delivery logged the same fingerprint: what the
// rules that compare payloads across intents and unkeyed deliveries read
// (retry-new-key, duplicate-submission, unkeyed-retry, the related
// intents).

// cextra is what a browser's compact line says beyond cobs.
type cextra struct {
	fp     aref // the fingerprint; its digest's 32 bytes where flagDigest
	result aref
	obs    int32 // the observation it belongs to
	entry  int32 // Source.Entry
}

// fpSeen is a delivery that logged a fingerprint, by the top half of the
// fingerprint's hash (see markSharedPayloads).
type fpSeen struct {
	hash   uint32
	di, oi int32 // the delivery and its line
}

// browserLine reports whether o, a client's line, says nothing beyond the
// fields cobs and cextra hold.
func browserLine(o *model.Observation) bool {
	return o.Tier == model.TierClient && o.Scope == "" && o.Decision == "" && o.State == "" && !o.Effect && o.Attempt == 0 &&
		o.RetryMark == "" && o.PreviousKey == "" && o.UpstreamTries == 0 && o.Workflow == nil && o.KeyHash == "" && o.Labels == "" && int(int32(o.Source.Entry)) == o.Source.Entry
}

// fpHash is what markSharedPayloads compares fingerprints by; never 0.
func fpHash(fp string) uint32 { return uint32(maphash.String(idSeed, fp)>>32) | 1 }

// sha256Prefix starts the fingerprints model.Fingerprint makes.
const sha256Prefix = "sha256:"

// digest returns the 32 bytes of fp when it is "sha256:" and 64 lower-case
// hex digits, as model.Fingerprint writes it; false otherwise.
func digest(fp string) ([32]byte, bool) {
	var d [32]byte
	if len(fp) != len(sha256Prefix)+64 || fp[:len(sha256Prefix)] != sha256Prefix {
		return d, false
	}
	for i := range 64 {
		if c := fp[len(sha256Prefix)+i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return d, false
		}
	}
	if _, err := hex.Decode(d[:], []byte(fp[len(sha256Prefix):])); err != nil {
		return d, false
	}
	return d, true
}

// addExtra keeps what browser line o says beyond cobs, and sets co's
// flags; oi is the observation's number.
func (c *Correlator) addExtra(o *model.Observation, co *cobs, oi int32) {
	x := cextra{obs: oi, entry: int32(o.Source.Entry), result: c.arena.add(o.ResultID)}
	if d, ok := digest(o.Fingerprint); ok {
		x.fp = c.arena.addPacked(string(d[:]), packed{})
		co.flags |= flagDigest
	} else {
		x.fp = c.arena.addPacked(o.Fingerprint, packed{})
	}
	co.flags |= flagExtra
	c.extras.add(x)
}

// fpKey is observation j's fingerprint as markSharedPayloads compares it:
// a byte saying whether a digest follows, then the digest or the string.
func (c *Correlator) fpKey(j int32, buf []byte) []byte {
	if f := c.full(j); f >= 0 {
		if d, ok := digest(c.fulls[f].Fingerprint); ok {
			return append(append(buf, flagDigest), d[:]...)
		}
		return append(append(buf, 0), c.fulls[f].Fingerprint...)
	}
	raw, _ := c.arena.raw(c.extra(j).fp)
	return append(append(buf, c.obs.at(j).flags&flagDigest), raw...)
}

// extra is observation j's cextra; j must carry flagExtra.
func (c *Correlator) extra(j int32) *cextra {
	lo, hi := 0, c.extras.len()
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if c.extras.at(int32(m)).obs < j {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return c.extras.at(int32(lo))
}

// fillExtra sets on o what observation j's cextra holds.
func (c *Correlator) fillExtra(o *model.Observation, j int32, flags uint8, s *slab) {
	x := c.extra(j)
	o.Source.Entry = int(x.entry)
	o.ResultID = s.own(&c.arena, x.result)
	if flags&flagDigest != 0 {
		b, _ := c.arena.raw(x.fp)
		const n = len(sha256Prefix) + 64
		var buf []byte
		if s == nil {
			buf = make([]byte, 0, n)
		} else {
			if cap(s.text)-len(s.text) < n {
				s.text = make([]byte, 0, slabBytes/2)
			}
			buf = s.text[len(s.text):]
		}
		buf = hex.AppendEncode(append(buf, sha256Prefix...), b)
		if s != nil {
			s.text = s.text[:len(s.text)+n]
		}
		o.Fingerprint = unsafe.String(&buf[0], n)
	} else {
		o.Fingerprint = s.own(&c.arena, x.fp)
	}
}

// markSharedPayloads makes worth a look each delivery whose browser line
// logged a fingerprint another line (of any tier: unkeyed-retry compares
// deliveries by the fingerprint of any) logged too. Two bitsets of the
// hashes' bits (seen once, seen again) leave the few lines whose
// fingerprint may be another's, and those are compared by their stored
// bytes. Without a browser's compact line, every line with a fingerprint
// was kept whole and made its delivery worth a look already.
func (c *Correlator) markSharedPayloads() {
	n := c.fpSeen.len()
	if n < 2 || c.extras.len() == 0 {
		c.fpSeen = chunked[fpSeen]{}
		return
	}
	// About 64 bits a fingerprint (at most 2^28): one in a hundred or so
	// collides.
	shift := 32 - min(28, bits.Len(uint(n)*64))
	once, again := make(bitset, (1<<(32-shift)+63)/64), make(bitset, (1<<(32-shift)+63)/64)
	for i := range int32(n) {
		b := int32(c.fpSeen.at(i).hash >> shift)
		if once.has(b) {
			again.set(b)
		} else {
			once.set(b)
		}
	}
	// first is the delivery of each fingerprint's first line, -1 once
	// another line has logged it.
	first := map[string]int32{}
	var buf []byte
	for i := range int32(n) {
		f := c.fpSeen.at(i)
		if !again.has(int32(f.hash >> shift)) {
			continue
		}
		buf = c.fpKey(f.oi, buf[:0])
		d, ok := first[string(buf)]
		switch {
		case !ok:
			first[string(buf)] = f.di
			continue
		case d >= 0:
			c.deliveries.at(d).interesting = true
			first[string(buf)] = -1
		}
		c.deliveries.at(f.di).interesting = true
	}
	c.fpSeen = chunked[fpSeen]{}
}
