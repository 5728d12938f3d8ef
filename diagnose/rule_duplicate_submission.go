package diagnose

import (
	"fmt"

	"github.com/idem-cli/idem/model"
)

var duplicateSubmission = &Rule{
	ID:         "duplicate-submission",
	Title:      "Possible duplicate submission",
	Severity:   Warning,
	Symptom:    "One client wrote the same payload twice under different keys, and each answer reached it as a success.",
	Hypothesis: "Either the user meant both (repeat purchases are normal), or the client submitted twice (a double click, a resubmitted form) and made a new key each time.",
	Check:      "Ask whether both were intended: look at what the user did before each; check that the client disables resubmission and makes the key when the form opens.",
	Action:     "If both were not intended, create the key once per user action, before the first submission, so a resubmission reuses it; nothing failed, so nothing needs retrying.",
	Evidence:   "What `retry-new-key` reads (intents under different keys with one payload, method, route and client within `--retry-window`, each with an effect), but every earlier delivery was seen to get its 2xx at the client or the proxy: no failure came before the second.",
	Proof:      "One payload's fingerprint under two keys, each with an effect, every earlier answer seen to arrive.",
	Inference:  "Never inferred: without a fingerprint, two similar orders are not reported (a likely duplicate without a failure before it is no incident).",
	Example:    "duplicate-submission",
	Needs:      []model.Tier{model.TierServer},
	reads:      []requirement{needKeys, needEffects, needPayloads},
	run:        runDuplicateSubmission,
}

func runDuplicateSubmission(c *context) []*Finding {
	var out []*Finding
	for _, cl := range newKeyClusters(c) {
		if cl.failed != nil {
			continue
		}
		var ev evidence
		var effects []*model.Observation
		for _, in := range cl.intents {
			for _, d := range in.Deliveries {
				e := c.effects(d)
				effects = append(effects, e...)
				ev.add(d.Edge())
				ev.add(e...)
			}
		}
		first, last := cl.intents[0], cl.intents[len(cl.intents)-1]
		d0 := first.Deliveries[0]
		n := fmt.Sprintf("%s %s with one payload (fingerprint %s) came %s apart under %s (%s) and made %s (%s); every answer reached the caller as a success, so no failure explains the second.",
			d0.Method(), d0.Route(), shortFP(d0.Fingerprint()), last.Start().Sub(first.Start()).Round(1e6),
			plural(len(cl.intents), "key", "different keys"), joinKeys(cl.intents), plural(len(uniqueResults(effects)), "effect", "effects"), resultList(uniqueResults(effects)))
		out = append(out, &Finding{Severity: Warning, Intents: cl.intents, Narrative: n, Evidence: ev.sorted()})
	}
	return out
}
