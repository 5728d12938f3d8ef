package trace

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"
)

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
