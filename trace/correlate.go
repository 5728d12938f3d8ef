package trace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
	"time"
)

// Delivery is one trip of one request: the observations that share a
// request id, ordered by tier (clocks of different tiers may be skewed, so
// tier order is more trustworthy than timestamps across tiers).
type Delivery struct {
	RequestID string
	// Synthetic is set when no tier logged a request id: the delivery is
	// then one observation, named after its source.
	Synthetic    bool
	Key          string
	KeyHash      string
	Keys         []string // every distinct key logged under this request id
	Observations []*Observation
}

// Intent is the deliveries that share one Idempotency-Key within a scope.
type Intent struct {
	ID         string // scope and key, as used for grouping
	Key        string // the raw key, or "hash:<key hash>" when only a hash was logged
	Scope      string
	Deliveries []*Delivery
}

// Set is the correlated result of reading inputs.
type Set struct {
	Inputs  []*Input
	Intents []*Intent
	// Unkeyed holds deliveries that carried no Idempotency-Key at any tier.
	Unkeyed []*Delivery
	// Orphans are effect lines that name neither a request id nor a key.
	Orphans []*Observation
	// Tiers records which tiers appear anywhere in the inputs.
	Tiers map[Tier]bool
}

// Correlator builds a Set from observations added in input order. The
// order of Add calls decides tie-breaks, so the same inputs always give the
// same Set.
type Correlator struct {
	// ScopeRoute and ScopeMethod add the route and method to each intent's
	// scope (see Config.Scope).
	ScopeRoute, ScopeMethod bool

	byID    map[string]*Delivery
	order   []*Delivery
	orphans []*Observation
	tiers   map[Tier]bool
}

// NewCorrelator makes an empty correlator configured from cfg.
func NewCorrelator(cfg *Config) *Correlator {
	c := &Correlator{byID: map[string]*Delivery{}, tiers: map[Tier]bool{}}
	if cfg != nil {
		for _, s := range cfg.Scope {
			c.ScopeRoute = c.ScopeRoute || s == "route"
			c.ScopeMethod = c.ScopeMethod || s == "method"
		}
	}
	return c
}

// Add attributes one observation to its delivery.
func (c *Correlator) Add(o *Observation) {
	c.tiers[o.Tier] = true
	id := o.RequestID
	synthetic := false
	if id == "" {
		switch {
		case o.ActivityID != "" && o.WorkflowID != "":
			// A workflow activity attempt is the worker's delivery.
			id = "activity:" + o.WorkflowID + "/" + o.ActivityID + "#" + itoa(o.Attempt)
		case o.Key != "" || o.KeyHash != "":
			id = o.Tier.String() + "@" + o.Source.String()
			synthetic = true
		default:
			if o.Effect {
				c.orphans = append(c.orphans, o)
			}
			return
		}
	}
	d := c.byID[id]
	if d == nil {
		d = &Delivery{RequestID: id, Synthetic: synthetic}
		c.byID[id] = d
		c.order = append(c.order, d)
	}
	d.Observations = append(d.Observations, o)
	if o.Key != "" {
		if d.Key == "" {
			d.Key = o.Key
		}
		if !contains(d.Keys, o.Key) {
			d.Keys = append(d.Keys, o.Key)
		}
	}
	if o.KeyHash != "" && d.KeyHash == "" {
		d.KeyHash = o.KeyHash
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// HashKey is the normalised identifier idem's canonical schema logs instead
// of a raw key: "sha256:" and the first 16 hex digits of its SHA-256.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return "sha256:" + hex.EncodeToString(sum[:8])
}

// Set groups the deliveries into intents and orders everything.
func (c *Correlator) Set(inputs []*Input) *Set {
	s := &Set{Inputs: inputs, Orphans: c.orphans, Tiers: c.tiers}
	// Learn which raw key each logged hash stands for.
	hashToKey := map[string]string{}
	for _, d := range c.order {
		if d.Key != "" {
			hashToKey[HashKey(d.Key)] = d.Key
			if d.KeyHash != "" {
				hashToKey[d.KeyHash] = d.Key
			}
		}
	}
	byIntent := map[string]*Intent{}
	var intents []*Intent
	for _, d := range c.order {
		sortObservations(d.Observations)
		key := d.Key
		if key == "" && d.KeyHash != "" {
			if k, ok := hashToKey[d.KeyHash]; ok {
				key = k
			} else {
				key = "hash:" + d.KeyHash
			}
			d.Key = key
		}
		if key == "" {
			s.Unkeyed = append(s.Unkeyed, d)
			continue
		}
		scope := c.scopeOf(d)
		id := key
		if scope != "" {
			id = scope + "|" + key
		}
		in := byIntent[id]
		if in == nil {
			in = &Intent{ID: id, Key: key, Scope: scope}
			byIntent[id] = in
			intents = append(intents, in)
		}
		in.Deliveries = append(in.Deliveries, d)
	}
	for _, in := range intents {
		sort.SliceStable(in.Deliveries, func(i, j int) bool {
			return in.Deliveries[i].Start().Before(in.Deliveries[j].Start())
		})
	}
	sort.SliceStable(intents, func(i, j int) bool {
		a, b := intents[i].Start(), intents[j].Start()
		if !a.Equal(b) {
			return a.Before(b)
		}
		return intents[i].ID < intents[j].ID
	})
	s.Intents = intents
	return s
}

func (c *Correlator) scopeOf(d *Delivery) string {
	var parts []string
	for _, o := range d.Observations {
		if o.Scope != "" {
			parts = append(parts, o.Scope)
			break
		}
	}
	if c.ScopeMethod {
		parts = append(parts, "method="+d.Method())
	}
	if c.ScopeRoute {
		parts = append(parts, "route="+d.Route())
	}
	return strings.Join(parts, ",")
}

// sortObservations orders a delivery's observations by tier, then time,
// then source order.
func sortObservations(obs []*Observation) {
	sort.SliceStable(obs, func(i, j int) bool {
		a, b := obs[i], obs[j]
		if a.Tier != b.Tier {
			return a.Tier < b.Tier
		}
		return a.Time.Before(b.Time)
	})
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

// FindIntent returns the intent for key (matching the raw key, or the
// hash form), or nil.
func (s *Set) FindIntent(key string) []*Intent {
	key = NormalizeKey(key)
	var out []*Intent
	for _, in := range s.Intents {
		if in.Key == key || in.Key == "hash:"+key || strings.TrimPrefix(in.Key, "hash:") == HashKey(key) {
			out = append(out, in)
		}
	}
	return out
}

// Related returns intents under other keys whose deliveries share a
// fingerprint (at the same tier) with in: candidates for a retry that did
// not carry the first key.
func (s *Set) Related(in *Intent) []*Intent {
	mine := map[string]bool{}
	for _, d := range in.Deliveries {
		for t, fp := range d.Fingerprints() {
			mine[t.String()+fp] = true
		}
	}
	if len(mine) == 0 {
		return nil
	}
	var out []*Intent
	for _, other := range s.Intents {
		if other == in {
			continue
		}
	found:
		for _, d := range other.Deliveries {
			for t, fp := range d.Fingerprints() {
				if mine[t.String()+fp] {
					out = append(out, other)
					break found
				}
			}
		}
	}
	return out
}

// Load reads the inputs and correlates them in one call.
func Load(ctx context.Context, paths []string, opts Options) (*Set, error) {
	c := NewCorrelator(opts.Config)
	inputs, err := Read(ctx, paths, opts, c.Add)
	if err != nil {
		return nil, err
	}
	return c.Set(inputs), nil
}
