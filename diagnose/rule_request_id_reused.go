package diagnose

import (
	"fmt"
	"strings"

	"github.com/idem-cli/idem/model"
)

var requestIDReused = &Rule{
	ID:         "request-id-reused",
	Title:      "One request id on several deliveries",
	Severity:   Warning,
	Symptom:    "One request id appears with different keys, or at times too far apart to be one trip.",
	Hypothesis: "The client reuses its request id across retries or actions, so deliveries cannot be told apart.",
	Check:      "Find where the request id is made; it must be new for every delivery (and the key kept).",
	Action:     "Generate a new request id per delivery and keep the Idempotency-Key for the intent.",
	Evidence:   "One request id seen with two keys by one process (one input, and in an export the same labels), or at one tier at times more than five minutes apart. An id that two processes of one tier logged for different trips (two replicas' or pods' own counters) is two deliveries, not a reuse: only the same process, or an outer tier's line, shows the id given twice.",
	Proof:      "One request id under two keys in one process, or at one tier far apart.",
	Inference:  "Never: the ids are logged.",
	Example:    "request-id-reused",
	reads:      []requirement{needRequestIDs},
	run:        runRequestIDReused,
}

func runRequestIDReused(c *context) []*Finding {
	var out []*Finding
	for d := range allDeliveries(c.set) {
		if d.Synthetic || strings.HasPrefix(d.RequestID, "activity:") {
			continue
		}
		var why string
		var ev evidence
		if len(d.Keys) > 1 {
			why = fmt.Sprintf("it carried %d keys (%s)", len(d.Keys), strings.Join(d.Keys, ", "))
			for _, o := range d.Observations {
				if o.Key != "" {
					ev.add(o)
				}
			}
		} else {
			// A proxy's own retry reaches the server twice under one id
			// while the proxy waits: proxy-retry's, however long it waited.
			retry, _ := proxyRetried(c, d)
			first := map[model.Tier]*model.Observation{}
			for _, o := range d.Observations {
				if o.Time.IsZero() || o.Tier == model.TierServer && whileWaiting(retry, o) {
					continue
				}
				f := first[o.Tier]
				if f == nil {
					first[o.Tier] = o
					continue
				}
				if gap := o.Time.Sub(f.Time); gap > c.opts.ReuseGap {
					why = fmt.Sprintf("the %s saw it at %s and again %s later", o.Tier, hhmmss(f.Time), gap.Round(1e6))
					ev.add(f, o)
					break
				}
			}
		}
		if why == "" {
			continue
		}
		out = append(out, &Finding{Severity: Warning, Intents: intentsOf(c.set, d), Keys: d.Keys, Evidence: ev.sorted(),
			Narrative: fmt.Sprintf("Request id %s was used for more than one delivery: %s.", d.RequestID, why)})
	}
	return out
}
