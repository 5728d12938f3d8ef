package diagnose

import (
	"fmt"
	"slices"
	"time"

	"github.com/idem-cli/idem/model"
)

var nonAtomicReservation = &Rule{
	ID:         "non-atomic-reservation",
	Title:      "Two effects under one key",
	Severity:   Critical,
	Symptom:    "Two records appeared for one key and one payload, from deliveries that overlapped in time.",
	Hypothesis: "The key reservation is not atomic: a check-then-insert let two concurrent deliveries both run the effect.",
	Check:      "Look for a unique index or transaction on (scope, key); compare the deliveries' server start and commit times.",
	Action:     "Make the reservation atomic (unique constraint, INSERT … ON CONFLICT, a lock) so only its owner runs the effect.",
	Evidence:   "One key with one fingerprint and two or more deliveries that made effects, the later one starting (at the same tier's clock) before the earlier one finished. A warning (\"likely\") when the later effect is only a 2xx, from a server whose log carries no dedup decision and no result id: a server that held the duplicate on the lock and replayed the answer would read the same.",
	Proof:      "Two result ids first seen under one key and one fingerprint, the second started before the first finished.",
	Inference:  "When the second effect is only a 2xx from a server that logs no dedup decision and no result id: a replay would read the same; it lacks a decision or a result id.",
	Example:    "non-atomic-reservation",
	Needs:      []model.Tier{model.TierServer},
	reads:      []requirement{needKeys, needEffects, needPreciseServer},
	run:        runNonAtomic,
}

// effectfulPair describes a second effect under one key and how it relates
// to the earlier one.
type effectfulPair struct {
	first, second *model.Delivery
	concurrent    bool
	// unmarked says the second effect is only a 2xx from a server that
	// cannot mark a replay (context.onlyStatus): it may be one.
	unmarked bool
}

// verdict is the severity of a finding that rests on p, and its narrative
// n, saying why where the second effect may have been a replay.
func (p effectfulPair) verdict(n string) (Severity, string) {
	if p.unmarked {
		return Warning, n + "; likely, not proven: the server's log says neither its dedup decision nor a result id, so an answer replayed from the key record would read the same"
	}
	return Critical, n
}

// confidence is how sure a finding that rests on p is: inferred where the
// second effect may have been a replay.
func (p effectfulPair) confidence() Confidence {
	if p.unmarked {
		return inferred([]string{"a second 2xx to the same key's write"}, "a dedup decision", "a result id")
	}
	return Confidence{Level: Proven, RestsOn: []string{"two effects under one key"}}
}

// secondEffects finds, per intent, the deliveries that made an effect
// after an earlier delivery of the same payload already had: concurrently
// (the earlier one had not completed when the later reached the server) or
// sequentially.
func secondEffects(c *context, in *model.Intent) []effectfulPair {
	var effectful []*model.Delivery
	for _, d := range in.Deliveries {
		if len(c.effects(d)) > 0 {
			effectful = append(effectful, d)
		}
	}
	var out []effectfulPair
	for i := 1; i < len(effectful); i++ {
		d := effectful[i]
		var pair *effectfulPair
		for _, prev := range effectful[:i] {
			if fa, fb := prev.Fingerprint(), d.Fingerprint(); fa != "" && fb != "" && fa != fb {
				continue // another payload: payload-mismatch says it
			}
			if sameResults(uniqueResults(c.effects(prev)), uniqueResults(c.effects(d))) {
				// One effect seen twice: a server that held the duplicate
				// on a lock and replayed it, or a worker reporting what the
				// server made. Result ids name one effect each.
				continue
			}
			p := effectfulPair{first: prev, second: d, concurrent: overlapped(c, prev, d), unmarked: c.onlyStatus(d)}
			if pair == nil || p.concurrent && !pair.concurrent {
				pair = &p
			}
			if pair.concurrent {
				// An earlier effect still running is the finding, even
				// when a completed one came before it (two deliveries
				// let through together after the key expired).
				break
			}
		}
		if pair != nil {
			out = append(out, *pair)
		}
	}
	return out
}

func runNonAtomic(c *context) []*Finding {
	var out []*Finding
	for _, in := range c.set.Built {
		var pairs []effectfulPair
		for _, p := range secondEffects(c, in) {
			if p.concurrent {
				pairs = append(pairs, p)
			}
		}
		if len(pairs) == 0 {
			continue
		}
		p := pairs[0]
		var ev evidence
		ev.delivery(p.first)
		ev.delivery(p.second)
		var all []*model.Observation
		for _, d := range in.Deliveries {
			all = append(all, c.effects(d)...)
		}
		n := fmt.Sprintf("Key %s made %s (%s): delivery %s reached the server at %s, before delivery %s (server start %s) had completed at %s, and both ran the effect",
			in.Key, plural(effectCount(all), "effect", "effects"), resultList(uniqueResults(all)), p.second.RequestID, hhmmss(serverStart(p.second)),
			p.first.RequestID, hhmmss(serverStart(p.first)), hhmmss(completedAt(c, p.first)))
		// A server may hold a duplicate on the reservation's lock and
		// replay the first's answer once it is done (p.unmarked).
		sev, n := p.verdict(n)
		out = append(out, &Finding{Severity: sev, Intents: []*model.Intent{in}, Narrative: n + ".", Evidence: ev.sorted(), Confidence: p.confidence()})
	}
	return out
}

// overlapped reports whether later started before earlier had finished.
// Times are compared within one tier (one clock); where a tier logs whole
// seconds only, equal times count as overlapping.
func overlapped(c *context, earlier, later *model.Delivery) bool {
	for t := model.TierClient; t <= model.TierServer; t++ {
		a, b := tierSpan(earlier, t), tierSpan(later, t)
		if a.start.IsZero() || b.start.IsZero() || a.end.IsZero() {
			continue
		}
		return !b.start.After(a.end)
	}
	return !serverStart(later).After(completedAt(c, earlier))
}

type span struct{ start, end time.Time }

// tierSpan is when a tier first and last saw a delivery.
func tierSpan(d *model.Delivery, t model.Tier) span {
	var s span
	for _, o := range d.Observations {
		if o.Tier != t || o.Time.IsZero() {
			continue
		}
		if s.start.IsZero() || o.Time.Before(s.start) {
			s.start = o.Time
		}
		if e := o.End(); e.After(s.end) {
			s.end = e
		}
	}
	return s
}

// sameResults reports whether two deliveries named the same, non-empty
// set of result ids.
func sameResults(a, b []string) bool {
	if len(a) == 0 || len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}
