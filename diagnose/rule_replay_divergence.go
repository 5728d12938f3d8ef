package diagnose

import (
	"fmt"

	"github.com/idem-cli/idem/model"
)

var replayDivergence = &Rule{
	ID:         "replay-divergence",
	Title:      "A replay got another answer",
	Severity:   Warning,
	Symptom:    "A retry with the same key and payload got a different status or result id than the original.",
	Hypothesis: "The key record does not store what a replay needs (status, safe body, result id), or the replay path rebuilds the answer.",
	Check:      "Compare the original's and the replay's status and result id; read what the key record stores.",
	Action:     "Store the status, a safe body and the result id with the completed key, and return exactly those on replay.",
	Evidence:   "A later delivery with the same key and fingerprint, without an effect of its own, whose server status or result id differs from the original's.",
	Proof:      "A later delivery of the same key and fingerprint, without an effect, answered with another status or result id.",
	Inference:  "Never: both answers are logged.",
	Example:    "replay-divergence",
	Needs:      []model.Tier{model.TierServer},
	reads:      []requirement{needKeys, needServerAnswers},
	run:        runReplayDivergence,
}

func runReplayDivergence(c *context) []*Finding {
	var out []*Finding
	for _, in := range c.set.Built {
		var orig *model.Delivery
		var origStatus, at int
		for i, d := range in.Deliveries {
			if inProgress(d) != nil {
				continue
			}
			if s, _ := d.ServerStatus(); s > 0 && len(c.effects(d)) > 0 || s >= 200 && s < 300 {
				orig, origStatus, at = d, s, i
				break
			}
		}
		if orig == nil {
			continue
		}
		// Only what came after the original can replay it: deliveries are
		// in start order, and a failure just before it may share its
		// start (nginx's $msec has millisecond resolution).
		for _, d := range in.Deliveries[at+1:] {
			if d.Start().Before(orig.Start()) || inProgress(d) != nil || len(c.effects(d)) > 0 {
				continue
			}
			if fa, fb := orig.Fingerprint(), d.Fingerprint(); fa != "" && fb != "" && fa != fb {
				continue
			}
			status, o := d.ServerStatus()
			if status == 0 || conflict(d) != nil || status == 429 {
				// A refusal (conflict, in progress, rate limit) is not a
				// replay; other rules judge it.
				continue
			}
			r0, r1 := orig.ResultID(), d.ResultID()
			statusDiffers := status != origStatus
			resultDiffers := r0 != "" && r1 != "" && r0 != r1
			if !statusDiffers && !resultDiffers {
				continue
			}
			var ev evidence
			ev.delivery(orig)
			ev.delivery(d)
			ev.add(o)
			out = append(out, &Finding{Severity: Warning, Intents: []*model.Intent{in}, Evidence: ev.sorted(),
				Narrative: fmt.Sprintf("Key %s: the original delivery %s got %d (%s); the replay %s at %s got %d (%s).",
					in.Key, orig.RequestID, origStatus, resultList(nonEmpty(r0)), d.RequestID, hhmmss(d.Start()), status, resultList(nonEmpty(r1)))})
			break
		}
	}
	return out
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}
