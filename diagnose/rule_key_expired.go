package diagnose

import (
	"fmt"
	"slices"
	"time"

	"github.com/idem-cli/idem/model"
)

var keyExpired = &Rule{
	ID:         "key-expired",
	Title:      "A completed key was treated as new",
	Severity:   Critical,
	Symptom:    "A retry of a completed intent ran again instead of getting the stored result.",
	Hypothesis: "The key record was forgotten (its TTL is shorter than the retry budget) or was never stored or checked.",
	Check:      "Compare the key's retention with the time between the completion and the retry; look for a 'new' decision after 'completed'.",
	Action:     "Keep keys for at least the whole retry budget plus late resubmission; answer a late retry with the stored result or an explicit 'expired' error.",
	Evidence:   "A delivery of a key that had completed made another effect afterwards, begun after the first's end as one tier's clock measured both (a pair the logs cannot order is concurrency's candidate, never an expiry), or was decided `new` after completion. A warning (\"likely\") when the later effect is only a 2xx, from a server whose log carries no dedup decision and no result id: a replay would read the same.",
	Proof:      "A key that completed, then a later delivery of it, begun after the first's end at one tier's clock, made a result id first seen; a replay in between shows the key was stored.",
	Inference:  "When the later effect is only a 2xx from a server that logs no dedup decision and no result id, or only a 'new' decision with no second effect; it lacks a result id or a second effect.",
	Example:    "key-expired",
	Needs:      []model.Tier{model.TierServer},
	reads:      []requirement{needKeys, needEffects},
	run:        runKeyExpired,
}

// gapSpan names a gap as a length: "3.229s", "about 3s", or "a second or
// two" where the logs cannot measure it (times to the second, or a gap
// that reads negative).
func gapSpan(gap time.Duration, coarse bool) string {
	switch {
	case coarse && gap.Abs() < 2*time.Second, gap < 0:
		return "a second or two"
	case coarse:
		return "about " + gap.Round(time.Second).String()
	}
	return gap.Round(time.Millisecond).String()
}

func runKeyExpired(c *context) []*Finding {
	var out []*Finding
	for _, in := range c.set.Built {
		var f *Finding
		for _, p := range secondEffects(c, in) {
			if p.concurrent {
				continue
			}
			var ev evidence
			ev.delivery(p.first)
			ev.delivery(p.second)
			gap := serverStart(p.second).Sub(completedAt(c, p.first))
			coarse := c.coarse(serverLines(p.first, p.second)...)
			n := fmt.Sprintf("Key %s completed at %s (%s), and delivery %s %s was run again and made %s",
				in.Key, hhmmss(completedAt(c, p.first)), resultList(uniqueResults(c.effects(p.first))), p.second.RequestID,
				gapText(gap, coarse), resultList(uniqueResults(c.effects(p.second))))
			// What the key store did is read from the server's own
			// answers, never from a retention idem would have to assume.
			switch kept := storedBetween(c, in, p.first, p.second); {
			case kept != nil:
				// A replay in between shows the key was stored and
				// checked: it was forgotten after that, however soon.
				ev.delivery(kept)
				at := serverStart(kept)
				n += fmt.Sprintf("; delivery %s at %s got the stored result, so the key was stored and checked, and was forgotten at most %s after that (its retention is shorter)",
					kept.RequestID, hhmmss(at), gapSpan(serverStart(p.second).Sub(at), coarse))
			default:
				n += fmt.Sprintf("; no delivery in between got the stored result, so the logs cannot tell a key kept for less than %s from one never stored or never checked",
					gapSpan(gap, coarse))
			}
			sev, n := p.verdict(n)
			f = &Finding{Severity: sev, Intents: []*model.Intent{in}, Evidence: ev.sorted(), Narrative: n + ".", Confidence: p.confidence()}
			break
		}
		if f == nil {
			f = newAfterCompleted(c, in)
		}
		if f != nil {
			out = append(out, f)
		}
	}
	return out
}

// storedBetween finds the last delivery of the key, after first completed
// and before second began, that was given the stored result: a replay
// marker or decision, first's result id, or (where effects are logged) a
// server 2xx, without an effect of its own.
func storedBetween(c *context, in *model.Intent, first, second *model.Delivery) *model.Delivery {
	done, rerun := completedAt(c, first), serverStart(second)
	results := uniqueResults(c.effects(first))
	var kept *model.Delivery
	for _, d := range in.Deliveries {
		if d == first || d == second || len(c.effects(d)) > 0 {
			continue
		}
		// A log that writes seconds may date a replay a moment before the
		// completion it replays (Fiber's ${time}, refreshed twice a
		// second): within its resolution, it is between.
		slack := time.Duration(0)
		if c.coarse(serverLines(d, first)...) {
			slack = time.Second
		}
		if at := serverStart(d); at.Before(done.Add(-slack)) || !at.Before(rerun) {
			continue
		}
		// A server that marks no replay and names no result (Fiber's
		// middleware): where effects are logged, a 2xx without one is the
		// stored result, as response-lost reads it.
		if replayed(d) || slices.ContainsFunc(d.Observations, func(o *model.Observation) bool {
			return o.ResultID != "" && slices.Contains(results, o.ResultID)
		}) || c.effectsLogged() && serverSuccess(d) != nil {
			kept = d
		}
	}
	return kept
}

// newAfterCompleted finds a "new" decision logged for a key that had
// already completed, where no second effect was logged.
func newAfterCompleted(c *context, in *model.Intent) *Finding {
	var done *model.Delivery
	for _, d := range in.Deliveries {
		dec, o := d.Decision()
		if done != nil && dec == "new" && len(c.effects(d)) == 0 && !overlapped(c, done, d) {
			var ev evidence
			ev.delivery(done)
			ev.add(o)
			return &Finding{Severity: Warning, Intents: []*model.Intent{in}, Evidence: ev.sorted(),
				Confidence: inferred([]string{"a 'new' decision after the key completed"}, "a second effect"),
				Narrative: fmt.Sprintf("Key %s completed at %s, yet delivery %s at %s was decided 'new' instead of replaying the stored result.",
					in.Key, hhmmss(completedAt(c, done)), d.RequestID, hhmmss(o.Time))}
		}
		if len(c.effects(d)) > 0 || d.At(model.TierServer) != nil && serverSuccess(d) != nil && !replayed(d) {
			if done == nil {
				done = d
			}
		}
	}
	return nil
}
