package trace

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idem-cli/idem/model"
)

var buildT0 = time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC)

// proxyLine is a proxy's observation of one POST to /v1/orders.
func proxyLine(rid, key, client string, at time.Time, status int, outcome model.Outcome) *model.Observation {
	return &model.Observation{Tier: model.TierProxy, Format: "nginx", RequestID: rid, Key: key, Client: client, Method: "POST",
		Route: "/v1/orders", Status: status, Outcome: outcome, Time: at, Source: model.Source{File: "nginx.jsonl", Line: 1}}
}

// builtKeys correlates obs with b and returns the keys of the built
// intents, sorted.
func builtKeys(b Build, obs ...*model.Observation) []string {
	c := NewCorrelator(nil)
	c.Build = b
	for _, o := range obs {
		c.Add(o)
	}
	var keys []string
	for _, in := range c.Set(nil).Built {
		keys = append(keys, in.Key)
	}
	slices.Sort(keys)
	return keys
}

func TestBuildFollowUps(t *testing.T) {
	const client = "198.51.100.23" // stored packed: compared as the string it is
	loss := proxyLine("r-lost", "k-lost", client, buildT0, 499, model.OutcomeClientClosed)
	tests := []struct {
		name     string
		followUp time.Duration
		next     *model.Observation
		extra    []*model.Observation
		built    bool
	}{
		{"twenty minutes later, window 30m", 30 * time.Minute,
			proxyLine("r-next", "k-next", client, buildT0.Add(20*time.Minute), 201, model.OutcomeOK), nil, true},
		{"twenty minutes later, window 5m", 5 * time.Minute,
			proxyLine("r-next", "k-next", client, buildT0.Add(20*time.Minute), 201, model.OutcomeOK), nil, false},
		{"at the edge of the window", 20 * time.Minute,
			proxyLine("r-next", "k-next", client, buildT0.Add(20*time.Minute), 201, model.OutcomeOK), nil, true},
		{"no window", 0,
			proxyLine("r-next", "k-next", client, buildT0.Add(time.Second), 201, model.OutcomeOK), nil, false},
		{"before the loss", 30 * time.Minute,
			proxyLine("r-next", "k-next", client, buildT0.Add(-time.Second), 201, model.OutcomeOK), nil, false},
		{"another client", 30 * time.Minute,
			proxyLine("r-next", "k-next", "198.51.100.24", buildT0.Add(time.Second), 201, model.OutcomeOK), nil, false},
		{"another route", 30 * time.Minute,
			func() *model.Observation {
				o := proxyLine("r-next", "k-next", client, buildT0.Add(time.Second), 201, model.OutcomeOK)
				o.Route = "/v1/refunds"
				return o
			}(), nil, false},
		// The server's clock runs a minute behind: the start is the
		// outermost tier's, as Delivery.Start says.
		{"server clock behind", 5 * time.Minute,
			proxyLine("r-next", "k-next", client, buildT0.Add(time.Second), 201, model.OutcomeOK),
			[]*model.Observation{{Tier: model.TierServer, RequestID: "r-next", Time: buildT0.Add(-time.Minute), Status: 201}}, true},
		// The proxy line has no time: the start is the server's.
		{"server time only", 5 * time.Minute,
			func() *model.Observation {
				o := proxyLine("r-next", "k-next", client, time.Time{}, 201, model.OutcomeOK)
				return o
			}(),
			[]*model.Observation{{Tier: model.TierServer, RequestID: "r-next", Time: buildT0.Add(time.Minute), Status: 201}}, true},
		// The client comes from the outermost tier that logged one.
		{"client from the proxy, not the server", 5 * time.Minute,
			proxyLine("r-next", "k-next", client, buildT0.Add(time.Second), 201, model.OutcomeOK),
			[]*model.Observation{{Tier: model.TierServer, RequestID: "r-next", Client: "10.0.0.9", Status: 201}}, true},
		// A line kept whole (its line number is past int32) is read
		// whole.
		{"kept whole", 5 * time.Minute,
			func() *model.Observation {
				o := proxyLine("r-next", "k-next", client, buildT0.Add(time.Second), 201, model.OutcomeOK)
				o.Source.Line = 3_000_000_000
				return o
			}(), nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obs := append([]*model.Observation{loss, tt.next}, tt.extra...)
			got := builtKeys(Build{FollowUp: tt.followUp}, obs...)
			want := []string{"k-lost"}
			if tt.built {
				want = []string{"k-lost", "k-next"}
			}
			if !slices.Equal(got, want) {
				t.Errorf("built %v, want %v", got, want)
			}
			// Building everything builds it too, whatever the window.
			if got := builtKeys(Build{All: true, FollowUp: tt.followUp}, obs...); len(got) != 2 {
				t.Errorf("All built %v", got)
			}
		})
	}
}

func TestBuildFollowUpOfALossByTheServer(t *testing.T) {
	// Delivery.Lost counts a server that lost its own response.
	loss := &model.Observation{Tier: model.TierServer, RequestID: "r-lost", Key: "k-lost", Client: "203.0.113.5", Method: "POST",
		Route: "/v1/orders", Outcome: model.OutcomeReset, Time: buildT0}
	next := &model.Observation{Tier: model.TierServer, RequestID: "r-next", Key: "k-next", Client: "203.0.113.5", Method: "POST",
		Route: "/v1/orders", Status: 201, Time: buildT0.Add(time.Second)}
	if got := builtKeys(defaultBuild(), loss, next); !slices.Equal(got, []string{"k-lost", "k-next"}) {
		t.Errorf("built %v", got)
	}
}

func TestBuildKey(t *testing.T) {
	const uuid = "3b7d1f0e-6a2c-4f9e-b1d3-5e7f9a0b1c2d" // stored packed
	obs := []*model.Observation{
		proxyLine("r1", "order-1:attempt-1", "", buildT0, 201, model.OutcomeOK),
		proxyLine("r2", uuid, "", buildT0, 201, model.OutcomeOK),
		proxyLine("r3", "plain", "", buildT0, 201, model.OutcomeOK),
	}
	var asked []string
	b := Build{Key: func(k string) bool { return strings.Contains(k, "attempt") || k == uuid }}
	if got := builtKeys(b, obs...); !slices.Equal(got, []string{uuid, "order-1:attempt-1"}) {
		t.Errorf("built %v", got)
	}
	// Scoped intents are compact intents, not bare deliveries.
	c := NewCorrelator([]string{"route"})
	c.Build = Build{Key: func(k string) bool { asked = append(asked, strings.Clone(k)); return k == "plain" }}
	for _, o := range obs {
		c.Add(o)
	}
	set := c.Set(nil)
	if len(set.Built) != 1 || set.Built[0].Key != "plain" || set.Built[0].Scope != "route=/v1/orders" {
		t.Errorf("scoped: built %+v", set.Built)
	}
	slices.Sort(asked)
	if !slices.Equal(asked, []string{uuid, "order-1:attempt-1", "plain"}) {
		t.Errorf("asked about %v", asked)
	}
}

func TestBuildAll(t *testing.T) {
	obs := []*model.Observation{
		proxyLine("r1", "k1", "203.0.113.5", buildT0, 201, model.OutcomeOK),
		proxyLine("r2", "", "203.0.113.5", buildT0, 200, model.OutcomeOK),
		proxyLine("r3", "k3", "203.0.113.5", buildT0, 499, model.OutcomeClientClosed),
	}
	for _, tt := range []struct {
		b                Build
		intents, unkeyed int
	}{{Build{All: true}, 2, 1}, {Build{}, 1, 0}} {
		c := NewCorrelator(nil)
		c.Build = tt.b
		for _, o := range obs {
			c.Add(o)
		}
		set := c.Set(nil)
		if len(set.Built) != tt.intents || len(set.Unkeyed) != tt.unkeyed || set.IntentCount() != 2 || set.UnkeyedCount() != 1 {
			t.Errorf("%+v: built %d intents and %d unkeyed of %d and %d", tt.b, len(set.Built), len(set.Unkeyed), set.IntentCount(), set.UnkeyedCount())
		}
		// What was not built is found on demand, once.
		if got := set.FindIntent("k1"); len(got) != 1 || got[0].Key != "k1" {
			t.Errorf("%+v: FindIntent found %d", tt.b, len(got))
		}
	}
}

func TestNewCorrelatorBuildsTheDefault(t *testing.T) {
	if b := NewCorrelator(nil).Build; b.All || b.FollowUp != defaultFollowUp || b.Key != nil {
		t.Errorf("NewCorrelator builds %+v", b)
	}
}

func TestBuildKeyBytes(t *testing.T) {
	const (
		uuid = "3b7d1f0e-6a2c-4f9e-b1d3-5e7f9a0b1c2d" // stored packed
		hex  = "3b7d1f0e6a2c4f9eb1d35e7f9a0b1c2d"     // stored packed
	)
	obs := []*model.Observation{
		proxyLine("r1", "order-1:attempt-1", "", buildT0, 201, model.OutcomeOK),
		proxyLine("r2", uuid, "", buildT0, 201, model.OutcomeOK),
		proxyLine("r3", hex, "", buildT0, 201, model.OutcomeOK),
		proxyLine("r4", "10.0.0.1", "", buildT0, 201, model.OutcomeOK), // packed as an address
	}
	tests := []struct {
		name     string
		keyBytes string
		asked    []string
	}{
		{"no promise", "", []string{"10.0.0.1", uuid, hex, "order-1:attempt-1"}},
		{"no hex digit or dash needed", "tT", []string{"10.0.0.1", "order-1:attempt-1"}},
		{"a hex digit needed", "t3", []string{"10.0.0.1", uuid, hex, "order-1:attempt-1"}},
		{"a dash needed", "-", []string{"10.0.0.1", uuid, hex, "order-1:attempt-1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var asked []string
			c := NewCorrelator(nil)
			c.Build = Build{KeyBytes: tt.keyBytes, Key: func(k string) bool {
				mu.Lock()
				defer mu.Unlock()
				asked = append(asked, strings.Clone(k))
				return false
			}}
			for _, o := range obs {
				c.Add(o)
			}
			c.Set(nil)
			slices.Sort(asked)
			if !slices.Equal(asked, tt.asked) {
				t.Errorf("asked about %v, want %v", asked, tt.asked)
			}
		})
	}
}

// TestBuildFollowUpClients: the follow-up of a loss is found whatever
// form its client is stored in, and a client that only looks alike (the
// same first bytes, the same length) is not taken for it.
func TestBuildFollowUpClients(t *testing.T) {
	tests := []struct {
		name      string
		lost, got string
		built     bool
	}{
		{"address, same", "198.51.100.23", "198.51.100.23", true},
		{"address, another", "198.51.100.23", "198.51.100.32", false},
		{"IPv6, same", "2001:db8::1", "2001:db8::1", true},
		{"IPv6, last byte differs", "2001:db8::1", "2001:db8::2", false},
		{"name past eight bytes, same", "checkout-service-7", "checkout-service-7", true},
		{"name past eight bytes, another", "checkout-service-7", "checkout-service-8", false},
		{"short name", "ios", "ios", true},
		{"uuid, same", "3b7d1f0e-6a2c-4f9e-b1d3-5e7f9a0b1c2d", "3b7d1f0e-6a2c-4f9e-b1d3-5e7f9a0b1c2d", true},
		{"uuid, another", "3b7d1f0e-6a2c-4f9e-b1d3-5e7f9a0b1c2d", "3b7d1f0e-6a2c-4f9e-b1d3-5e7f9a0b1c2e", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loss := proxyLine("r-lost", "k-lost", tt.lost, buildT0, 499, model.OutcomeClientClosed)
			next := proxyLine("r-next", "k-next", tt.got, buildT0.Add(time.Second), 201, model.OutcomeOK)
			want := []string{"k-lost"}
			if tt.built {
				want = append(want, "k-next")
			}
			if got := builtKeys(Build{FollowUp: time.Minute}, loss, next); !slices.Equal(got, want) {
				t.Errorf("built %v, want %v", got, want)
			}
		})
	}
}
