package trace

import (
	"hash/maphash"
	"strings"
	"testing"
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
		if len(want) > 0xffff {
			want = want[:0xffff]
		}
		if got := a.get(refs[i]); got != want {
			t.Errorf("round trip of %q gave %q", s[:min(len(s), 40)], got[:min(len(got), 40)])
		}
	}
	if refs[2]&0xf != packedUUID || refs[4]&0xf != packedHex || refs[3]&0xf != 0 || refs[5]&0xf != 0 {
		t.Errorf("packing kinds: %x %x %x %x", refs[2]&0xf, refs[4]&0xf, refs[3]&0xf, refs[5]&0xf)
	}
}

func TestRequestIDHashCollision(t *testing.T) {
	c := NewCorrelator(nil)
	c.Add(&Observation{Tier: TierProxy, RequestID: "a", Key: "k1", Method: "POST"})
	// Pretend "b" hashes like "a": its lookup must not return a's delivery.
	c.byID[maphash.String(idSeed, "b")] = c.byID[maphash.String(idSeed, "a")]
	c.Add(&Observation{Tier: TierProxy, RequestID: "b", Key: "k2", Method: "POST"})
	c.Add(&Observation{Tier: TierServer, RequestID: "b", Key: "k2", Status: 201})
	if len(c.collided) != 1 {
		t.Fatalf("collided %d, want b there", len(c.collided))
	}
	set := c.Set(nil)
	if set.DeliveryCount() != 2 {
		t.Fatalf("deliveries %d", set.DeliveryCount())
	}
	in := set.FindIntent("k2")
	if len(in) != 1 || len(in[0].Deliveries) != 1 || len(in[0].Deliveries[0].Observations) != 2 {
		t.Fatalf("k2: %+v", in)
	}
}
