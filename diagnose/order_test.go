package diagnose

import (
	"slices"
	"testing"
	"time"

	"github.com/idem-cli/idem/model"
)

// TestHappenedFirstWithinOneMillisecond: lines of one millisecond come in
// their file's line order, and across files client before proxy before
// server; time comes first.
func TestHappenedFirstWithinOneMillisecond(t *testing.T) {
	ms := time.Date(2026, 11, 30, 14, 2, 11, 300e6, time.UTC)
	at := func(name string, tier model.Tier, file string, line int, when time.Time) *model.Observation {
		o := &model.Observation{Tier: tier, Source: model.Source{File: file, Line: line}, RequestID: name}
		o.Time = when
		return o
	}
	server3 := at("server3", model.TierServer, "app.jsonl", 3, ms)
	server2 := at("server2", model.TierServer, "app.jsonl", 2, ms)
	proxy := at("proxy", model.TierProxy, "nginx.jsonl", 9, ms)
	client := at("client", model.TierClient, "client.har", 40, ms)
	later := at("later", model.TierClient, "client.har", 1, ms.Add(time.Millisecond))
	list := []*model.Observation{later, server3, proxy, server2, client}
	slices.SortStableFunc(list, HappenedFirst)
	var got []string
	for _, o := range list {
		got = append(got, o.RequestID)
	}
	if want := []string{"client", "proxy", "server2", "server3", "later"}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}
