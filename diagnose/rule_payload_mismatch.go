package diagnose

import (
	"fmt"
	"slices"
	"strings"

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
	Evidence:   "One key whose deliveries carry different fingerprints at one tier. Critical when the second payload made an effect or got a success (a replay for a different command); warning when the server answered 400/409/417/422 first. Where no tier logged both payloads, the server's own answer (a warning, \"likely\"): a later delivery of a key answered 422, or 400 or 409 saying the payload differs, after an earlier delivery of the key that succeeded (a 2xx or an effect), as an Idempotency-Key library refuses a stored key sent with another body.",
	Proof:      "Two fingerprints under one key at one tier.",
	Inference:  "Where no tier logged both payloads: the server's 422 (or a 400/409 naming the payload) to a key that had already succeeded; it lacks both payloads.",
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
			if f := refusedReuse(c, in); f != nil {
				out = append(out, f)
			}
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

// mismatchWords are what a library's refusal says when a key came back
// with another payload ("Idempotency-Key reused with a different
// request body", "fingerprint mismatch").
var mismatchWords = []string{"mismatch", "different", "does not match", "doesn't match", "reused", "fingerprint"}

// refusedReuse reads a mismatch from the server's own answer where no
// tier logged both payloads: after a delivery of the key that was not
// refused, another answered 422 (the status the IETF draft gives a key
// reused with another payload), or 400 or 409 saying so. With both
// payloads logged and equal, such an answer is about something else.
func refusedReuse(c *context, in *model.Intent) *Finding {
	if len(in.Deliveries) < 2 || comparable(in) {
		return nil
	}
	for i, d := range in.Deliveries[1:] {
		o := mismatchAnswer(d)
		if o == nil || len(c.effects(d)) > 0 {
			continue
		}
		// The key had succeeded: a refusal of it is the library's
		// evidence of another payload, not a validation error.
		before := succeeded(c, in.Deliveries[:i+1])
		if before == nil {
			continue
		}
		var ev evidence
		ev.delivery(before)
		ev.delivery(d)
		return &Finding{Severity: Warning, Intents: []*model.Intent{in}, Evidence: ev.sorted(),
			Confidence: inferred([]string{fmt.Sprintf("the server's %d to a key that had succeeded", o.Status)}, "both payloads (no tier logged them)"), Narrative: fmt.Sprintf(
				"Key %s first came at %s (delivery %s), then delivery %s was answered %d at %s, the server's refusal of a key reused with another payload: likely a mismatch (no tier logged both payloads, so they cannot be compared); the server refused it before the effect, as the contract asks.",
				in.Key, hhmmss(before.Start()), before.RequestID, d.RequestID, o.Status, hhmmss(o.End()))}
	}
	return nil
}

// succeeded is the last of ds that the server did not refuse and that
// succeeded (a 2xx at the server or the edge, or an effect), nil for none.
func succeeded(c *context, ds []*model.Delivery) *model.Delivery {
	var before *model.Delivery
	for _, e := range ds {
		if slices.ContainsFunc(e.Observations, func(o *model.Observation) bool { return o.Status >= 400 && o.Status < 500 }) {
			continue
		}
		if serverSuccess(e) != nil || len(c.effects(e)) > 0 || edgeResponse(e) != nil && edgeResponse(e).Status < 300 && edgeResponse(e).Status >= 200 {
			before = e
		}
	}
	return before
}

// refusedAsAnother says why d, sent after before under one key, was
// another action rather than a retry of the key's: after the key had
// succeeded, the server refused d as a key reused with another payload
// (its fingerprint at one tier differs from an earlier one's and the
// answer was a 400, 409, 417 or 422; or, where no tier logged both, the
// library's own refusal, see mismatchAnswer). "" when it was not refused
// so: a send the server ran or replayed is the caller's, whatever its
// body.
func refusedAsAnother(c *context, before []*model.Delivery, d *model.Delivery) string {
	if len(c.effects(d)) > 0 || inProgress(d) != nil {
		return ""
	}
	e := succeeded(c, before)
	if e == nil {
		return ""
	}
	fps := d.Fingerprints()
	differs, same := false, false
	for _, b := range before {
		for t, fp := range b.Fingerprints() {
			if mine, ok := fps[t]; ok {
				differs = differs || mine != fp
				same = same || mine == fp
			}
		}
	}
	if same && !differs {
		return "" // one payload: the refusal is about something else
	}
	o := mismatchAnswer(d)
	if differs {
		for _, l := range d.Observations {
			if l.Status == 400 || l.Status == 409 || l.Status == 417 || l.Status == 422 {
				o = l
				break
			}
		}
	}
	if o == nil {
		return ""
	}
	return fmt.Sprintf("the server refused it %d (%s) after delivery %s had succeeded: another payload under the key, not a retry", o.Status, o.Source, e.RequestID)
}

// mismatchAnswer returns the line where the server (or the edge, for
// it) refused a delivery as a key reused with another payload.
func mismatchAnswer(d *model.Delivery) *model.Observation {
	if inProgress(d) != nil {
		return nil
	}
	for _, o := range d.Observations {
		switch {
		case o.Status == 422:
			return o
		case o.Status == 400 || o.Status == 409:
			text := strings.ToLower(o.Message + " " + o.Detail + " " + o.Decision + " " + o.State)
			if slices.ContainsFunc(mismatchWords, func(w string) bool { return strings.Contains(text, w) }) {
				return o
			}
		}
	}
	return nil
}

// comparable reports whether two deliveries of in logged their payloads'
// fingerprints at one tier.
func comparable(in *model.Intent) bool {
	seen := map[model.Tier]int{}
	for _, d := range in.Deliveries {
		for t := range d.Fingerprints() {
			seen[t]++
			if seen[t] > 1 {
				return true
			}
		}
	}
	return false
}
