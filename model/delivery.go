package model

import "time"

// Delivery is one trip of one request: the observations that share a
// request id, ordered by tier (clocks of different tiers may be skewed, so
// tier order is more trustworthy than timestamps across tiers).
type Delivery struct {
	// Total counts the delivery's observations. A delivery of very many
	// keeps only its first and last in Observations, so that one reused
	// request id cannot make a report explode.
	Total     int
	RequestID string
	// Synthetic is set when no tier logged a request id: the delivery is
	// then one observation, named after its source.
	Synthetic    bool
	Key          string
	KeyHash      string
	Keys         []string // every distinct key logged under this request id
	Observations []*Observation
}

// Start is when the delivery began, as seen by its outermost tier.
func (d *Delivery) Start() time.Time {
	for _, o := range d.Observations {
		if !o.Time.IsZero() {
			return o.Time
		}
	}
	return time.Time{}
}

// At returns the first observation of tier t, or nil.
func (d *Delivery) At(t Tier) *Observation {
	for _, o := range d.Observations {
		if o.Tier == t {
			return o
		}
	}
	return nil
}

// Edge is the observation of the outermost tier: what the caller saw.
func (d *Delivery) Edge() *Observation {
	if len(d.Observations) == 0 {
		return nil
	}
	return d.Observations[0]
}

// Method is the delivery's HTTP method, from whichever tier logged it.
func (d *Delivery) Method() string {
	for _, o := range d.Observations {
		if o.Method != "" {
			return o.Method
		}
	}
	return ""
}

// Route is the delivery's route, from whichever tier logged it.
func (d *Delivery) Route() string {
	for _, o := range d.Observations {
		if o.Route != "" {
			return o.Route
		}
	}
	return ""
}

// Client names who sent the delivery, where a tier logged it.
func (d *Delivery) Client() string {
	for _, o := range d.Observations {
		if o.Client != "" {
			return o.Client
		}
	}
	return ""
}

// Fingerprints returns the fingerprint each tier logged or that was
// computed from its body. Fingerprints are compared only within one tier:
// a server's own hash and idem's canonical hash of the same body differ.
func (d *Delivery) Fingerprints() map[Tier]string {
	var m map[Tier]string
	for _, o := range d.Observations {
		if o.Fingerprint == "" {
			continue
		}
		if m == nil {
			m = map[Tier]string{}
		}
		if _, ok := m[o.Tier]; !ok {
			m[o.Tier] = o.Fingerprint
		}
	}
	return m
}

// Fingerprint returns one fingerprint for display: the innermost tier's.
func (d *Delivery) Fingerprint() string {
	for i := len(d.Observations) - 1; i >= 0; i-- {
		if fp := d.Observations[i].Fingerprint; fp != "" {
			return fp
		}
	}
	return ""
}

// Effects returns the effect observations of the delivery.
func (d *Delivery) Effects() []*Observation {
	var out []*Observation
	for _, o := range d.Observations {
		if o.Effect {
			out = append(out, o)
		}
	}
	return out
}

// ServerStatus is the status the innermost tier that answered logged.
func (d *Delivery) ServerStatus() (int, *Observation) {
	for i := len(d.Observations) - 1; i >= 0; i-- {
		o := d.Observations[i]
		if o.Status > 0 && o.Tier >= TierProxy && !o.Outcome.Lost() {
			return o.Status, o
		}
	}
	return 0, nil
}

// Decision is the dedup decision a tier logged, if any.
func (d *Delivery) Decision() (string, *Observation) {
	for _, o := range d.Observations {
		if o.Decision != "" {
			return o.Decision, o
		}
	}
	return "", nil
}

// ResultID is the result id any tier logged for this delivery.
func (d *Delivery) ResultID() string {
	for i := len(d.Observations) - 1; i >= 0; i-- {
		if r := d.Observations[i].ResultID; r != "" {
			return r
		}
	}
	return ""
}

// Lost returns the observation where the response went missing: the
// outermost tier whose outcome says the response did not arrive. A client
// or proxy is the best witness; a server that logged losing its own
// response (a broken pipe, a dropped connection) is the next best.
func (d *Delivery) Lost() *Observation {
	for _, o := range d.Observations {
		if o.Tier <= TierProxy && o.Outcome.Lost() {
			return o
		}
	}
	for _, o := range d.Observations {
		if o.Tier == TierServer && o.Outcome.Lost() {
			return o
		}
	}
	return nil
}
