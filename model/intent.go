package model

import "time"

// Intent is the deliveries that share one Idempotency-Key within a scope.
type Intent struct {
	ID         string // scope and key, as used for grouping
	Key        string // the raw key, or "hash:<key hash>" when only a hash was logged
	Scope      string
	Deliveries []*Delivery
	// Total counts every delivery of the intent. An intent of very many
	// keeps only its first and last deliveries in Deliveries, so that one
	// hostile key cannot make a report explode.
	Total int
}

// Count is how many deliveries the intent had: Total, or for an intent
// made without it (by hand, in a test), its deliveries.
func (in *Intent) Count() int { return max(in.Total, len(in.Deliveries)) }

// Start is when the intent's first delivery began.
func (in *Intent) Start() time.Time {
	var t time.Time
	for _, d := range in.Deliveries {
		if s := d.Start(); !s.IsZero() && (t.IsZero() || s.Before(t)) {
			t = s
		}
	}
	return t
}

// Effects returns every effect observation of the intent.
func (in *Intent) Effects() []*Observation {
	var out []*Observation
	for _, d := range in.Deliveries {
		out = append(out, d.Effects()...)
	}
	return out
}
