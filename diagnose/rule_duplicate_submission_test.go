package diagnose_test

import (
	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/model"
)

// twoCleanOrders are two orders of one payload from one client under two
// keys, both answered 201 at the proxy: the second's start and the first's
// answer vary.
func twoCleanOrders(secondAt float64, firstStatus int, firstOutcome model.Outcome) []ob {
	return []ob{
		proxy("r1").key("k-1").post().from("10.0.0.7").at(0).took(0.2).status(firstStatus).outcome(firstOutcome),
		server("r1").key("k-1").post().at(0.01).status(201).fp("sha256:aaaa"),
		server("r1").key("k-1").at(0.1).effect("ord_1"),
		proxy("r2").key("k-2").post().from("10.0.0.7").at(secondAt).took(0.2).status(201),
		server("r2").key("k-2").post().at(secondAt + 0.01).status(201).fp("sha256:aaaa"),
		server("r2").key("k-2").at(secondAt + 0.1).effect("ord_2"),
	}
}

var duplicateSubmissionCases = ruleCases{
	rule: "duplicate-submission",
	fire: []ruleCase{
		{name: "two clean orders 40 s apart under two keys", obs: twoCleanOrders(40, 201, model.OutcomeOK),
			want: []want{{severity: diagnose.Warning, keys: []string{"k-1", "k-2"}, says: "no failure explains the second"}}},
		{name: "three clean orders a few minutes apart", obs: append(twoCleanOrders(120, 201, model.OutcomeOK),
			proxy("r3").key("k-3").post().from("10.0.0.7").at(300).took(0.2).status(201),
			server("r3").key("k-3").post().at(300.01).status(201).fp("sha256:aaaa"),
			server("r3").key("k-3").at(300.1).effect("ord_3"),
		), want: []want{{severity: diagnose.Warning, keys: []string{"k-1", "k-2", "k-3"}, says: "under 3 different keys"}}},
	},
	quiet: []ruleCase{
		// One field away: the first answer was lost (retry-new-key's case).
		{name: "the first order timed out at the proxy", obs: twoCleanOrders(40, 0, model.OutcomeClientClosed)},
		{name: "the first order got a 502", obs: twoCleanOrders(40, 502, model.OutcomeUpstreamReset)},
		{name: "the second order came after the retry window", obs: twoCleanOrders(601, 201, model.OutcomeOK)},
		{name: "only the server logged: whether the answer arrived is unknown", obs: []ob{
			server("r1").key("k-1").post().at(0).status(201).fp("sha256:aaaa"),
			server("r2").key("k-2").post().at(40).status(201).fp("sha256:aaaa"),
		}},
	},
}
