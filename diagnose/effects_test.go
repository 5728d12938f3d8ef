package diagnose_test

import (
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/trace"
)

// TestEffectsAreOneTruth: no input logs an effect line, the server's 201s
// name ord_1001 and ord_1002. The intent's effects (what idem trace
// shows) and the finding's narrative name the same two, and a worker's
// report of ord_1001 does not make a third.
func TestEffectsAreOneTruth(t *testing.T) {
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	c := trace.NewCorrelator(nil)
	add := func(tier model.Tier, rid string, sec float64, status int, result string) {
		c.Add(&model.Observation{Tier: tier, RequestID: rid, Key: "k-1", Method: "POST", Route: "/v1/orders", Status: status, ResultID: result,
			Outcome: model.OutcomeOK, Time: at.Add(time.Duration(sec * float64(time.Second))), Source: model.Source{File: tier.String(), Line: int(sec) + 1}})
	}
	add(model.TierServer, "r-1", 0, 201, "ord_1001")
	add(model.TierServer, "r-2", 0.2, 201, "ord_1002") // while r-1 ran: a non-atomic reservation
	add(model.TierWorker, "r-1", 0.5, 0, "ord_1001")
	set := c.Set(nil)
	in := set.FindIntent("k-1")[0]
	var ids []string
	for _, o := range diagnose.Effects(set, in) {
		ids = append(ids, o.ResultID)
	}
	if strings.Join(ids, ",") != "ord_1001,ord_1002" {
		t.Errorf("effects %v, want ord_1001 and ord_1002", ids)
	}
	for _, f := range diagnose.Run(set, diagnose.DefaultOptions()).Findings {
		if strings.Contains(f.Narrative, "no result id logged") || strings.Contains(f.Narrative, "3 effects") {
			t.Errorf("%s: %s", f.Rule.ID, f.Narrative)
		}
	}
}

// TestASuccessThatNamesItsResultIsEvidence: one service logs "order
// created" lines, another only its "201 ord_2001" answers. The second's
// success to a write, naming its result, is its effect's evidence; a
// replayed answer is not.
func TestASuccessThatNamesItsResultIsEvidence(t *testing.T) {
	at := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	c := trace.NewCorrelator(nil)
	c.Add(&model.Observation{Tier: model.TierServer, RequestID: "a-1", Key: "k-a", Effect: true, ResultID: "ord_1", Time: at, Source: model.Source{File: "orders.jsonl", Line: 1}})
	c.Add(&model.Observation{Tier: model.TierServer, RequestID: "b-1", Key: "k-b", Method: "POST", Route: "/v1/refunds", Status: 201, ResultID: "ref_2001",
		Outcome: model.OutcomeOK, Time: at, Source: model.Source{File: "refunds.jsonl", Line: 1}})
	c.Add(&model.Observation{Tier: model.TierServer, RequestID: "b-2", Key: "k-b", Method: "POST", Route: "/v1/refunds", Status: 201, ResultID: "ref_2001",
		Decision: "replay", Outcome: model.OutcomeOK, Time: at.Add(time.Second), Source: model.Source{File: "refunds.jsonl", Line: 2}})
	c.Add(&model.Observation{Tier: model.TierServer, RequestID: "a-2", Key: "k-c", Method: "POST", Route: "/v1/orders", Status: 201, ResultID: "ord_2",
		Outcome: model.OutcomeOK, Time: at, Source: model.Source{File: "orders.jsonl", Line: 2}})
	set := c.Set(nil)
	if e := diagnose.Effects(set, set.FindIntent("k-b")[0]); len(e) != 1 || e[0].Source.Line != 1 {
		t.Errorf("refunds' effects %v, want its first 201 only", e)
	}
	// orders.jsonl logs its effects: its 201 is an answer, not an effect.
	if e := diagnose.Effects(set, set.FindIntent("k-c")[0]); len(e) != 0 {
		t.Errorf("orders' answer taken for an effect: %v", e)
	}
}
