package model

import (
	"slices"
	"testing"
	"time"
)

func TestKeyQueryMatch(t *testing.T) {
	raw := "8e03978e-40d5-43e8-bc93-6894a57f9324"
	hashed := HashKey(raw)
	cases := []struct {
		name, given, stored string
		want                bool
	}{
		{"the raw key", raw, raw, true},
		{"the header's quoted form", `"` + raw + `"`, raw, true},
		{"a key known by hash, given raw", raw, "hash:" + hashed, true},
		{"a raw key, given its hash", hashed, raw, true},
		{"a hash, known by that hash", hashed, "hash:" + hashed, true},
		{"the hash of a key only logged hashed, given raw", raw, hashed, true},
		{"another key", raw, raw + "x", false},
		{"another key's hash", hashed, "other", false},
		{"a hash given for a key stored as a hash of something else", hashed, "hash:sha256:0000000000000000", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := newKeyQuery(c.given).Match(c.stored); got != c.want {
				t.Errorf("newKeyQuery(%q).Match(%q) = %v, want %v", c.given, c.stored, got, c.want)
			}
		})
	}
}

func TestIntentCount(t *testing.T) {
	two := []*Delivery{{RequestID: "a"}, {RequestID: "b"}}
	cases := []struct {
		name string
		in   Intent
		want int
	}{
		{"counted by the correlator", Intent{Deliveries: two, Total: 2}, 2},
		{"more than were kept", Intent{Deliveries: two, Total: 20000}, 20000},
		{"made by hand, without a total", Intent{Deliveries: two}, 2},
		{"no delivery", Intent{}, 0},
	}
	for _, c := range cases {
		if got := c.in.Count(); got != c.want {
			t.Errorf("%s: Count() = %d, want %d", c.name, got, c.want)
		}
	}
}

// fakeStore stands for a correlator's store: it holds one intent that
// was only counted.
type fakeStore struct {
	counted  *Intent
	released int
}

func (f *fakeStore) Counts() Counts { return Counts{Intents: 3, Unkeyed: 5, Deliveries: 9} }

func (f *fakeStore) Find(q *KeyQuery) []*Intent {
	if f.released == 0 && q.Match(f.counted.Key) {
		return []*Intent{f.counted}
	}
	return nil
}

func (f *fakeStore) Release() { f.released++ }

func intentAt(key string, sec int) *Intent {
	at := time.Date(2026, 11, 30, 9, 0, sec, 0, time.UTC)
	return &Intent{ID: key, Key: key, Deliveries: []*Delivery{{Observations: []*Observation{{Time: at}}}}}
}

func TestSetFindsBuiltAndCountedIntents(t *testing.T) {
	built, scoped := intentAt("k", 20), intentAt("k", 10)
	scoped.ID = "tenant=a|k"
	counted := intentAt("k", 15)
	store := &fakeStore{counted: counted}
	set := &Set{Built: []*Intent{built, scoped, intentAt("other", 0)}, Store: store}

	if got, want := set.FindIntent(`"k"`), []*Intent{scoped, counted, built}; !slices.Equal(got, want) {
		t.Errorf("FindIntent: %v, want the three under k in order of start", got)
	}
	if got := set.FindIntent("nobody"); got != nil {
		t.Errorf("FindIntent of an unknown key: %v", got)
	}
	if set.IntentCount() != 3 || set.UnkeyedCount() != 5 || set.DeliveryCount() != 9 {
		t.Errorf("counts %d %d %d: the store's", set.IntentCount(), set.UnkeyedCount(), set.DeliveryCount())
	}

	set.LookupsDone()
	if store.released != 1 {
		t.Fatalf("LookupsDone released the store %d times", store.released)
	}
	if got, want := set.FindIntent("k"), []*Intent{scoped, built}; !slices.Equal(got, want) {
		t.Errorf("FindIntent after LookupsDone: %v, want only the built", got)
	}
	if set.IntentCount() != 3 {
		t.Errorf("the counts stay: %d intents", set.IntentCount())
	}
}

func TestSetWithoutStoreCountsWhatItHolds(t *testing.T) {
	in := intentAt("k", 0)
	in.Deliveries = append(in.Deliveries, &Delivery{})
	set := &Set{Built: []*Intent{in}, Unkeyed: []*Delivery{{}}}
	set.LookupsDone() // nothing to let go of
	if set.IntentCount() != 1 || set.UnkeyedCount() != 1 || set.DeliveryCount() != 3 {
		t.Errorf("counts %d %d %d, want 1 1 3", set.IntentCount(), set.UnkeyedCount(), set.DeliveryCount())
	}
	if got := set.FindIntent("k"); len(got) != 1 || got[0] != in {
		t.Errorf("FindIntent: %v", got)
	}
}
