package diagnose

import (
	"fmt"
	"slices"

	"github.com/idem-cli/idem/model"
)

var inProgressRetry = &Rule{
	ID:         "in-progress-retry",
	Title:      "A retry saw in_progress",
	Severity:   Warning,
	Symptom:    "A retry was answered \"still in progress\" (409, Retry-After, an in_progress decision).",
	Hypothesis: "The first attempt is still running, or died holding the reservation.",
	Check:      "Check the reservation's owner, heartbeat and deadline; look for a terminal result for the key after the answer.",
	Action:     "Follow the state contract: wait and retry with the same key; recover a stuck reservation by reconciliation, never by deleting it blindly.",
	Evidence:   "A delivery answered \"in progress\": a decision such as `in_progress`, or 409 with `Retry-After` or an in-progress state; or, where the server logs no state (express-idempotency's bare 409 `Conflict`), a 409, 425, 429 or 503 while an earlier delivery of the key was still in flight with the same payload (\"likely\" when no tier logged the payloads; another payload is a mismatch). Critical (stuck) when no effect, `completed` state or 2xx from the server (logged by it, by a proxy as its upstream's answer, or by the client) for the key follows.",
	Proof:      "The server's in-progress word: a decision such as `in_progress`, or a 409 with `Retry-After` or an in-progress state.",
	Inference:  "A bare 409 (425, 429, 503) while an earlier delivery of the key was in flight: the overlap says it, not the library's words; it lacks the server's state, and the payloads where no tier logged them.",
	Example:    "in-progress-stuck",
	Needs:      []model.Tier{model.TierServer},
	reads:      []requirement{needKeys, needServerAnswers},
	run:        runInProgress,
}

func runInProgress(c *context) []*Finding {
	var out []*Finding
	for _, in := range c.set.Built {
		var answered *model.Delivery
		var answer *model.Observation
		for _, d := range in.Deliveries {
			if o := inProgress(d); o != nil {
				answered, answer = d, o
				break
			}
		}
		likely := false
		if answered == nil {
			answered, answer, likely = inferredInProgress(c, in)
		}
		if answered == nil {
			continue
		}
		// The server's own word is the evidence shown where it logged
		// one; a proxy's or the client's view of its answer otherwise.
		var terminal, seen *model.Observation
	deliveries:
		for _, d := range in.Deliveries {
			if inProgress(d) != nil {
				continue
			}
			for _, o := range d.Observations {
				switch terminalResult(o) {
				case byServer:
					terminal = o
					break deliveries
				case byOthers:
					if seen == nil {
						seen = o
					}
				}
			}
		}
		if terminal == nil {
			terminal = seen
		}
		var ev evidence
		ev.add(in.Deliveries[0].Edge())
		ev.delivery(answered)
		f := &Finding{Intents: []*model.Intent{in}}
		n := fmt.Sprintf("Delivery %s of key %s was answered %q at %s while an earlier delivery held the reservation",
			answered.RequestID, in.Key, inProgressLabel(answer), hhmmss(answer.Time))
		if answer.Decision == "" && answer.State == "" && !answer.RetryAfter {
			n = fmt.Sprintf("Delivery %s of key %s was answered %d at %s while an earlier delivery of the key was still in flight, with the same payload",
				answered.RequestID, in.Key, answer.Status, hhmmss(answer.Time))
			if likely {
				n = fmt.Sprintf("Delivery %s of key %s was answered %d at %s while an earlier delivery of the key was still in flight: likely an in-progress answer (no tier logged the payloads, so a mismatch cannot be ruled out)",
					answered.RequestID, in.Key, answer.Status, hhmmss(answer.Time))
			}
		}
		if terminal == nil {
			f.Severity = Critical
			n += "; no terminal result for the key follows in the logs, so the reservation looks stuck (variant: stuck)."
		} else {
			f.Severity = Warning
			ev.add(terminal)
			// An access line's time is when the request began; its
			// result came when it ended.
			n += fmt.Sprintf("; the key reached a terminal result at %s (%s).", hhmmss(terminal.End()), terminal.Source)
		}
		f.Narrative = n
		if answer.Decision == "" && answer.State == "" && !answer.RetryAfter {
			// No tier logged the library's words: the overlap says it.
			lacks := []string{"the server's in-progress state"}
			if likely {
				lacks = append(lacks, "the payloads (no tier logged them)")
			}
			f.Confidence = inferred([]string{fmt.Sprintf("a %d while an earlier delivery of the key was in flight", answer.Status)}, lacks...)
		}
		f.Evidence = ev.sorted()
		out = append(out, f)
	}
	return out
}

// doneBy says who showed the key's work done (terminalResult).
type doneBy int

const (
	notDone  doneBy = iota
	byServer        // an effect, a completed key record, the server's 2xx
	byOthers        // a 2xx the server gave, seen by a proxy (as its upstream's answer or the answer it relayed) or the client
)

// terminalResult says whether o shows the key's work done, and by whose
// word: a proxy-only log shows the first delivery's 201 only there.
func terminalResult(o *model.Observation) doneBy {
	success := func(status int) bool { return status >= 200 && status < 300 }
	switch {
	case o.Effect || o.State == "completed" || o.Tier == model.TierServer && success(o.Status):
		return byServer
	case success(o.UpstreamStatus) || (o.Tier == model.TierClient || o.Tier == model.TierProxy) && success(o.Status):
		return byOthers
	}
	return notDone
}

func inProgressLabel(o *model.Observation) string {
	if o.Decision != "" {
		return o.Decision
	}
	if o.Status > 0 {
		return fmt.Sprintf("%d in progress", o.Status)
	}
	return "in progress"
}

// busyStatuses are the answers servers give a duplicate while the first
// delivery of its key still runs, when they log no state: 409 (Stripe,
// express-idempotency, rocket-rides), 425 Too Early, 429, 503.
var busyStatuses = []int{409, 425, 429, 503}

// inferredInProgress finds, on the timeline, a delivery answered with a
// busy status while an earlier delivery of the same key was still in
// flight, with the same payload (likely when no tier logged payloads). A
// delivery with another payload is a mismatch, not this.
func inferredInProgress(c *context, in *model.Intent) (*model.Delivery, *model.Observation, bool) {
	for i, d := range in.Deliveries {
		var busy *model.Observation
		for _, o := range d.Observations {
			if o.Tier <= model.TierServer && slices.Contains(busyStatuses, o.Status) {
				busy = o
				if o.Tier == model.TierServer {
					break
				}
			}
		}
		if busy == nil {
			continue
		}
		for _, e := range in.Deliveries[:i] {
			if !overlapped(c, e, d) {
				continue
			}
			switch samePayload(e, d) {
			case payloadDiffers:
				continue // another payload: payload-mismatch's
			case payloadUnknown:
				return d, busy, true
			default:
				return d, busy, false
			}
		}
	}
	return nil, nil, false
}

type payloadMatch int

const (
	payloadUnknown payloadMatch = iota // no tier logged both payloads
	payloadSame
	payloadDiffers
)

// samePayload compares two deliveries' fingerprints tier by tier: a
// server's own hash and a HAR body's hash of one payload differ.
func samePayload(a, b *model.Delivery) payloadMatch {
	fa, fb := a.Fingerprints(), b.Fingerprints()
	m := payloadUnknown
	for t, x := range fa {
		if y, ok := fb[t]; ok {
			if x != y {
				return payloadDiffers
			}
			m = payloadSame
		}
	}
	return m
}
