package trace

import (
	"hash/maphash"
	"strings"
	"time"

	"github.com/idem-cli/idem/internal/pages"
	"github.com/idem-cli/idem/model"
)

// markWanted marks the plain intents c.Build asks for besides those
// already built: the follow-ups of the built intents' losses, and the keys
// Build.Key accepts. Single deliveries among them become intents,
// appended. It returns the intents and the indexes of those it marked.
func (c *Correlator) markWanted(intents []cintent, built []*model.Intent) ([]cintent, []int32) {
	if c.Build.All {
		return intents, nil // nothing is left to mark
	}
	f := c.followUps(built)
	if f == nil && c.Build.Key == nil {
		return intents, nil
	}
	// Each plain intent is looked at on its own: the work is shared out.
	// A delivery in a plain intent has one observation per tier (a
	// second one at a tier makes it worth a look).
	var marked []int32
	nd := c.deliveries.len()
	// A key stored packed is lower-case hex and dashes: when Key needs
	// none of those, it is not asked about such a key.
	skipPacked := c.Build.KeyBytes != "" && !strings.ContainsAny(c.Build.KeyBytes, "0123456789abcdef-")
	parts := make([][]int32, (max(len(intents), nd)+1023)/1024)
	// Each loop shares out its own runs of 1024: the compact intents are
	// a few tens of thousands, the deliveries a million or more.
	inParallelBy((len(intents)+1023)/1024, 1, func(lo, hi int) {
		var buf [256]byte
		for p := lo; p < hi; p++ {
			for i := p * 1024; i < min(len(intents), (p+1)*1024); i++ {
				if in := &intents[i]; !in.interesting && c.wanted(in.first, c.intentKeyRef(in), c.intentExtraKey(in), f, skipPacked, buf[:0]) {
					in.interesting = true
					parts[p] = append(parts[p], int32(i))
				}
			}
		}
	})
	for _, part := range parts {
		marked = append(marked, part...)
	}
	inParallelBy(len(parts), 1, func(lo, hi int) {
		var buf [256]byte
		for p := lo; p < hi; p++ {
			parts[p] = parts[p][:0]
			for di := int32(p * 1024); di < int32(min(nd, (p+1)*1024)); di++ {
				if c.singles.has(di) && c.wanted(di, c.deliveryKeyRef(c.deliveries.at(di)), "", f, skipPacked, buf[:0]) {
					parts[p] = append(parts[p], di)
				}
			}
		}
	})
	for _, part := range parts {
		for _, di := range part {
			c.singles.clear(di)
			marked = append(marked, int32(len(intents)))
			intents = append(intents, cintent{extra: -1, first: di, last: di, n: 1, interesting: true})
		}
	}
	return intents, marked
}

// wanted reports whether c.Build asks for the plain intent whose only
// delivery is di, with key kref (or hashKey); buf is scratch space.
// skipPacked says Key accepts no key stored packed (see Build.KeyBytes).
func (c *Correlator) wanted(di int32, kref aref, hashKey string, f *followUps, skipPacked bool, buf []byte) bool {
	if kind := kref & 0xf; c.Build.Key != nil && !(skipPacked && (kind == packedUUID || kind == packedHex)) {
		key := hashKey
		if kref != 0 {
			buf = c.arena.appendTo(buf[:0], kref)
			key = viewString(buf)
		}
		if c.Build.Key(key) {
			return true
		}
	}
	return f != nil && f.follows(c, c.deliveries.at(di), buf[:0])
}

// followUps are the losses of the built intents, found by the client,
// method and route of each intent's first delivery.
type followUps struct {
	window time.Duration
	// seen holds a bit for each loss's signature, so that most plain
	// deliveries are ruled out without a map lookup.
	seen []uint64
	// clients holds a bit for each loss's client (see clientBit): a
	// plain line from a client that lost nothing, most of them, is ruled
	// out before its signature is laid out and hashed.
	clients []uint64
	// losses finds the losses of a signature: the last in at, whose next
	// names the one before, up to -1.
	losses   map[uint64]int32
	at       []time.Time
	nextLoss []int32
}

// clientBit is where a client, as the arena stores it (kind and bytes,
// see pack), has its bit in followUps.clients: a multiplicative hash of
// its first eight bytes, its length and its kind, much cheaper than
// hashing the whole signature. Clients sharing a bit only cost that hash.
func clientBit(raw string, kind int) uint64 {
	var x uint64
	for i := 0; i < len(raw) && i < 8; i++ {
		x |= uint64(raw[i]) << (8 * i)
	}
	x ^= (uint64(len(raw))<<4 | uint64(kind)) * 0xD6E8FEB86659FD93
	return (x * 0x9E3779B97F4A7C15) >> (64 - 20)
}

// followUps gathers the losses of the built intents as their readers
// see them, or returns nil when there is nothing to follow.
func (c *Correlator) followUps(built []*model.Intent) *followUps {
	if c.Build.FollowUp <= 0 {
		return nil
	}
	f := &followUps{window: c.Build.FollowUp}
	// Each built intent's losses are found on every core, a run of
	// intents at a time, and gathered in order: each signature's times in
	// the order of its intents.
	type loss struct {
		sig, client uint64 // client is clientBit's
		at          time.Time
		first       bool // the intent's first loss: its client is counted
	}
	const run = 1024
	found := make([][]loss, (len(built)+run-1)/run)
	inParallelBy(len(found), 1, func(lo, hi int) {
		var buf []byte
		for r := lo; r < hi; r++ {
			var out []loss
			for _, in := range built[r*run : min(len(built), (r+1)*run)] {
				if len(in.Deliveries) == 0 {
					continue
				}
				d0 := in.Deliveries[0]
				client := d0.Client()
				if client == "" {
					continue // not known to come from the same client as anything
				}
				var k uint64
				for _, d := range in.Deliveries {
					at := d.Start()
					if d.Lost() == nil || at.IsZero() {
						continue
					}
					l := loss{sig: k, at: at}
					if k == 0 {
						buf = appendSig(buf[:0], client, d0.Method(), d0.Route())
						k = maphash.Bytes(idSeed, buf) | 1
						p := pack(client)
						l.sig, l.client, l.first = k, clientBit(p.stored(client), int(p.kind)), true
					}
					out = append(out, l)
				}
			}
			found[r] = out
		}
	})
	var clients []uint64
	n := 0
	for _, out := range found {
		n += len(out)
	}
	f.losses, f.at, f.nextLoss = make(map[uint64]int32, n), make([]time.Time, 0, n), make([]int32, 0, n)
	for _, out := range found {
		for _, l := range out {
			prev, ok := f.losses[l.sig]
			if !ok {
				prev = -1
			}
			f.losses[l.sig] = int32(len(f.at))
			f.at, f.nextLoss = append(f.at, l.at), append(f.nextLoss, prev)
			if l.first {
				clients = append(clients, l.client)
			}
		}
	}
	if len(f.losses) == 0 {
		return nil
	}
	f.seen = pages.Written(make([]uint64, 1<<20/64)) // 128 KB: a few percent full for 40,000 losses
	for k := range f.losses {
		f.seen[k>>50] |= 1 << (k >> 44 & 63)
	}
	f.clients = pages.Written(make([]uint64, 1<<20/64))
	for _, b := range clients {
		f.clients[b>>6] |= 1 << (b & 63)
	}
	return f
}

// appendSig lays out what makes two intents one client's same request:
// the client and route as the arena stores them (packed ids stay packed,
// which costs nothing to compare), and the method.
func appendSig(buf []byte, client, method, route string) []byte {
	buf = appendPacked(buf, client, pack(client))
	buf = append(append(buf, method...), 0)
	return appendPacked(buf, route, pack(route))
}

// appendPacked appends s as the arena stores it (see pack): its kind, then
// its packed bytes or s itself.
func appendPacked(buf []byte, s string, p packed) []byte {
	return append(append(append(buf, p.kind), p.stored(s)...), 0)
}

// follows reports whether the plain delivery d starts after a loss with its
// signature, within the window. Like Delivery.Client, Method, Route and
// Start, it takes each from the outermost tier that logged it: a plain
// delivery has one observation per tier.
func (f *followUps) follows(c *Correlator, d *cdelivery, buf []byte) bool {
	var client, method, route, start int32 = -1, -1, -1, -1
	first := d.first
	if co := c.obs.at(first); co.next < 0 && co.flags&flagFull == 0 {
		// One compact line, as most plain deliveries are: its fields are
		// the delivery's, and a field it lacks lays out as the loop's
		// missing one does.
		if co.client == 0 || co.time == 0 {
			return false
		}
		raw, kind := c.arena.raw(co.client)
		if b := clientBit(viewString(raw), kind); f.clients[b>>6]&(1<<(b&63)) == 0 {
			return false
		}
		client, method, route, start = first, first, first, first
		first = -1 // nothing left to walk
	}
	var ct, mt, rt, st model.Tier
	for j := first; j >= 0; j = c.obs.at(j).next {
		co := c.obs.at(j)
		var hasClient, hasMethod, hasRoute, hasTime bool
		if fi := c.full(j); fi >= 0 {
			o := c.fulls[fi]
			hasClient, hasMethod, hasRoute, hasTime = o.Client != "", o.Method != "", o.Route != "", !o.Time.IsZero()
		} else {
			hasClient, hasMethod, hasRoute, hasTime = co.client != 0, c.methods.list[co.method][0] != "", co.route != 0, co.time != 0
		}
		if hasClient && (client < 0 || co.tier < ct) {
			client, ct = j, co.tier
		}
		if hasMethod && (method < 0 || co.tier < mt) {
			method, mt = j, co.tier
		}
		if hasRoute && (route < 0 || co.tier < rt) {
			route, rt = j, co.tier
		}
		if hasTime && (start < 0 || co.tier < st) {
			start, st = j, co.tier
		}
	}
	if client < 0 || start < 0 {
		return false
	}
	buf = c.appendField(buf, client, fieldClient)
	buf = append(c.appendField(buf, method, fieldMethod), 0)
	buf = c.appendField(buf, route, fieldRoute)
	k := maphash.Bytes(idSeed, buf) | 1
	if f.seen[k>>50]&(1<<(k>>44&63)) == 0 {
		return false
	}
	at := c.obsTime(start)
	i, ok := f.losses[k]
	for ; ok && i >= 0; i = f.nextLoss[i] {
		// A hash collision only builds one more intent for the readers,
		// which compare the real values.
		if t := f.at[i]; at.After(t) && at.Sub(t) <= f.window {
			return true
		}
	}
	return false
}

// The fields follow-ups are compared by (see followUps.follows).
const (
	fieldClient = iota
	fieldMethod
	fieldRoute
)

// appendField appends a string field of observation j (or of none, for
// j < 0) to buf in the form appendSig lays out.
func (c *Correlator) appendField(buf []byte, j int32, field int) []byte {
	switch {
	case j < 0 && field == fieldMethod:
		return buf
	case j < 0:
		return appendPacked(buf, "", packed{})
	}
	if f := c.full(j); f >= 0 {
		o := c.fulls[f]
		if field == fieldMethod {
			return append(buf, o.Method...)
		}
		s := [...]string{fieldClient: o.Client, fieldRoute: o.Route}[field]
		return appendPacked(buf, s, pack(s))
	}
	co := c.obs.at(j)
	r := co.route
	switch field {
	case fieldClient:
		r = co.client
	case fieldMethod:
		return append(buf, c.methods.list[co.method][0]...)
	}
	raw, kind := c.arena.raw(r)
	return append(append(append(buf, byte(kind)), raw...), 0)
}
