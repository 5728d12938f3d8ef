package diagnose

import (
	"fmt"

	"github.com/idem-cli/idem/model"
)

var payloadMismatch = &Rule{
	ID:         "payload-mismatch",
	Title:      "One key, another payload",
	Severity:   Critical,
	Symptom:    "The same key came with another body.",
	Hypothesis: "The key was reused for a new command (a bug in key generation, or a client editing the form and resending).",
	Check:      "Compare the canonical payloads and fingerprints of the deliveries under the key.",
	Action:     "Answer a conflict (409, or 422/400 by the contract) before the business effect; make a new key when the content changes.",
	Evidence:   "One key whose deliveries carry different fingerprints at one tier. Critical when the second payload made an effect or got a success (a replay for a different command); warning when the server answered 400/409/417/422 first.",
	Example:    "payload-mismatch",
	Needs:      []model.Tier{model.TierServer},
	reads:      []requirement{needKeys, needPayloads},
	run:        runPayloadMismatch,
}

func runPayloadMismatch(c *context) []*Finding {
	var out []*Finding
	for _, in := range c.set.Built {
		var original, other *model.Delivery
		var tier model.Tier
	search:
		for i, d := range in.Deliveries {
			for t, fp := range d.Fingerprints() {
				for _, later := range in.Deliveries[i+1:] {
					if lfp, ok := later.Fingerprints()[t]; ok && lfp != fp {
						original, other, tier = d, later, t
						break search
					}
				}
			}
		}
		if other == nil {
			continue
		}
		var ev evidence
		ev.delivery(original)
		ev.delivery(other)
		f := &Finding{Intents: []*model.Intent{in}, Evidence: ev.sorted()}
		n := fmt.Sprintf("Key %s first came at %s with fingerprint %s (delivery %s), then at %s with fingerprint %s (delivery %s, seen by the %s)",
			in.Key, hhmmss(original.Start()), shortFP(original.Fingerprints()[tier]), original.RequestID,
			hhmmss(other.Start()), shortFP(other.Fingerprints()[tier]), other.RequestID, tier)
		switch e := c.effects(other); {
		case len(e) > 0:
			f.Severity = Critical
			n += fmt.Sprintf("; the server ran the second payload too and made %s.", resultList(uniqueResults(e)))
		case conflict(other) != nil:
			f.Severity = Warning
			n += fmt.Sprintf("; the server answered %d before the effect, as the contract asks.", conflict(other).Status)
		case serverSuccess(other) != nil || edgeResponse(other) != nil && edgeResponse(other).Status < 300:
			f.Severity = Critical
			n += "; the server answered success for a different command (it replayed the first result without comparing payloads)."
		default:
			f.Severity = Warning
			n += "; no answer to the second payload was logged."
		}
		f.Narrative = n
		out = append(out, f)
	}
	return out
}
