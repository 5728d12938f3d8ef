package diagnose

import (
	"fmt"

	"github.com/idem-cli/idem/trace"
)

var inProgressRetry = &Rule{
	ID:         "in-progress-retry",
	Title:      "A retry saw in_progress",
	Severity:   Warning,
	Symptom:    "A retry was answered \"still in progress\" (409, Retry-After, an in_progress decision).",
	Hypothesis: "The first attempt is still running, or died holding the reservation.",
	Check:      "Check the reservation's owner, heartbeat and deadline; look for a terminal result for the key after the answer.",
	Action:     "Follow the state contract: wait and retry with the same key; recover a stuck reservation by reconciliation, never by deleting it blindly.",
	Evidence:   "A delivery answered \"in progress\": a decision such as `in_progress`, or 409 with `Retry-After` or an in-progress state. Critical (stuck) when no effect, `completed` state or server 2xx for the key follows.",
	Example:    "in-progress-stuck",
	Needs:      []trace.Tier{trace.TierServer},
	run:        runInProgress,
}

func runInProgress(c *context) []*Finding {
	var out []*Finding
	for _, in := range c.set.Intents {
		var answered *trace.Delivery
		var answer *trace.Observation
		for _, d := range in.Deliveries {
			if o := inProgress(d); o != nil {
				answered, answer = d, o
				break
			}
		}
		if answered == nil {
			continue
		}
		var terminal *trace.Observation
		for _, d := range in.Deliveries {
			if inProgress(d) != nil {
				continue
			}
			for _, o := range d.Observations {
				if o.Effect || o.State == "completed" || o.Tier == trace.TierServer && o.Status >= 200 && o.Status < 300 {
					terminal = o
					break
				}
			}
			if terminal != nil {
				break
			}
		}
		var ev evidence
		ev.add(in.Deliveries[0].Edge())
		ev.delivery(answered)
		f := &Finding{Intents: []*trace.Intent{in}}
		n := fmt.Sprintf("Delivery %s of key %s was answered %q at %s while an earlier delivery held the reservation",
			answered.RequestID, in.Key, inProgressLabel(answer), hhmmss(answer.Time))
		if terminal == nil {
			f.Severity = Critical
			n += "; no terminal result for the key follows in the logs, so the reservation looks stuck (variant: stuck)."
		} else {
			f.Severity = Warning
			ev.add(terminal)
			n += fmt.Sprintf("; the key reached a terminal result at %s (%s).", hhmmss(terminal.Time), terminal.Source)
		}
		f.Narrative = n
		f.Evidence = ev.sorted()
		out = append(out, f)
	}
	return out
}

func inProgressLabel(o *trace.Observation) string {
	if o.Decision != "" {
		return o.Decision
	}
	if o.Status > 0 {
		return fmt.Sprintf("%d in progress", o.Status)
	}
	return "in progress"
}
