package trace

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"github.com/idem-cli/idem/model"
)

func TestArenaRoundTrip(t *testing.T) {
	var a arena
	inputs := []string{"", "x", "c9b2decb-ebc7-4a9b-99d6-69712772ef41", "C9B2DECB-EBC7-4A9B-99D6-69712772EF41",
		"14fe277217966d99b9a47cbebced2b9c", "14fe277217966d99b9a47cbebced2b9g", "c9b2decb_ebc7-4a9b-99d6-69712772ef41",
		strings.Repeat("z", 70000), "ünïcode", "198.51.100.23"}
	var refs []aref
	for _, s := range inputs {
		refs = append(refs, a.add(s))
	}
	for i := 0; i < 3000; i++ { // fill several chunks
		a.add(strings.Repeat("q", 500))
	}
	for i, s := range inputs {
		want := s
		if got := a.get(refs[i]); got != want {
			t.Errorf("round trip of %q gave %q", s[:min(len(s), 40)], got[:min(len(got), 40)])
		}
	}
	if refs[2]&0xf != packedUUID || refs[4]&0xf != packedHex || refs[3]&0xf != 0 || refs[5]&0xf != 0 {
		t.Errorf("packing kinds: %x %x %x %x", refs[2]&0xf, refs[4]&0xf, refs[3]&0xf, refs[5]&0xf)
	}
}

func TestHashIndexTellsNamesWithOneHashApart(t *testing.T) {
	for _, tc := range []struct {
		name string
		hash func(name string) uint64
	}{
		{"real hashes", func(n string) uint64 { return maphash.String(idSeed, n) }},
		{"seven hashes for all", func(n string) uint64 { return uint64(len(n)%7) << 32 }},
		{"one hash for all", func(string) uint64 { return 42 << 32 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var x hashIndex // grows from empty, through several sizes
			var names []string
			for i := 0; i < 3000; i++ {
				name := strings.Repeat("n", i%50) + strconv.Itoa(i)
				same := func(v int32) bool { return names[v] == name }
				if _, found := x.findOrAdd(tc.hash(name), int32(len(names)), same); found {
					t.Fatalf("%q found before it was added", name)
				}
				names = append(names, name)
			}
			for i, name := range names {
				same := func(v int32) bool { return names[v] == name }
				got, found := x.findOrAdd(tc.hash(name), -1, same)
				if !found || got != int32(i) {
					t.Fatalf("%q: got %d %v, want %d", name, got, found, i)
				}
			}
			if x.n != len(names) || x.n*10 > len(x.slots)*7 {
				t.Errorf("%d entries in %d slots", x.n, len(x.slots))
			}
		})
	}
}

func isCanonicalIPv4(s string) bool {
	a, err := netip.ParseAddr(s)
	return err == nil && a.Is4() && a.String() == s
}

// FuzzPack checks that an id packs exactly when it is canonical lower-case
// hex or UUID, and then unpacks to itself.
func FuzzPack(f *testing.F) {
	for _, s := range []string{"c9b2decb-ebc7-4a9b-99d6-69712772ef41", "14fe277217966d99b9a47cbebced2b9c",
		"14fe277217966d99b9a47cbebced2b9G", "c9b2decb-ebc7-4a9b-99d6-69712772ef4/", "x",
		"17.178.14.233", "0.0.0.0", "255.255.255.255", "01.2.3.4", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1..2.3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := pack(s)
		canonical := func(digits string) bool {
			for _, c := range []byte(digits) {
				if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
					return false
				}
			}
			return true
		}
		switch {
		case len(s) == 32 && canonical(s):
			if p.kind != packedHex || unpackHex(p.bytes[:]) != s {
				t.Fatalf("%q: kind %d, unpacks to %q", s, p.kind, unpackHex(p.bytes[:]))
			}
		case len(s) == 36 && s[8] == '-' && s[13] == '-' && s[18] == '-' && s[23] == '-' &&
			canonical(s[:8]+s[9:13]+s[14:18]+s[19:23]+s[24:]):
			if p.kind != packedUUID || unpackUUID(p.bytes[:]) != s {
				t.Fatalf("%q: kind %d, unpacks to %q", s, p.kind, unpackUUID(p.bytes[:]))
			}
		case isCanonicalIPv4(s):
			if p.kind != packedIPv4 || unpackIPv4(p.bytes[:p.n]) != s {
				t.Fatalf("%q: kind %d, unpacks to %q", s, p.kind, unpackIPv4(p.bytes[:p.n]))
			}
		case p.kind != 0:
			t.Fatalf("%q packed as kind %d", s, p.kind)
		}
	})
}

// TestPackEveryByteAtEveryPlace puts each of the 256 bytes at each place
// of a canonical hex id and UUID: the id packs exactly when the byte is
// one the canonical form has there, since the packing tests the eight
// bytes of a word at once.
func TestPackEveryByteAtEveryPlace(t *testing.T) {
	isHex := func(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }
	for _, base := range []string{"0123456789abcdef0123456789abcdef", "c9b2decb-ebc7-4a9b-99d6-69712772ef41"} {
		for i := range len(base) {
			for c := range 256 {
				b := []byte(base)
				b[i] = byte(c)
				s := string(b)
				want := isHex(byte(c))
				if base[i] == '-' {
					want = c == '-'
				}
				p := pack(s)
				if got := p.kind != 0; got != want {
					t.Fatalf("%q: packed %v, want %v", s, got, want)
				}
				if !want {
					continue
				}
				unpack := unpackHex
				if len(s) == 36 {
					unpack = unpackUUID
				}
				if u := unpack(p.bytes[:]); u != s {
					t.Fatalf("%q unpacks to %q", s, u)
				}
			}
		}
	}
	// And a dotted quad, with each byte in each place, dropped, or doubled.
	for _, base := range []string{"198.51.100.23", "0.10.255.9"} {
		for i := range len(base) + 1 {
			var variants []string
			for c := range 256 {
				variants = append(variants, base[:i]+string([]byte{byte(c)})+base[min(i+1, len(base)):], base[:i]+string([]byte{byte(c)})+base[i:])
			}
			variants = append(variants, base[:i]+base[min(i+1, len(base)):])
			for _, s := range variants {
				p := pack(s)
				if got, want := p.kind == packedIPv4, isCanonicalIPv4(s); got != want {
					t.Fatalf("%q: packed as IPv4 %v, want %v", s, got, want)
				} else if got && unpackIPv4(p.bytes[:p.n]) != s {
					t.Fatalf("%q unpacks to %q", s, unpackIPv4(p.bytes[:p.n]))
				}
			}
		}
	}
}

func TestDetailsStayExactPastTheTable(t *testing.T) {
	c := NewCorrelator(nil)
	n := maxTexts + 500
	for i := 0; i < n; i++ {
		c.Add(&model.Observation{Tier: model.TierProxy, RequestID: "r-" + strconv.Itoa(i), Key: "k-" + strconv.Itoa(i), Method: "POST",
			Route: "/v1/x", Status: 502, Detail: "detail " + strconv.Itoa(i%(maxTexts+100))})
	}
	set := c.Set(nil)
	if len(set.Intents) != n {
		t.Fatalf("%d intents built, want %d (a 502 is notable)", len(set.Intents), n)
	}
	for _, in := range set.Intents {
		i, _ := strconv.Atoi(strings.TrimPrefix(in.Key, "k-"))
		if got, want := in.Deliveries[0].Observations[0].Detail, "detail "+strconv.Itoa(i%(maxTexts+100)); got != want {
			t.Fatalf("%s: detail %q, want %q", in.Key, got, want)
		}
	}
	// The table holds maxTexts (detail, message) pairs; the lines with
	// the 100 others are kept whole, once each.
	if want := 100; len(c.fulls) != want {
		t.Errorf("%d observations kept whole, want the %d whose detail did not fit the table", len(c.fulls), want)
	}
}

func TestManyMethodsStayExact(t *testing.T) {
	c := NewCorrelator(nil)
	for i := 0; i < 300; i++ {
		c.Add(&model.Observation{Tier: model.TierProxy, Format: "nginx", RequestID: "r-" + strconv.Itoa(i), Key: "k-" + strconv.Itoa(i),
			Method: "M" + strconv.Itoa(i), Route: "/v1/x", Status: 502, Source: model.Source{File: "f" + strconv.Itoa(i%3), Line: i}})
	}
	for _, in := range c.Set(nil).Intents {
		i, _ := strconv.Atoi(strings.TrimPrefix(in.Key, "k-"))
		o := in.Deliveries[0].Observations[0]
		if o.Method != "M"+strconv.Itoa(i) || o.Source.File != "f"+strconv.Itoa(i%3) || o.Source.Line != i || o.Format != "nginx" {
			t.Fatalf("%s: %s %s %s", in.Key, o.Method, o.Source, o.Format)
		}
	}
}

// BenchmarkPackIPv4 packs client addresses of every length, in an order
// the processor cannot learn.
func BenchmarkPackIPv4(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	addrs := make([]string, 4096)
	for i := range addrs {
		addrs[i] = fmt.Sprintf("%d.%d.%d.%d", rng.IntN(256), rng.IntN(256), rng.IntN(256), rng.IntN(256))
	}
	var out [16]byte
	for i := 0; b.Loop(); i++ {
		if !packIPv4(addrs[i%len(addrs)], &out) {
			b.Fatal(addrs[i%len(addrs)])
		}
	}
}
