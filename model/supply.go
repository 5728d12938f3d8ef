package model

import "time"

// Field is a kind of fact a log line can carry, as one bit: a rule needs
// some of them, at some tiers, to decide, and a Set knows which inputs
// supplied which (Supplies).
type Field uint16

// The fields a rule may need.
const (
	FieldRequestID   Field = 1 << iota // a request id
	FieldKey                           // an Idempotency-Key, raw or hashed
	FieldStatus                        // an HTTP status, or an outcome saying no response came
	FieldFingerprint                   // a payload fingerprint (or a body it was computed from)
	FieldResult                        // a result id
	FieldEffect                        // a line recording a business effect
	FieldDecision                      // a dedup decision or a key record's state
	FieldClient                        // who sent the request
	FieldPrecise                       // a time finer than the second
	FieldUpstream                      // what the upstream answered a proxy ($upstream_status), or its count of attempts
	FieldPreviousKey                   // another key the line names as the one it retries
)

// FieldsOf says which fields o carries.
func FieldsOf(o *Observation) Field {
	var f Field
	if o.RequestID != "" {
		f |= FieldRequestID
	}
	if o.Key != "" || o.KeyHash != "" {
		f |= FieldKey
	}
	if o.Status > 0 || o.UpstreamStatus > 0 || o.Outcome != OutcomeUnknown {
		f |= FieldStatus
	}
	if o.Fingerprint != "" {
		f |= FieldFingerprint
	}
	if o.ResultID != "" {
		f |= FieldResult
	}
	if o.Effect {
		f |= FieldEffect
	}
	if o.Decision != "" || o.State != "" {
		f |= FieldDecision
	}
	if o.Client != "" {
		f |= FieldClient
	}
	if precise(o.Time, o.Duration) {
		f |= FieldPrecise
	}
	if o.UpstreamStatus > 0 || o.UpstreamTries > 0 {
		f |= FieldUpstream
	}
	if o.PreviousKey != "" {
		f |= FieldPreviousKey
	}
	return f
}

// precise reports whether a line's times are finer than the second: its
// start, and its end where it has a duration. A log that writes its time
// to the second and a duration finer (nginx's $time_local and
// $request_time) gives a start off the second but an end on it; a line
// of a precise log falls on the second at both only by chance, and
// another of its lines says so.
func precise(t time.Time, d time.Duration) bool {
	if t.IsZero() || t.Nanosecond() == 0 {
		return false
	}
	return d <= 0 || t.Add(d).Nanosecond() != 0
}

// Supply is what one input's lines at one tier carried.
type Supply struct {
	File   string
	Tier   Tier
	Lines  int // the observations of that file and tier
	Fields Field
	// First and Last are the earliest and latest times its lines carried:
	// whether a --since/--until window can hold any of them.
	First, Last time.Time
}

// Saw widens the supply's span to t; a line without a time leaves it.
func (sp *Supply) Saw(t time.Time) {
	if t.IsZero() {
		return
	}
	if sp.First.IsZero() || t.Before(sp.First) {
		sp.First = t
	}
	if t.After(sp.Last) {
		sp.Last = t
	}
}

// Span is the earliest and latest time any input's lines carried; zero
// when none carried a time.
func (s *Set) Span() (first, last time.Time) {
	for _, sp := range s.Supplies {
		if !sp.First.IsZero() && (first.IsZero() || sp.First.Before(first)) {
			first = sp.First
		}
		if sp.Last.After(last) {
			last = sp.Last
		}
	}
	return first, last
}

// Supplied reports whether some input supplied field f at tier t
// (TierUnknown: at any tier).
func (s *Set) Supplied(t Tier, f Field) bool {
	for _, sp := range s.Supplies {
		if (t == TierUnknown || sp.Tier == t) && sp.Fields&f == f {
			return true
		}
	}
	return false
}

// supplyOf is the supply of the input and tier that wrote o; nil when
// the set has none for them.
func (s *Set) supplyOf(o *Observation) *Supply {
	for i := range s.Supplies {
		if sp := &s.Supplies[i]; sp.Tier == o.Tier && sp.File == o.Source.File {
			return sp
		}
	}
	return nil
}

// SuppliedBy reports whether the input that wrote o supplied field f at
// o's tier. A set made by hand, without supplies, is taken at its word.
func (s *Set) SuppliedBy(o *Observation, f Field) bool {
	if len(s.Supplies) == 0 {
		return true
	}
	sp := s.supplyOf(o)
	return sp != nil && sp.Fields&f == f
}

// Precise reports whether the input that wrote o writes times finer than
// the second at o's tier. A set made by hand, without supplies, is
// taken at its word, and so is a line whose input it has no supply of.
func (s *Set) Precise(o *Observation) bool {
	if o == nil {
		return false
	}
	sp := s.supplyOf(o)
	return sp == nil || sp.Fields&FieldPrecise != 0
}
