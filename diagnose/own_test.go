package diagnose_test

import (
	"testing"
	"time"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/trace"
)

// TestOwnTrafficIsNotAnIncident runs the README walkthrough's shape: an
// order, then idem replay's replay (request id idem-replay-…) and probes
// (keys derived from the captured one, one with another payload). The
// rules must see only the order; the summary counts the rest apart.
func TestOwnTrafficIsNotAnIncident(t *testing.T) {
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	c := trace.NewCorrelator(nil)
	add := func(rid, key string, sec float64, fp, result string) {
		c.Add(&model.Observation{Tier: model.TierServer, Format: "canonical", RequestID: rid, Key: key, Method: "POST", Route: "/v1/orders",
			Status: 201, Outcome: model.OutcomeOK, Fingerprint: fp, Time: at.Add(time.Duration(sec * float64(time.Second))), Source: model.Source{File: "gw.jsonl", Line: int(sec) + 1}})
		if result != "" {
			c.Add(&model.Observation{Tier: model.TierServer, Format: "canonical", RequestID: rid, Key: key, Effect: true, ResultID: result,
				Time: at.Add(time.Duration(sec*float64(time.Second)) + time.Millisecond), Source: model.Source{File: "gw.jsonl", Line: int(sec) + 100}})
		}
	}
	add("r-1", "k-1", 0, "sha256:aaaa", "dr_1")
	add("idem-replay-0a1b2c3d", "k-1", 30, "sha256:aaaa", "")                              // the replay: stored answer
	add("idem-replay-1b2c3d4e", "k-1", 31, "sha256:bbbb", "")                              // the mismatch probe
	add("idem-replay-2c3d4e5f", "k-1-idem-concurrent-5f6a7b8c", 32, "sha256:aaaa", "dr_2") // the concurrent probe's key
	add("idem-replay-3d4e5f60", "k-1-idem-lost-6a7b8c9d", 33, "sha256:aaaa", "dr_3")       // the lost-response probe
	res := diagnose.Run(c.Set(nil), diagnose.DefaultOptions())
	for _, f := range res.Findings {
		t.Errorf("idem's own traffic made a finding: %s %s", f.Rule.ID, f.Narrative)
	}
	if res.Summary.OwnTraffic != 4 {
		t.Errorf("own traffic counted %d deliveries, want 4", res.Summary.OwnTraffic)
	}
	// The same deliveries with ordinary ids are an incident.
	c = trace.NewCorrelator(nil)
	add("r-1", "k-1", 0, "sha256:aaaa", "dr_1")
	add("r-2", "k-2", 32, "sha256:aaaa", "dr_2")
	if res := diagnose.Run(c.Set(nil), diagnose.DefaultOptions()); len(res.Findings) == 0 || res.Summary.OwnTraffic != 0 {
		t.Errorf("a second order under a new key was not diagnosed: %d findings, own %d", len(res.Findings), res.Summary.OwnTraffic)
	}
}
