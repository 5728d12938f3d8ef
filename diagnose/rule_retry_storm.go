package diagnose

import (
	"fmt"

	"github.com/idem-cli/idem/model"
)

var retryStorm = &Rule{
	ID:         "retry-storm",
	Title:      "Retries past the budget",
	Severity:   Warning,
	Symptom:    "One intent took more deliveries than its retry budget, or kept being retried past its deadline.",
	Hypothesis: "Each layer retries on its own fresh timer, turning a short outage into a stream of identical commands.",
	Check:      "Count the deliveries per tier and their spacing; find which layer retries and with what backoff.",
	Action:     "Give the intent one overall deadline and budget shared by every layer; back off with jitter; show 'outcome unknown' when it runs out.",
	Evidence:   "An intent with more deliveries than `--retry-budget`, or deliveries later than `--deadline` after the first.",
	Proof:      "More deliveries of one key than the budget, or later than the deadline.",
	Inference:  "Never: the deliveries are counted as logged.",
	Example:    "retry-storm",
	reads:      []requirement{needKeys},
	run:        runRetryStorm,
}

func runRetryStorm(c *context) []*Finding {
	var out []*Finding
	for _, in := range c.set.Built {
		n := in.Count()
		if n < 2 {
			continue
		}
		first, last := in.Deliveries[0], in.Deliveries[len(in.Deliveries)-1]
		span := last.Start().Sub(first.Start())
		over := n > c.opts.RetryBudget
		late := !first.Start().IsZero() && span > c.opts.Deadline
		if !over && !late {
			continue
		}
		var ev evidence
		ev.add(first.Edge(), last.Edge())
		var why string
		switch {
		case over && late:
			why = fmt.Sprintf("more than the budget of %d, and for %s, past the %s deadline", c.opts.RetryBudget, span.Round(1e6), c.opts.Deadline)
		case over:
			why = fmt.Sprintf("more than the budget of %d", c.opts.RetryBudget)
		default:
			why = fmt.Sprintf("for %s, past the %s deadline", span.Round(1e6), c.opts.Deadline)
		}
		out = append(out, &Finding{Severity: Warning, Intents: []*model.Intent{in}, Evidence: ev.sorted(),
			Narrative: fmt.Sprintf("Key %s was delivered %d times from %s to %s, %s.", in.Key, n, hhmmss(first.Start()), hhmmss(last.Start()), why)})
	}
	return out
}
