package trace

import (
	"fmt"
	"testing"
)

// TestGroupingAcrossRuns checks that deliveries named in different runs
// of the parallel grouping, by raw key or by its hash, join one intent,
// with every delivery counted once.
func TestGroupingAcrossRuns(t *testing.T) {
	const keys = groupRun + 7 // so that each key recurs in other runs
	n := 3*groupRun + 5
	c := NewCorrelator(nil)
	want := map[string]int{}
	for i := range n {
		key := fmt.Sprintf("k%d", i%keys)
		o := &Observation{Tier: TierServer, RequestID: fmt.Sprintf("r%d", i), Status: 201}
		if i%5 == 3 && i >= keys {
			o.KeyHash = HashKey(key) // only the hash, after the raw key was seen
		} else {
			o.Key = key
		}
		c.Add(o)
		want[key]++
	}
	set := c.Set(nil)
	if set.IntentCount() != keys {
		t.Fatalf("%d intents, want %d", set.IntentCount(), keys)
	}
	if len(set.Intents) != keys { // every key has more than one delivery
		t.Fatalf("%d intents built, want %d", len(set.Intents), keys)
	}
	seen := map[string]bool{}
	for _, in := range set.Intents {
		if seen[in.Key] {
			t.Fatalf("%s: two intents", in.Key)
		}
		seen[in.Key] = true
		if len(in.Deliveries) != want[in.Key] {
			t.Errorf("%s: %d deliveries, want %d", in.Key, len(in.Deliveries), want[in.Key])
		}
	}
}
