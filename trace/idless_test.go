package trace

import (
	"testing"
	"time"

	"github.com/idem-cli/idem/model"
)

// TestIdlessWritesJoinOneEachWay: a proxy's and a server's lines with
// neither id nor key join as one unkeyed delivery only where each is the
// other's one match; the rest stay counted as lines without ids.
func TestIdlessWritesJoinOneEachWay(t *testing.T) {
	at := time.Date(2026, 12, 8, 10, 0, 0, 0, time.UTC)
	px := func(ms int, method, route string, status int) model.Observation {
		return model.Observation{Tier: model.TierProxy, Format: "nginx", Method: method, Route: route, Status: status, Client: "10.0.0.7",
			Time: at.Add(time.Duration(ms) * time.Millisecond), Duration: 300 * time.Millisecond, Source: model.Source{File: "nginx.log", Line: ms + 1}}
	}
	srv := func(ms int, method, route string, status int) model.Observation {
		return model.Observation{Tier: model.TierServer, Format: "slog", Method: method, Route: route, Status: status,
			Time: at.Add(time.Duration(ms) * time.Millisecond), Duration: 200 * time.Millisecond, Source: model.Source{File: "app.jsonl", Line: ms + 1}}
	}
	for _, tc := range []struct {
		name           string
		lines          []model.Observation
		joined         int // unkeyed deliveries of two lines
		proxy, server  int // lines left without ids
		deliveriesWant int
	}{
		{"one send seen at both tiers", []model.Observation{px(0, "POST", "/v1/orders", 201), srv(10, "POST", "/v1/orders", 201)}, 1, 0, 0, 1},
		{"two sends, far apart", []model.Observation{
			px(0, "POST", "/v1/orders", 201), srv(10, "POST", "/v1/orders", 201),
			px(60000, "POST", "/v1/orders", 201), srv(60010, "POST", "/v1/orders", 201)}, 2, 0, 0, 2},
		// Must not: two proxy lines could each be the server's one.
		{"two proxy lines for one server line", []model.Observation{
			px(0, "POST", "/v1/orders", 201), px(100, "POST", "/v1/orders", 201), srv(110, "POST", "/v1/orders", 201)}, 0, 2, 1, 0},
		{"another status", []model.Observation{px(0, "POST", "/v1/orders", 502), srv(10, "POST", "/v1/orders", 201)}, 0, 1, 1, 0},
		{"another route", []model.Observation{px(0, "POST", "/v1/orders", 201), srv(10, "POST", "/v1/pay", 201)}, 0, 1, 1, 0},
		{"outside the proxy's span and the tolerance", []model.Observation{px(0, "POST", "/v1/orders", 201), srv(1400, "POST", "/v1/orders", 201)}, 0, 1, 1, 0},
		{"a read is not joined", []model.Observation{px(0, "GET", "/v1/orders", 200), srv(10, "GET", "/v1/orders", 200)}, 0, 1, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCorrelator(nil)
			for i := range tc.lines {
				c.Add(&tc.lines[i])
			}
			s := c.Set(nil)
			joined := 0
			for _, d := range s.Unkeyed {
				if len(d.Observations) == 2 {
					joined++
				}
				for _, o := range d.Observations {
					if o.RequestID != "" {
						t.Errorf("a joined line shows the id %q no tier logged", o.RequestID)
					}
				}
				if !d.Synthetic {
					t.Errorf("a joined delivery is not marked as named by idem")
				}
			}
			if joined != tc.joined || s.Idless[model.TierProxy] != tc.proxy || s.Idless[model.TierServer] != tc.server || s.DeliveryCount() != tc.deliveriesWant {
				t.Errorf("joined %d, left %d proxy and %d server lines, %d deliveries; want %d, %d, %d, %d",
					joined, s.Idless[model.TierProxy], s.Idless[model.TierServer], s.DeliveryCount(), tc.joined, tc.proxy, tc.server, tc.deliveriesWant)
			}
		})
	}
}
