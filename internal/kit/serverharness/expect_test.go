package serverharness

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/internal/kit/capture"
)

// TestExpectations checks the derivation itself: each shape of traffic
// calls for its rule, and the shapes next to it for none.
func TestExpectations(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	ok := func(step, key, body string, start, end int, status int, effect string) capture.Sent {
		return capture.Sent{Step: step, Key: key, Body: body, Start: at(start), End: at(end), Ended: "response", Status: status, Effect: effect}
	}
	timeout := func(step, key, body string, start, end int, effect string) capture.Sent {
		return capture.Sent{Step: step, Key: key, Body: body, Start: at(start), End: at(end), Ended: "timeout", Effect: effect}
	}
	replayed := func(s capture.Sent) capture.Sent { s.Replayed = true; return s }
	resp := func(s capture.Sent, body string) capture.Sent { s.Response = body; return s }
	tests := []struct {
		name  string
		sent  []capture.Sent
		must  []string // rule:keys
		clean []string
	}{
		{"lost response", []capture.Sent{timeout("a", "k1", "b1", 0, 300, "o1"), ok("b", "k1", "b1", 2000, 2010, 201, "")},
			[]string{"response-lost:k1"}, nil},
		{"timeout before the server made anything", []capture.Sent{timeout("a", "k1", "b1", 0, 300, ""), ok("b", "k1", "b1", 2000, 2010, 201, "o1")},
			nil, nil},
		{"concurrent duplicate", []capture.Sent{ok("a", "k1", "b1", 0, 800, 201, "o1"), ok("b", "k1", "b1", 200, 210, 409, "")},
			[]string{"in-progress-retry:k1"}, nil},
		{"concurrent duplicate that reached the server first", []capture.Sent{ok("a", "k1", "b1", 0, 210, 409, ""), ok("b", "k1", "b1", 5, 800, 201, "o1")},
			[]string{"in-progress-retry:k1"}, nil},
		{"a 409 after the first ended is no in-progress answer", []capture.Sent{ok("a", "k1", "b1", 0, 800, 201, "o1"), ok("b", "k1", "b1", 900, 910, 409, "")},
			nil, nil},
		{"another body", []capture.Sent{ok("a", "k1", "b1", 0, 10, 201, "o1"), ok("b", "k1", "b2", 20, 30, 417, "")},
			[]string{"payload-mismatch:k1"}, nil},
		{"new key after a timeout", []capture.Sent{timeout("a", "k1", "b1", 0, 300, "o1"), ok("b", "k2", "b1", 2000, 2010, 201, "o2")},
			[]string{"response-lost:k1", "retry-new-key:k1,k2"}, nil},
		{"new key, the first made nothing", []capture.Sent{timeout("a", "k1", "b1", 0, 300, ""), ok("b", "k2", "b1", 2000, 2010, 201, "o2")},
			nil, nil},
		{"clean requests", []capture.Sent{ok("a", "k1", "b1", 0, 10, 201, "o1"), ok("b", "k2", "b2", 20, 30, 201, "o2")},
			nil, []string{"k1", "k2"}},
		{"a duplicate held until the first was done, then answered with its order", []capture.Sent{ok("a", "k1", "b1", 0, 1200, 201, "o1"), ok("b", "k1", "b1", 300, 1300, 201, "")},
			nil, []string{"k1"}},
		{"a duplicate that made a second order is not clean", []capture.Sent{ok("a", "k1", "b1", 0, 1200, 201, "o1"), ok("b", "k1", "b1", 3000, 3010, 201, "o2")},
			[]string{"key-expired:k1"}, nil},
		{"a failed single request is not clean", []capture.Sent{ok("a", "k1", "b1", 0, 10, 500, "")},
			nil, nil},
		{"a key run again after a replay", []capture.Sent{ok("a", "k1", "b1", 0, 10, 201, "o1"), replayed(ok("b", "k1", "b1", 20, 30, 201, "")), ok("c", "k1", "b1", 4000, 4010, 201, "o2")},
			[]string{"key-expired:k1 not never stored"}, nil},
		{"a key run again, no replay seen before", []capture.Sent{ok("a", "k1", "b1", 0, 10, 201, "o1"), ok("c", "k1", "b1", 4000, 4010, 201, "o2")},
			[]string{"key-expired:k1"}, nil},
		{"a same-key retry that got the stored order", []capture.Sent{ok("a", "k1", "b1", 0, 10, 201, "o1"), ok("b", "k1", "b1", 4000, 4010, 201, "")},
			nil, []string{"k1"}},
		{"a same-key retry after a timeout is no expiry", []capture.Sent{timeout("a", "k1", "b1", 0, 300, "o1"), ok("b", "k1", "b1", 2000, 2010, 201, "o2")},
			[]string{"response-lost:k1"}, nil},
		{"two answered submissions under two keys", []capture.Sent{ok("a", "k1", "b1", 0, 10, 201, "o1"), ok("b", "k2", "b1", 20, 30, 201, "o2")},
			[]string{"duplicate-submission:k1,k2"}, nil},
		{"a second submission that was refused", []capture.Sent{ok("a", "k1", "b1", 0, 10, 201, "o1"), ok("b", "k2", "b1", 20, 30, 422, "")},
			nil, nil},
		{"more deliveries of a key than the retry budget", []capture.Sent{ok("a", "k1", "b1", 0, 500, 201, "o1"), ok("b", "k1", "b1", 0, 10, 409, ""), ok("b", "k1", "b1", 0, 10, 409, ""),
			ok("b", "k1", "b1", 0, 10, 409, ""), ok("b", "k1", "b1", 0, 10, 409, ""), ok("b", "k1", "b1", 0, 10, 409, "")},
			[]string{"in-progress-retry:k1", "retry-storm:k1"}, nil},
		{"as many deliveries as the budget are no storm", []capture.Sent{ok("a", "k1", "b1", 0, 500, 201, "o1"), ok("b", "k1", "b1", 0, 10, 409, ""), ok("b", "k1", "b1", 0, 10, 409, ""),
			ok("b", "k1", "b1", 0, 10, 409, ""), ok("b", "k1", "b1", 0, 10, 409, "")},
			[]string{"in-progress-retry:k1"}, nil},
		{"two effects at once under one key", []capture.Sent{ok("a", "k1", "b1", 0, 1200, 201, "o1"), ok("b", "k1", "b1", 300, 310, 201, "o2")},
			[]string{"non-atomic-reservation:k1"}, nil},
		{"a replay that gives back the original", []capture.Sent{resp(ok("a", "k1", "b1", 0, 10, 201, "o1"), `{"order_id":"o1"}`), resp(ok("b", "k1", "b1", 20, 30, 201, ""), `{"order_id":"o1"}`)},
			nil, []string{"k1"}},
		{"a replay answered 200 to the original's 201", []capture.Sent{resp(ok("a", "k1", "b1", 0, 10, 201, "o1"), `{"order_id":"o1"}`), resp(ok("b", "k1", "b1", 20, 30, 200, ""), `{"order_id":"o1"}`)},
			[]string{"replay-divergence:k1"}, nil},
		{"a replay of a lost response naming the order made", []capture.Sent{timeout("a", "k1", "b1", 0, 300, "o1"), resp(ok("b", "k1", "b1", 2000, 2010, 201, ""), `{"order_id":"o1"}`)},
			[]string{"response-lost:k1"}, nil},
		{"a replay of a lost response naming another order", []capture.Sent{timeout("a", "k1", "b1", 0, 300, "o1"), resp(ok("b", "k1", "b1", 2000, 2010, 201, ""), `{"order_id":"o9"}`)},
			[]string{"replay-divergence:k1", "response-lost:k1"}, nil},
		{"an unkeyed retry after a timeout", []capture.Sent{timeout("a", "", "b1", 0, 300, "o1"), ok("b", "", "b1", 2000, 2010, 201, "o2")},
			[]string{"unkeyed-retry:(none)"}, nil},
		{"two unkeyed answered writes are no retry", []capture.Sent{ok("a", "", "b1", 0, 10, 201, "o1"), ok("b", "", "b1", 20, 30, 201, "o2")},
			nil, nil},
		{"an unkeyed timeout whose retry made nothing", []capture.Sent{timeout("a", "", "b1", 0, 300, "o1"), ok("b", "", "b1", 2000, 2010, 500, "")},
			nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			must, clean := expectations(tt.sent)
			var got []string
			for _, e := range must {
				r := e.Rule + ":" + strings.Join(e.Keys, ",")
				if e.NotSay != "" {
					r += " not " + e.NotSay
				}
				got = append(got, r)
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.must) {
				t.Errorf("must fire %v, want %v", got, tt.must)
			}
			var keys []string
			for _, c := range clean {
				keys = append(keys, c.Key)
			}
			if !slices.Equal(keys, tt.clean) {
				t.Errorf("clean %v, want %v", keys, tt.clean)
			}
		})
	}
}
