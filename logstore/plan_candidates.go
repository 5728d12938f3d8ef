package logstore

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"time"
)

// planner asks a store, through its dialect, what a diagnosis needs:
// phase 1's candidates, then, a round at a time, phase 2's lines. It
// keeps what phase 1 learnt of the store's fields for phase 2.
type planner struct {
	r   Reader
	lim Limits
	// followUp is how long after a failure its client's requests are
	// fetched (Collect's near; NearWindow at the least).
	followUp time.Duration
	// fields tie records together (keys, request ids), from Candidates.
	fields  map[string]bool
	rawKeys []string
	methods []string
	// nearDropped counts records fetched near failures and dropped.
	nearDropped int64
	// secretsFetched: every line marked with a secret came in phase 2.
	secretsFetched bool
}

func newPlanner(r Reader) *planner { return &planner{r: r, fields: map[string]bool{}} }

// Candidates runs phase 1: the store counts and groups, and only the
// grouped answers leave it (see storeFields.groups), and the lost writes
// are listed with their clients, for the rules that look at what the
// same client sent next.
func (p *planner) Candidates(ctx context.Context, w Window) (*Candidates, error) {
	p.lim = p.r.Limits()
	sf, err := readStoreFields(ctx, p.r, w)
	if err != nil {
		return nil, err
	}
	c := &Candidates{Selection: Selection{Values: map[string][]string{}, At: map[string]time.Time{}, Last: map[string]time.Time{}}}
	seen := map[string]bool{}
	add := func(f, val string) {
		if val == "" || seen[f+"\x00"+val] {
			return
		}
		seen[f+"\x00"+val] = true
		c.Values[f] = append(c.Values[f], val)
	}
	parts := 1
	if p.lim.GroupLines > 0 {
		n, err := p.r.Count(ctx, All{}, w)
		if err != nil {
			return nil, err
		}
		parts = int(min((n+p.lim.GroupLines-1)/p.lim.GroupLines, 64))
	}
	for _, g := range sf.groups() {
		for part := range max(parts, 1) {
			g.Part = Part{Field: g.By[0], Index: part, Of: parts}
			c.Queries = append(c.Queries, p.r.Show(g))
			err := p.r.Run(ctx, g, w, func(r Record) error {
				n, _ := strconv.ParseInt(r["c"], 10, 64)
				c.Matched += n
				t, _ := time.Parse(time.RFC3339Nano, r["t"])
				u, _ := time.Parse(time.RFC3339Nano, r["u"])
				for _, f := range g.By {
					add(f, r[f])
					if val := r[f]; val != "" && !t.IsZero() && !u.IsZero() {
						id := f + "\x00" + val
						if old, ok := c.At[id]; !ok || t.Before(old) {
							c.At[id] = t
						}
						if old, ok := c.Last[id]; !ok || u.After(old) {
							c.Last[id] = u
						}
					}
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
	}
	if q, ok := sf.lostWrites(); ok {
		c.Queries = append(c.Queries, p.r.Show(q))
		near := map[string]bool{}
		err := p.r.Run(ctx, q, w, func(r Record) error {
			c.Matched++
			keyed := false
			for _, f := range sf.rawKeys {
				keyed = keyed || r[f] != ""
			}
			for _, f := range sf.rids {
				if !keyed { // a keyed delivery comes by its key
					add(f, r[f])
				}
			}
			nr, ok := sf.near(r)
			nr.Within = p.followUp
			if id := nr.Field + "\x00" + nr.Value + "\x00" + r["_time"]; ok && !near[id] {
				near[id] = true
				c.Near = append(c.Near, nr)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if sf.secret {
		// Every line with a credential or a body: the rule counts them all.
		add(FieldSecret, "1")
		c.Queries = append(c.Queries, p.r.Show(secretLines))
	}
	p.fields, p.rawKeys, p.methods = map[string]bool{}, sf.rawKeys, sf.methods
	if sf.activity {
		p.fields[FieldActivity] = true
	}
	for _, l := range [][]string{sf.keys, sf.rids} {
		for _, f := range l {
			if !slices.Contains(sf.rawKeys, f) {
				p.fields[f] = true
			}
		}
	}
	if len(p.fields) > 0 && len(sf.rawKeys) > 0 {
		// Following request ids to lines without a key (a server's
		// effect line, a worker's completion) is needed only where the
		// store has such lines; reads (GET) are never a key's.
		q := append(And{anySet(slices.Sorted(maps.Keys(p.fields))), Not{anySet(sf.rawKeys)}}, notReads(sf.methods)...)
		n, err := p.r.Count(ctx, q, w)
		if err != nil {
			return nil, err
		}
		c.Queries = append(c.Queries, p.r.Show(Lines{Filter: q}))
		if n == 0 {
			p.fields = map[string]bool{}
		}
	}
	// A line found near a failure brings its key: that key's lines on
	// other tiers come in the next round.
	for _, f := range sf.rawKeys {
		p.fields[f] = true
	}
	return c, nil
}

// near reads a lost write's line: its client, method and route, and its
// own key, whose lines come by the key. A line without a time or a
// client is none.
func (sf *storeFields) near(r Record) (Near, bool) {
	t, err := time.Parse(time.RFC3339Nano, r["_time"])
	if err != nil {
		return Near{}, false
	}
	nr := Near{Time: t, Also: map[string]string{}}
	for _, f := range sf.clients {
		if val := r[f]; val != "" {
			nr.Field, nr.Value = f, val
			break
		}
	}
	for _, l := range [][]string{sf.methods, sf.routes} {
		for _, f := range l {
			if val := r[f]; val != "" {
				nr.Also[f] = val
				break
			}
		}
	}
	for _, f := range sf.rawKeys {
		if val := r[f]; val != "" {
			nr.Not = map[string]string{f: val}
			break
		}
	}
	return nr, nr.Field != ""
}

// JoinFields are the store's fields that tie records together (keys, key
// hashes, request ids), known once Candidates has run.
func (p *planner) JoinFields() []string { return slices.Sorted(maps.Keys(p.fields)) }

// RawKeyFields are the store's fields that hold a raw key (not a hash).
func (p *planner) RawKeyFields() []string { return p.rawKeys }
