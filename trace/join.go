package trace

import (
	"slices"
	"time"

	"github.com/idem-cli/idem/model"
)

// keyJoinWindow is how far apart a browser's entry or a proxy's line and
// a delivery of one key, method and route may start and still be one
// trip: clocks of a laptop and a server disagree by a second or two.
const keyJoinWindow = 5 * time.Second

// joinByKey joins the lines that carry the Idempotency-Key but no request
// id, a proxy's (its log_format wrote none, or the client sent none to
// log) and then a browser's HAR entries (the proxy made the request id
// and passed it on), to the delivery of the same key, method and route
// whose start is nearest within keyJoinWindow and that has no line of
// that tier yet; then a server's id-less lines to a trip an outer tier
// logged and no server line did; then the notes (see joinNotes). It
// returns how many it joined. This runs only on built intents: a line
// without a request id makes its intent worth a look.
func joinByKey(in *model.Intent, alts map[*model.Observation]uint32) int {
	n := joinByAltID(in, alts)
	n += joinTierByKey(in, model.TierProxy)
	n += joinTierByKey(in, model.TierClient)
	n += joinTierByKey(in, model.TierServer)
	return n + joinNotes(in)
}

// joinTierByKey joins the id-less lines of tier t: a client's or a
// proxy's to a trip a deeper tier logged, a server's to one an outer
// tier logged.
func joinTierByKey(in *model.Intent, t model.Tier) int {
	var entries, trips []*model.Delivery
	for _, d := range in.Deliveries {
		switch {
		case d.Synthetic && d.Edge() != nil && d.Edge().Tier == t && len(d.Observations) == 1 && !isNote(d.Edge()):
			entries = append(entries, d)
		case !d.Synthetic && d.At(t) == nil && (t < model.TierServer && deeper(d, t) || t == model.TierServer && outer(d, t)):
			trips = append(trips, d)
		}
	}
	if len(entries) == 0 || len(trips) == 0 {
		return 0
	}
	if t == model.TierServer {
		return joinUnique(in, entries, trips)
	}
	used := map[*model.Delivery]bool{}
	gone := map[*model.Delivery]bool{}
	for _, e := range entries {
		var best *model.Delivery
		var bestGap time.Duration
		for _, tr := range trips {
			if used[tr] || tr.Method() != e.Method() || tr.Route() != e.Route() {
				continue
			}
			gap := tr.Start().Sub(e.Start()).Abs()
			if gap <= keyJoinWindow && (best == nil || gap < bestGap) {
				best, bestGap = tr, gap
			}
		}
		if best == nil {
			continue
		}
		// The lines keep the id they logged, none: the trip's is shown
		// on the delivery, never as the tier's.
		used[best], gone[e] = true, true
		absorbDelivery(best, e)
	}
	return dropJoined(in, gone)
}

// joinUnique joins each of a server's id-less lines to the one trip it
// can be, and only where the match is one each way: the same method and
// route, a status the trip's outer tier logged for its upstream (or none
// either side), starting within keyJoinWindow, and no other line it
// could be. A line with two trips it could be, or a trip with two lines,
// stays apart: two sends are never made one by a guess.
func joinUnique(in *model.Intent, entries, trips []*model.Delivery) int {
	fits := func(e, tr *model.Delivery) bool {
		return tr.Method() == e.Method() && tr.Route() == e.Route() && tr.Start().Sub(e.Start()).Abs() <= keyJoinWindow &&
			sameAnswer(tr, e.Edge())
	}
	count := func(list []*model.Delivery, match func(*model.Delivery) bool) (n int, one *model.Delivery) {
		for _, d := range list {
			if match(d) {
				n, one = n+1, d
			}
		}
		return n, one
	}
	gone := map[*model.Delivery]bool{}
	for _, e := range entries {
		n, tr := count(trips, func(tr *model.Delivery) bool { return fits(e, tr) })
		if n != 1 {
			continue
		}
		if m, _ := count(entries, func(o *model.Delivery) bool { return fits(o, tr) }); m != 1 {
			continue
		}
		gone[e] = true
		absorbDelivery(tr, e)
	}
	return dropJoined(in, gone)
}

// sameAnswer reports whether a server line's status can be what the
// trip's outer tier saw of it: either logged none, or the outer line's
// status or its upstream's is the server's.
func sameAnswer(tr *model.Delivery, o *model.Observation) bool {
	if o.Status == 0 {
		return true
	}
	for _, p := range tr.Observations {
		if p.Tier >= model.TierServer || p.Status == 0 && p.UpstreamStatus == 0 {
			continue
		}
		return p.Status == o.Status || p.UpstreamStatus == o.Status || p.Outcome.Lost()
	}
	return true
}

// absorbDelivery moves from's lines into the trip they belong to.
func absorbDelivery(into, from *model.Delivery) {
	into.Observations = append(into.Observations, from.Observations...)
	into.Total += from.Total
	sortObservations(into.Observations)
}

// dropJoined removes the deliveries joined into others from in, and
// returns how many.
func dropJoined(in *model.Intent, gone map[*model.Delivery]bool) int {
	if len(gone) == 0 {
		return 0
	}
	kept := in.Deliveries[:0]
	for _, d := range in.Deliveries {
		if !gone[d] {
			kept = append(kept, d)
		}
	}
	in.Deliveries = kept
	in.Total -= len(gone)
	return len(gone)
}

// deeper reports whether a tier past t saw the delivery.
func deeper(d *model.Delivery, t model.Tier) bool {
	for _, o := range d.Observations {
		if o.Tier > t {
			return true
		}
	}
	return false
}

// outer reports whether a tier before t saw the delivery.
func outer(d *model.Delivery, t model.Tier) bool {
	for _, o := range d.Observations {
		if o.Tier < t {
			return true
		}
	}
	return false
}

// isNote reports whether o is a note about its intent rather than a
// send: it carries the key but nothing of a request (no request id,
// method, route, status, duration, attempt or workflow activity), as an
// application's "order failed, submitting again" or "worker crashed
// before saving, job will be re-run". A note is no delivery and no retry.
func isNote(o *model.Observation) bool {
	return o.RequestID == "" && o.Method == "" && o.Route == "" && o.Status == 0 && o.Duration == 0 &&
		o.Attempt == 0 && o.Workflow == nil && (o.Key != "" || o.KeyHash != "")
}

// notesOnly reports whether every line of d is a note.
func notesOnly(d *model.Delivery) bool {
	for _, o := range d.Observations {
		if !isNote(o) {
			return false
		}
	}
	return len(d.Observations) > 0
}

// joinNotes moves each note of the intent into the delivery it is about:
// the latest send of the key begun at or before it (the earliest where
// none was), so that a note is never counted as a send. Where no line of
// the intent shows a request, its notes join the one that made an effect
// (an effect a note names stays where it is: a result first seen is no
// note's to hide), or the first of them.
func joinNotes(in *model.Intent) int {
	var notes, trips []*model.Delivery
	for _, d := range in.Deliveries {
		if d.Synthetic && notesOnly(d) {
			notes = append(notes, d)
		} else {
			trips = append(trips, d)
		}
	}
	if len(notes) == 0 {
		return 0
	}
	if len(trips) == 0 {
		for _, d := range notes {
			if len(d.Effects()) > 0 {
				trips = append(trips, d)
			}
		}
		if len(trips) == 0 {
			trips = notes[:1]
		}
	}
	gone := map[*model.Delivery]bool{}
	for _, n := range notes {
		if slices.Contains(trips, n) {
			continue
		}
		absorbDelivery(aboutWhich(trips, n.Start()), n)
		gone[n] = true
	}
	return dropJoined(in, gone)
}

// aboutWhich is the trip a note written at at is about: the latest begun
// at or before it, else the earliest.
func aboutWhich(trips []*model.Delivery, at time.Time) *model.Delivery {
	var before, first *model.Delivery
	for _, tr := range trips {
		s := tr.Start()
		if first == nil || s.Before(first.Start()) {
			first = tr
		}
		if !at.IsZero() && !s.IsZero() && !s.After(at) && (before == nil || s.After(before.Start())) {
			before = tr
		}
	}
	if before != nil {
		return before
	}
	return first
}

// joinByAltID joins a delivery whose lines carried a second request id
// (nginx logs its own $request_id beside the client's X-Request-Id) to
// the delivery of the same intent that goes by that second id, where the
// two share no tier: the id that joins the other tiers is the trip's. The
// correlator keeps only the hash of a line's second id (alts, from
// Correlator.altOf; nil when no line had one): the line then goes by the
// trip's id, with its own as the other.
func joinByAltID(in *model.Intent, alts map[*model.Observation]uint32) int {
	if len(alts) == 0 || len(in.Deliveries) < 2 {
		return 0
	}
	byHash := make(map[uint32]*model.Delivery, len(in.Deliveries))
	for _, e := range in.Deliveries {
		if !e.Synthetic {
			byHash[altHash(e.RequestID)] = e
		}
	}
	gone := map[*model.Delivery]bool{}
	for _, d := range in.Deliveries {
		if d.Synthetic {
			continue
		}
		var to *model.Delivery
		var h uint32
		for _, o := range d.Observations {
			if h = alts[o]; h != 0 {
				to = byHash[h]
				break
			}
		}
		if to == nil || to == d || gone[to] || gone[d] || shareTier(d, to) {
			continue
		}
		for _, o := range d.Observations {
			if alts[o] == h {
				o.RequestID, o.AltRequestID = to.RequestID, o.RequestID
			}
		}
		absorbDelivery(to, d)
		gone[d] = true
	}
	return dropJoined(in, gone)
}

// shareTier reports whether two deliveries were seen by one tier.
func shareTier(a, b *model.Delivery) bool {
	for _, o := range a.Observations {
		if b.At(o.Tier) != nil {
			return true
		}
	}
	return false
}
