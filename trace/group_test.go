package trace

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/model"
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
		o := &model.Observation{Tier: model.TierServer, RequestID: fmt.Sprintf("r%d", i), Status: 201}
		if i%5 == 3 && i >= keys {
			o.KeyHash = model.HashKey(key) // only the hash, after the raw key was seen
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
	if len(set.Built) != keys { // every key has more than one delivery
		t.Fatalf("%d intents built, want %d", len(set.Built), keys)
	}
	seen := map[string]bool{}
	for _, in := range set.Built {
		if seen[in.Key] {
			t.Fatalf("%s: two intents", in.Key)
		}
		seen[in.Key] = true
		if len(in.Deliveries) != want[in.Key] {
			t.Errorf("%s: %d deliveries, want %d", in.Key, len(in.Deliveries), want[in.Key])
		}
	}
}

// TestGroupingTwoWaysAlike groups the same observations on two goroutines
// (by the names worked out while reading) and on one, in order: the sets
// must be the same, intent for intent and delivery for delivery, in the
// same order.
func TestGroupingTwoWaysAlike(t *testing.T) {
	for _, all := range []bool{false, true} {
		for seed := range uint64(4) {
			obs := mixedObservations(seed, 6000)
			describe := func(from int32) (string, bool) {
				old := shardFrom
				shardFrom = from
				defer func() { shardFrom = old }()
				c := NewCorrelator(nil)
				c.Build.All = all
				for i := range obs {
					o := obs[i]
					c.Add(&o)
				}
				named := c.namedWhileRead()
				set := c.Set(nil)
				var b strings.Builder
				fmt.Fprintf(&b, "%d intents, %d unkeyed, %d deliveries\n", set.IntentCount(), set.UnkeyedCount(), set.DeliveryCount())
				for _, in := range set.Built {
					fmt.Fprintf(&b, "%s %d:", in.ID, in.Total)
					for _, d := range in.Deliveries {
						fmt.Fprintf(&b, " %s/%d", d.RequestID, len(d.Observations))
					}
					b.WriteByte('\n')
				}
				for _, d := range set.Unkeyed {
					fmt.Fprintf(&b, "unkeyed %s\n", d.RequestID)
				}
				// What the public view does not show: the compact intents
				// in the order they were made, and the single deliveries.
				for _, ci := range set.Store.(*store).cintents {
					fmt.Fprintf(&b, "compact %d-%d %d %v\n", ci.first, ci.last, ci.n, ci.interesting)
				}
				for di := range int32(c.deliveries.len()) {
					if c.singles.has(di) {
						fmt.Fprintf(&b, "single %d\n", di)
					}
				}
				for _, k := range []string{"k-7", "c9b2decb-ebc7-4a9b-99d6-000000000011", "k-" + strings.Repeat("x", 70)} {
					fmt.Fprintf(&b, "find %s: %d\n", k, len(set.FindIntent(k)))
				}
				return b.String(), named
			}
			sharded, named := describe(0)
			inOrder, _ := describe(math.MaxInt32)
			if !named {
				t.Fatal("the names were not all worked out while reading: the test groups one way only")
			}
			if sharded != inOrder {
				t.Fatalf("all=%v seed %d: two goroutines grouped\n%.2000s\none grouped\n%.2000s", all, seed, sharded, inOrder)
			}
		}
	}
}

// mixedObservations makes n observations of the shapes grouping meets:
// keys that recur (retries, reuse), keys packed and not, a proxy and a
// server line for one request with the key on either or both, deliveries
// without a key or without a request id, and statuses worth a look.
func mixedObservations(seed uint64, n int) []model.Observation {
	r := rand.New(rand.NewPCG(seed, 1))
	var out []model.Observation
	for i := 0; len(out) < n; i++ {
		var key string
		switch r.IntN(5) {
		case 0:
			key = fmt.Sprintf("c9b2decb-ebc7-4a9b-99d6-%012x", r.IntN(300))
		case 1:
			key = fmt.Sprintf("k-%d", r.IntN(400))
		case 2:
			key = "k-" + strings.Repeat("x", 60+r.IntN(20))
		case 3:
			key = fmt.Sprintf("%032x", r.IntN(1000)) // packed as hex
		}
		status := []int{201, 201, 201, 200, 499, 409, 502}[r.IntN(7)]
		rid := fmt.Sprintf("r-%d", i)
		if r.IntN(20) == 0 {
			rid = "" // a delivery named by its tier and line
		}
		o := model.Observation{Tier: model.TierProxy, RequestID: rid, Key: key, Method: "POST", Route: "/v1/pay", Status: status,
			Client: fmt.Sprintf("10.0.0.%d", r.IntN(9)), Time: time.Unix(1700000000+int64(i/500), 0).UTC(), Source: model.Source{File: "p", Line: i}}
		if rid == "" && key == "" {
			continue
		}
		if r.IntN(3) == 0 && rid != "" {
			// The server's line of the same request: the key on one, the
			// other or both.
			s := o
			s.Tier, s.Source = model.TierServer, model.Source{File: "s", Line: i}
			switch r.IntN(3) {
			case 0:
				o.Key = ""
			case 1:
				s.Key = ""
			}
			out = append(out, o, s)
			continue
		}
		out = append(out, o)
	}
	return out
}

// TestSortIntentsAsOneStableSort: the intents sorted in two halves side by
// side and merged come out as one stable sort by start and id leaves them,
// ties (the same start and id) in their first order.
func TestSortIntentsAsOneStableSort(t *testing.T) {
	for _, n := range []int{0, 1, 3, 2047, 2048, 5001} {
		r := rand.New(rand.NewPCG(uint64(n), 2))
		var in []*model.Intent
		for i := range n {
			o := &model.Observation{Time: time.Unix(1700000000+int64(r.IntN(20)), 0)}
			if r.IntN(10) == 0 {
				o.Time = time.Time{} // no start at all
			}
			id := fmt.Sprintf("k%d", r.IntN(30))
			in = append(in, &model.Intent{ID: id, Key: fmt.Sprint(i), Deliveries: []*model.Delivery{{Observations: []*model.Observation{o}}}})
		}
		want := slices.Clone(in)
		slices.SortStableFunc(want, func(a, b *model.Intent) int {
			if c := a.Start().Compare(b.Start()); c != 0 {
				return c
			}
			return strings.Compare(a.ID, b.ID)
		})
		sortIntents(in)
		for i := range in {
			if in[i] != want[i] {
				t.Fatalf("n=%d: at %d intent %s (key %s), want %s (key %s)", n, i, in[i].ID, in[i].Key, want[i].ID, want[i].Key)
			}
		}
	}
}
