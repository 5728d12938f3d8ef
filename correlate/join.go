package correlate

import (
	"time"

	"github.com/idem-cli/idem/model"
)

// KeyJoinWindow is how far apart a browser's entry and a proxy's or
// server's delivery of one key, method and route may start and still be
// one trip: clocks of a laptop and a server disagree by a second or two.
const KeyJoinWindow = 5 * time.Second

// joinByKey joins a browser's HAR entries that carry only the
// Idempotency-Key (the proxy made the request id and passed it on) to the
// delivery of the same key, method and route whose start is nearest
// within KeyJoinWindow and that no client line joined yet. It returns how
// many it joined.
func joinByKey(in *model.Intent) int {
	var entries, trips []*model.Delivery
	for _, d := range in.Deliveries {
		switch {
		case d.Synthetic && d.Edge() != nil && d.Edge().Tier == model.TierClient && len(d.Observations) == 1:
			entries = append(entries, d)
		case !d.Synthetic && d.At(model.TierClient) == nil:
			trips = append(trips, d)
		}
	}
	if len(entries) == 0 || len(trips) == 0 {
		return 0
	}
	used := map[*model.Delivery]bool{}
	gone := map[*model.Delivery]bool{}
	for _, e := range entries {
		var best *model.Delivery
		var bestGap time.Duration
		for _, t := range trips {
			if used[t] || t.Method() != e.Method() || t.Route() != e.Route() {
				continue
			}
			gap := t.Start().Sub(e.Start()).Abs()
			if gap <= KeyJoinWindow && (best == nil || gap < bestGap) {
				best, bestGap = t, gap
			}
		}
		if best == nil {
			continue
		}
		used[best], gone[e] = true, true
		for _, o := range e.Observations {
			o.RequestID = best.RequestID // the trip's id, which the proxy made
		}
		best.Observations = append(best.Observations, e.Observations...)
		best.Total += e.Total
		sortObservations(best.Observations)
	}
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
