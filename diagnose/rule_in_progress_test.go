package diagnose_test

import (
	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/trace"
)

// heldKey is a delivery that took the reservation, a retry a second later
// answered by answer, and what followed.
func heldKey(answer ob, then ...ob) []ob {
	return append([]ob{
		proxy("r1").key("k-1").post().at(0).took(30).status(504).outcome(trace.OutcomeUpstreamTimeout),
		server("r1").key("k-1").post().at(0.1).decision("new").state("in_progress"),
		answer,
	}, then...)
}

var inProgressCases = ruleCases{
	rule: "in-progress-retry",
	fire: []ruleCase{
		{name: "the retry saw in_progress, then the first delivery completed",
			obs:  heldKey(server("r2").key("k-1").post().at(1).status(409).decision("in_progress"), server("r1").key("k-1").at(20).effect("ord_1")),
			want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, says: "reached a terminal result"}}},
		{name: "the retry got 409 with Retry-After and nothing completed",
			obs:  heldKey(server("r2").key("k-1").post().at(1).status(409).retryAfter()),
			want: []want{{severity: diagnose.Critical, keys: []string{"k-1"}, says: "looks stuck"}}},
		{name: "the retry got 409 with state in_progress and nothing completed",
			obs:  heldKey(server("r2").key("k-1").post().at(1).status(409).state("in_progress")),
			want: []want{{severity: diagnose.Critical, keys: []string{"k-1"}, says: `"409 in progress"`}}},
	},
	quiet: []ruleCase{
		{name: "a 409 that is a payload conflict",
			obs: heldKey(server("r2").key("k-1").post().at(1).status(409).decision("conflict"))},
		{name: "a 429 with Retry-After is a rate limit",
			obs: heldKey(server("r2").key("k-1").post().at(1).status(429).retryAfter())},
		{name: "the retry was answered from the key record",
			obs: heldKey(server("r2").key("k-1").post().at(1).status(201).decision("replay").result("ord_1"))},
	},
}
