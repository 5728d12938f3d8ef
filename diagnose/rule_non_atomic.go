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
	Evidence:   "One key with one fingerprint and two or more deliveries that made effects, the later one starting (at the same tier's clock: a start and a duration logged together) before the earlier one finished, or at a time no tier can order against the earlier's end (times to the second within a second; a start from one log against an end from another within a second: the clocks' tolerance). A warning (\"likely\") when the later effect is only a 2xx, from a server whose log carries no dedup decision and no result id: a server that held the duplicate on the lock and replayed the answer would read the same.",
	Proof:      "Two result ids first seen under one key and one fingerprint, the second started before the first finished.",
	Inference:  "When the second effect is only a 2xx from a server that logs no dedup decision and no result id: a replay would read the same; it lacks a decision or a result id. When the logs cannot order the two (times to the second, or two clocks within their tolerance): likely concurrent, as a key run again after completion would need the second to begin after the first's end; it lacks times that order them at one tier.",
	Example:    "non-atomic-reservation",
	Needs:      []model.Tier{model.TierServer},
	reads:      []requirement{needKeys, needEffects, needPreciseServer},
	run:        runNonAtomic,
}

// effectfulPair describes a second effect under one key and how it relates
// to the earlier one.
type effectfulPair struct {
	first, second *model.Delivery
	// concurrent says the second may have begun before the first was
	// done: it did, or (unordered) the logs cannot say which came first.
	concurrent, unordered bool
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
			o := order(c, prev, d)
			p := effectfulPair{first: prev, second: d, concurrent: o != sequential, unordered: o == unorderable, unmarked: c.onlyStatus(d)}
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
		if p.unordered {
			n = fmt.Sprintf("Key %s made %s (%s): delivery %s reached the server at %s and delivery %s (server start %s) completed at %s, which the clocks or the logs' resolution cannot order, and both ran the effect; likely concurrent: a key run again after it completed would need the second to start after the first's end, which no tier measured",
				in.Key, plural(effectCount(all), "effect", "effects"), resultList(uniqueResults(all)), p.second.RequestID, hhmmss(serverStart(p.second)),
				p.first.RequestID, hhmmss(serverStart(p.first)), hhmmss(completedAt(c, p.first)))
		}
		// A server may hold a duplicate on the reservation's lock and
		// replay the first's answer once it is done (p.unmarked).
		sev, n := p.verdict(n)
		conf := p.confidence()
		if p.unordered {
			conf = inferred(append(conf.RestsOn, "two deliveries of the key no tier's clock orders"), append(conf.Lacks, "times fine enough, at one tier, to order the two")...)
		}
		out = append(out, &Finding{Severity: sev, Intents: []*model.Intent{in}, Narrative: n + ".", Evidence: ev.sorted(), Confidence: conf})
	}
	return out
}

// overlapped reports whether later may have started before earlier had
// finished: they overlap, or the logs cannot order them (see order).
func overlapped(c *context, earlier, later *model.Delivery) bool {
	return order(c, earlier, later) != sequential
}

// ordering is how two deliveries of one key stand in time.
type ordering int

const (
	sequential  ordering = iota // the later began after the earlier ended
	overlapping                 // the later began before the earlier ended
	unorderable                 // the clocks or the logs' resolution cannot say
)

// clockTolerance is how far apart two tiers' clocks may be and still be
// read as right: a gap between times from two clocks smaller than this
// orders nothing.
const clockTolerance = time.Second

// order says how later stands against earlier. Both ends are measured at
// one tier, one clock: a start and a duration logged together, the
// outermost tier that can order them first (it saw the caller's sends).
// Where a tier writes whole seconds, a gap within a second orders
// nothing. Where no tier measured both, the server's start of later
// against earlier's completion, from two clocks where either was not the
// server's, orders only past clockTolerance: a second-resolution proxy
// time against another log's end is no order.
func order(c *context, earlier, later *model.Delivery) ordering {
	for t := model.TierClient; t <= model.TierServer; t++ {
		a, b := tierSpan(earlier, t), tierSpan(later, t)
		if a.start.IsZero() || b.start.IsZero() || !a.measured {
			continue
		}
		slack := time.Duration(0)
		if c.coarse(tierLines(t, earlier, later)...) {
			slack = time.Second
		}
		if o := compare(b.start.Sub(a.end), slack); o != unorderable {
			return o
		}
	}
	start, done := tierSpan(later, model.TierServer).start, completedAt(c, earlier)
	slack := time.Duration(0)
	if start.IsZero() {
		start, slack = later.Start(), clockTolerance
	}
	if start.IsZero() || done.IsZero() {
		return unorderable
	}
	if c.coarse(serverLines(earlier, later)...) {
		slack = max(slack, time.Second)
	}
	return compare(start.Sub(done), slack)
}

// requestLine reports whether o is about the request itself, so that its
// time is when the tier began it: an effect or a note logged on its own
// comes at some time after.
func requestLine(o *model.Observation) bool {
	return o.Method != "" || o.Route != "" || o.Status > 0 || o.Duration > 0 || o.Outcome.Lost()
}

// compare orders a gap from an end to a start known within slack.
func compare(gap, slack time.Duration) ordering {
	switch {
	case gap > slack:
		return sequential
	case gap < -slack || slack == 0:
		return overlapping
	}
	return unorderable
}

// tierLines are the deliveries' lines of tier t.
func tierLines(t model.Tier, ds ...*model.Delivery) []*model.Observation {
	var out []*model.Observation
	for _, d := range ds {
		for _, o := range d.Observations {
			if o.Tier == t {
				out = append(out, o)
			}
		}
	}
	return out
}

type span struct {
	start, end time.Time
	// measured says the end was logged: a duration beside a start, or a
	// later line of the tier, not only the start itself.
	measured bool
}

// tierSpan is when a tier began a delivery (its first line about the
// request) and last saw it.
func tierSpan(d *model.Delivery, t model.Tier) span {
	var s span
	n := 0
	for _, o := range d.Observations {
		if o.Tier != t || o.Time.IsZero() {
			continue
		}
		n++
		if requestLine(o) && (s.start.IsZero() || o.Time.Before(s.start)) {
			s.start = o.Time
		}
		if e := o.End(); e.After(s.end) {
			s.end = e
		}
		s.measured = s.measured || o.Duration > 0
	}
	s.measured = s.measured || n > 1 && !s.start.IsZero() && s.end.After(s.start)
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
