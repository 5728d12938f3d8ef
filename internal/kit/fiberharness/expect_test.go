package fiberharness

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
	ok := func(key, body string, start, end, status int, resp, effect string) capture.Sent {
		return capture.Sent{Client: "u1", Key: key, Body: body, Start: at(start), End: at(end), Ended: "response", Status: status, Response: resp, Effect: effect}
	}
	timeout := func(key, body string, start, end int, effect string) capture.Sent {
		return capture.Sent{Client: "u1", Key: key, Body: body, Start: at(start), End: at(end), Ended: "timeout", Effect: effect}
	}
	from := func(client string, s capture.Sent) capture.Sent { s.Client = client; return s }
	tests := []struct {
		name     string
		sent     []capture.Sent
		payloads bool
		must     []string // rule:keys:severity[:claim it must not make]
		clean    []string
	}{
		{"clean requests", []capture.Sent{ok("k1", "b1", 0, 10, 201, "o1", "o1"), ok("k2", "b2", 20, 30, 201, "o2", "o2")}, false,
			nil, []string{"k1", "k2"}},
		{"a failed single request is not clean", []capture.Sent{ok("k1", "b1", 0, 10, 500, "", "")}, false,
			nil, nil},
		{"duplicate held and replayed", []capture.Sent{ok("k1", "b1", 0, 1200, 201, "o1", "o1"), ok("k1", "b1", 300, 1201, 201, "o1", "")}, false,
			nil, []string{"k1"}},
		{"overlapping duplicates that made two orders are not healthy", []capture.Sent{ok("k1", "b1", 0, 1200, 201, "o1", "o1"), ok("k1", "b1", 300, 1201, 201, "o2", "o2")}, false,
			nil, nil},
		{"overlapping duplicates answered differently are not healthy", []capture.Sent{ok("k1", "b1", 0, 1200, 201, "o1", "o1"), ok("k1", "b1", 300, 310, 409, "busy", "")}, false,
			[]string{"in-progress-retry:k1:warning"}, nil},
		{"a retry after the first ended is not a held duplicate", []capture.Sent{ok("k1", "b1", 0, 10, 201, "o1", "o1"), ok("k1", "b1", 20, 30, 201, "o1", "")}, false,
			nil, nil},
		{"a second order after the first ended", []capture.Sent{ok("k1", "b1", 0, 10, 201, "o1", "o1"), ok("k1", "b1", 3500, 3510, 201, "o2", "o2")}, false,
			[]string{"key-expired:k1:critical"}, nil},
		{"a second order after a replay: the key had been stored", []capture.Sent{ok("k1", "b1", 0, 10, 201, "o1", "o1"), ok("k1", "b1", 20, 30, 201, "o1", ""),
			ok("k1", "b1", 3500, 3510, 201, "o2", "o2")}, false,
			[]string{"key-expired:k1:critical:never stored"}, nil},
		{"another body, replayed", []capture.Sent{ok("k1", "b1", 0, 10, 201, "o1", "o1"), ok("k1", "b2", 20, 30, 201, "o1", "")}, false,
			[]string{"payload-mismatch:k1:critical"}, nil},
		{"another body, refused", []capture.Sent{ok("k1", "b1", 0, 10, 201, "o1", "o1"), ok("k1", "b2", 20, 30, 422, "", "")}, false,
			[]string{"payload-mismatch:k1:warning"}, nil},
		{"lost response, recovered by the same key", []capture.Sent{timeout("k1", "b1", 0, 400, "o1"), ok("k1", "b1", 2000, 2010, 201, `{"order_id":"o1"}`, "")}, false,
			[]string{"response-lost:k1:info"}, nil},
		{"lost response, a retry that got something else", []capture.Sent{timeout("k1", "b1", 0, 400, "o1"), ok("k1", "b1", 2000, 2010, 201, `{"order_id":"o2"}`, "o2")}, false,
			[]string{"key-expired:k1:critical", "response-lost:k1:warning"}, nil},
		{"lost response, no retry", []capture.Sent{timeout("k1", "b1", 0, 400, "o1")}, false,
			[]string{"response-lost:k1:warning"}, nil},
		{"timeout before the service made anything", []capture.Sent{timeout("k1", "b1", 0, 400, ""), ok("k1", "b1", 2000, 2010, 201, "o1", "o1")}, false,
			nil, nil},
		{"new key after a timeout, payloads logged", []capture.Sent{timeout("k1", "b1", 0, 400, "o1"), ok("k2", "b1", 2000, 2010, 201, "o2", "o2")}, true,
			[]string{"response-lost:k1:warning", "retry-new-key:k1,k2:critical"}, nil},
		// Two orders are two effects, a fact whether or not the payloads
		// are logged.
		{"new key after a timeout, no payloads logged", []capture.Sent{timeout("k1", "b1", 0, 400, "o1"), ok("k2", "b1", 2000, 2010, 201, "o2", "o2")}, false,
			[]string{"response-lost:k1:warning", "retry-new-key:k1,k2:critical"}, nil},
		{"the same body from another user is no retry", []capture.Sent{timeout("k1", "b1", 0, 400, "o1"), from("u2", ok("k2", "b1", 2000, 2010, 201, "o2", "o2"))}, true,
			[]string{"response-lost:k1:warning"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			must, clean := expectations(tt.sent, tt.payloads)
			var got []string
			for _, e := range must {
				g := e.Rule + ":" + strings.Join(e.Keys, ",") + ":" + e.Severity.String()
				if e.NotSay != "" {
					g += ":" + e.NotSay
				}
				got = append(got, g)
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
