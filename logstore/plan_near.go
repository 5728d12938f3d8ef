package logstore

import (
	"maps"
	"slices"
	"sort"
	"time"
)

// nearSpan bounds the time one neighbour query spans.
const nearSpan = 10 * time.Minute

// near fetches what each failure's client sent in the minute after it.
// Failures go in time order, a run of them at a time (at most nearSpan
// apart): one query of cheap filters over the run's clients, not their
// own keys (those lines come by the key), bounded to the time the run
// spans; what falls outside a failure's minute, method or route is
// dropped as it comes. A filter per failure, each with its own time
// range, costs the store a scan of the span per failure: on two million
// lines, two minutes instead of seconds.
func (p *planner) near(out []fetch, all []Near, byKey []keySpan, always map[string][]string, w Window) []fetch {
	sort.Slice(byKey, func(i, j int) bool { return byKey[i].at.Before(byKey[j].at) })
	var longest time.Duration
	for _, k := range byKey {
		longest = max(longest, k.last.Sub(k.at))
	}
	near := append([]Near(nil), all...)
	sort.SliceStable(near, func(i, j int) bool {
		if near[i].Field != near[j].Field {
			return near[i].Field < near[j].Field
		}
		return near[i].Time.Before(near[j].Time)
	})
	for len(near) > 0 {
		field := near[0].Field
		n, size := 0, 0
		seen := map[string]bool{}
		for n < len(near) && near[n].Field == field && (n == 0 || size < p.lim.QueryBytes*3/4 && near[n].Time.Sub(near[0].Time) < nearSpan) {
			for _, val := range append([]string{near[n].Value}, mapValues(near[n].Not)...) {
				if !seen[val] {
					seen[val] = true
					size += len(val) + 4
				}
			}
			n++
		}
		// A value fetched whole (the client's next write may be a
		// candidate itself) is left out: all of its lines in the window
		// came already. Where there are too many for one query, the
		// run of failures is cut shorter; a single failure with too many
		// such keys around it may bring one of their lines twice.
		var q Filter
		var byClient map[string][]Near
		var qw Window
		for {
			qw = Window{Start: near[0].Time, End: near[n-1].Time.Add(near[n-1].within())}.Within(w)
			not := map[string]map[string]bool{}
			byClient = map[string][]Near{}
			for _, nr := range near[:n] {
				byClient[nr.Value] = append(byClient[nr.Value], nr)
				for f, val := range nr.Not {
					addTo(not, f, val)
				}
			}
			q = p.nearFilter(field, byClient, not)
			fetched := keysIn(byKey, longest, qw)
			for f, vals := range always {
				fetched[f] = append(fetched[f], vals...)
			}
			for f, vals := range fetched {
				for _, val := range vals {
					addTo(not, f, val)
				}
			}
			full := p.nearFilter(field, byClient, not)
			if fits := p.size(full) < p.lim.QueryBytes; fits || n == 1 {
				if fits {
					q = full
				}
				break
			}
			n = max(n/2, 1)
		}
		f := p.fetch(q, qw)
		f.field, f.near = field, byClient
		out = append(out, f)
		near = near[n:]
	}
	return out
}

// nearFilter asks for the writes of the clients, not under the keys.
func (p *planner) nearFilter(field string, byClient map[string][]Near, not map[string]map[string]bool) And {
	clients := make([]string, 0, len(byClient))
	for c := range byClient {
		clients = append(clients, c)
	}
	sort.Strings(clients)
	q := And{In{field, clients}}
	for _, f := range p.methods {
		q = append(q, In{f, writeMethods})
	}
	for _, f := range slices.Sorted(maps.Keys(keysOf(not))) {
		q = append(q, Not{In{f, slices.Sorted(maps.Keys(not[f]))}})
	}
	return q
}

// keysIn returns, by field, the keys of spans whose lines overlap qw.
// spans are sorted by at; longest is the longest span.
func keysIn(spans []keySpan, longest time.Duration, qw Window) map[string][]string {
	out := map[string][]string{}
	i := sort.Search(len(spans), func(i int) bool { return spans[i].at.After(qw.End) })
	for i--; i >= 0 && !spans[i].at.Before(qw.Start.Add(-longest)); i-- {
		if !spans[i].last.Before(qw.Start) {
			out[spans[i].f] = append(out[spans[i].f], spans[i].val)
		}
	}
	return out
}

// matches reports whether r, written at t, is what nr's client sent next:
// within its horizon after it, by the same method and route.
func (nr *Near) matches(r Record, t time.Time) bool {
	if t.Before(nr.Time) || t.Sub(nr.Time) > nr.within() {
		return false
	}
	for f, val := range nr.Also {
		if r[f] != val {
			return false
		}
	}
	for f, val := range nr.Not {
		if r[f] == val {
			return false
		}
	}
	return true
}

func addTo(m map[string]map[string]bool, k, v string) {
	if m[k] == nil {
		m[k] = map[string]bool{}
	}
	m[k][v] = true
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

func keysOf(m map[string]map[string]bool) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}
