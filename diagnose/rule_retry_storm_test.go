package diagnose_test

import (
	"time"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/model"
)

// deliveries is one key delivered at each of the given seconds, each
// given up on by the proxy.
func deliveries(at ...float64) []ob {
	var out []ob
	for i, s := range at {
		rid := "r" + string(rune('a'+i))
		out = append(out, proxy(rid).key("k-1").post().at(s).took(1).status(504).outcome(model.OutcomeUpstreamTimeout))
	}
	return out
}

var retryStormCases = ruleCases{
	rule: "retry-storm",
	fire: []ruleCase{
		{name: "six deliveries, over the budget of five", obs: deliveries(0, 1, 2, 3, 4, 5),
			want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, says: "delivered 6 times"}}},
		{name: "a retry past the deadline", obs: deliveries(0, 61),
			want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, says: "past the 1m0s deadline"}}},
		{name: "three deliveries over a budget of two", obs: deliveries(0, 1, 2),
			opts: func(o *diagnose.Options) { o.RetryBudget = 2 },
			want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, says: "more than the budget of 2"}}},
	},
	quiet: []ruleCase{
		{name: "five deliveries, the whole budget", obs: deliveries(0, 1, 2, 3, 4)},
		{name: "the last retry exactly at the deadline", obs: deliveries(0, 60)},
		{name: "a retry past the default deadline, within a longer one", obs: deliveries(0, 61),
			opts: func(o *diagnose.Options) { o.Deadline = 2 * time.Minute }},
	},
}
