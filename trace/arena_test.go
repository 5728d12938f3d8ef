package trace

import (
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
		if got := a.get(refs[i]); got != want {
			t.Errorf("round trip of %q gave %q", s[:min(len(s), 40)], got[:min(len(got), 40)])
		}
	}
	if refs[2]&0xf != packedUUID || refs[4]&0xf != packedHex || refs[3]&0xf != 0 || refs[5]&0xf != 0 {
		t.Errorf("packing kinds: %x %x %x %x", refs[2]&0xf, refs[4]&0xf, refs[3]&0xf, refs[5]&0xf)
	}
}

// FuzzArenaAppendTo: appending a stored string, unpacked in place, gives
// back the string, as get does.
func FuzzArenaAppendTo(f *testing.F) {
	for _, s := range []string{"", "x", "c9b2decb-ebc7-4a9b-99d6-69712772ef41", "14fe277217966d99b9a47cbebced2b9c",
		"17.178.14.233", "0.0.0.0", "01.2.3.4", strings.Repeat("z", 70_000)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var a arena
		r := a.add(s)
		if got := string(a.appendTo([]byte("pre"), r)); got != "pre"+s {
			t.Fatalf("appendTo(%q) = %q", s, got)
		}
		if got := a.get(r); got != s {
			t.Fatalf("get(%q) = %q", s, got)
		}
	})
}
