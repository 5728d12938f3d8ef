package diagnose

import (
	"fmt"

	"github.com/idem-cli/idem/model"
)

var externalDuplicate = &Rule{
	ID:         "external-duplicate",
	Title:      "No duplicate in the database, a duplicate outside",
	Severity:   Critical,
	Symptom:    "The provider shows two external effects for one intent while the server recorded one.",
	Hypothesis: "The external call happened before the terminal record: a crash or timeout between the call and 'completed' made a retry call again.",
	Check:      "Find the external business id and the provider's results for the intent's key.",
	Action:     "Stop retries until there is a status route or an external idempotency key; pass a stable external id to the provider.",
	Evidence:   "Two or more provider-tier calls or effects for one intent while the server and worker tiers recorded at most one effect.",
	Proof:      "Two provider calls or effects for one intent against at most one effect at the server and worker tiers.",
	Inference:  "Never: both counts are logged.",
	Example:    "external-duplicate",
	Needs:      []model.Tier{model.TierProvider},
	reads:      []requirement{needKeys},
	run:        runExternalDuplicate,
}

func runExternalDuplicate(c *context) []*Finding {
	var out []*Finding
	for _, in := range c.set.Built {
		var calls, effects []*model.Observation
		for _, d := range in.Deliveries {
			calls = append(calls, providerCalls(d)...)
			effects = append(effects, c.effects(d)...)
		}
		if len(calls) < 2 || len(effects) > 1 {
			continue
		}
		var ev evidence
		ev.add(calls...)
		ev.add(effects...)
		for _, d := range in.Deliveries {
			ev.add(d.Edge())
		}
		out = append(out, &Finding{Severity: Critical, Intents: []*model.Intent{in}, Evidence: ev.sorted(),
			Narrative: fmt.Sprintf("Key %s reached the provider %s (%s, first at %s) while the server recorded %s.",
				in.Key, plural(len(calls), "time", "times"), resultList(uniqueResults(calls)), hhmmss(calls[0].Time),
				plural(effectCount(effects), "effect", "effects"))})
	}
	return out
}
