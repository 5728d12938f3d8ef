package logstore

import (
	"context"
	"maps"
	"slices"
	"sort"
	"time"
)

// A fetch is one phase 2 request: the lines q asks for within w. One
// for failures' clients brings more than it keeps: of its lines, only
// what one of the failures in near (by the client's value of field) sent
// next.
type fetch struct {
	q     Lines
	w     Window
	field string
	near  map[string][]Near
}

// Fetch runs phase 2 for sel within w, a request per fetch, and hands
// each line kept to each.
func (p *planner) Fetch(ctx context.Context, sel Selection, w Window, each func(Record) error) error {
	for _, f := range p.fetches(sel, w) {
		keep := each
		if f.near != nil {
			keep = func(r Record) error {
				if t, err := time.Parse(time.RFC3339Nano, r["_time"]); err == nil {
					for _, nr := range f.near[r[f.field]] {
						if nr.matches(r, t) {
							return each(r)
						}
					}
				}
				p.nearDropped++
				return nil
			}
		}
		if err := p.r.Run(ctx, f.q, f.w, keep); err != nil {
			return err
		}
	}
	return nil
}

// fetches are phase 2's requests for sel, in the order they are made: the
// lines with a secret (once), the other lines of values some of whose
// lines are kept, the values phase 1 timed, those it did not, and what
// failures' clients sent next. Each asks for lines no other brings, and
// each is under the store's query limit (explicit lists longer than
// that are refused).
func (p *planner) fetches(sel Selection, w Window) []fetch {
	p.lim = p.r.Limits()
	var out []fetch
	if slices.Contains(sel.Values[FieldSecret], "1") && !p.secretsFetched {
		// Every line with a credential or a body first, and then no
		// other query brings one of them again.
		out = append(out, fetch{q: secretLines, w: w})
		p.secretsFetched = true
	}
	// Values whose first time phase 1 knows go in time order, each query
	// bounded to the times of its values (widened as w is): the store
	// reads that slice only, not its whole window once per query. The
	// fields go together, so that a line with two of the values (a
	// server's key hash and request id) comes once.
	var timed []keySpan
	untimed := map[string][]string{}
	for _, f := range sortedFields(sel.Values) {
		if f == FieldSecret {
			continue
		}
		var held []string
		for _, val := range sel.Values[f] {
			id := f + "\x00" + val
			switch {
			case len(sel.Have[id]) > 0:
				held = append(held, val)
			case sel.At[id].IsZero():
				untimed[f] = append(untimed[f], val)
			default:
				timed = append(timed, keySpan{f, val, sel.At[id], sel.Last[id]})
			}
		}
		out = p.held(out, f, held, sel, w)
	}
	clause := func(f string, vals []string) Filter { return p.clause(sel, f, vals) }
	// What the values fetched over the whole window bring is left out of
	// the others' queries, where it is short enough to repeat.
	var excl And
	for _, f := range sortedFields(untimed) {
		excl = append(excl, Not{clause(f, untimed[f])})
	}
	exclSize := 0
	if len(excl) > 0 {
		exclSize = p.size(excl) + 1
	}
	if exclSize > p.lim.QueryBytes/4 {
		excl, exclSize = nil, 0
	}
	sort.SliceStable(timed, func(i, j int) bool { return timed[i].at.Before(timed[j].at) })
	for len(timed) > 0 {
		n, size := 0, exclSize
		byField := map[string][]string{}
		// From the first value's first line to the last line of any.
		qw := Window{Start: timed[0].at, End: timed[0].at}
		for n < len(timed) && timed[n].at.Sub(timed[0].at) < valueSpan {
			it := timed[n]
			add := len(it.val) + 4
			if _, ok := byField[it.f]; !ok {
				add += len(it.f) + 200 // the field's list and what it leaves out
			}
			if n > 0 && size+add >= p.lim.QueryBytes {
				break
			}
			size += add
			byField[it.f] = append(byField[it.f], it.val)
			for _, t := range []time.Time{it.at, it.last} {
				if t.After(qw.End) {
					qw.End = t
				}
			}
			n++
		}
		var or Or
		for _, f := range sortedFields(byField) {
			or = append(or, clause(f, byField[f]))
		}
		var q Filter = or
		if len(excl) > 0 {
			q = append(And{or}, excl...)
		}
		out = append(out, p.fetch(q, qw.Widen(sel.Widen).Within(w)))
		timed = timed[n:]
	}
	// The untimed values, over the whole window, their clauses packed
	// into as few queries as fit.
	var clauses []Filter
	for _, f := range sortedFields(untimed) {
		vals := untimed[f]
		for len(vals) > 0 {
			n := p.batch(len(f)+8, vals)
			clauses = append(clauses, clause(f, vals[:n]))
			vals = vals[n:]
		}
	}
	for len(clauses) > 0 {
		n, size := 0, 0
		for n < len(clauses) && (n == 0 || size+p.size(Or{clauses[n]})+4 < p.lim.QueryBytes) {
			size += p.size(Or{clauses[n]}) + 4
			n++
		}
		out = append(out, p.fetch(Or(clauses[:n]), w))
		clauses = clauses[n:]
	}
	// The values fetched above (every line of each), for the neighbour
	// queries to leave out.
	var byKey []keySpan
	always := map[string][]string{}
	for _, f := range sortedFields(sel.Values) {
		if f == FieldSecret || len(sel.Unkeyed) > 0 && !slices.Contains(sel.Unkeyed, f) {
			continue
		}
		for _, val := range sel.Values[f] {
			if len(sel.Have[f+"\x00"+val]) > 0 {
				continue // its other lines only
			}
			at, last := sel.At[f+"\x00"+val], sel.Last[f+"\x00"+val]
			if at.IsZero() {
				always[f] = append(always[f], val) // fetched over the whole window
				continue
			}
			if last.Before(at) {
				last = at
			}
			byKey = append(byKey, keySpan{f, val, at, last})
		}
	}
	return p.near(out, sel.Near, byKey, always, w)
}

// valueSpan bounds the first times of the values one query asks for.
const valueSpan = 30 * time.Minute

// keySpan is a value (a key, a request id), and its first and last lines
// in phase 1's window.
type keySpan struct {
	f, val   string
	at, last time.Time
}

// held fetches the other lines of values some of whose lines are kept
// already. An exported line is excluded by the file and line it was loaded
// from; where a kept line was loaded by something else, the store counts
// each value's lines first, in the same query, and a value with no more
// lines than are kept is not fetched.
func (p *planner) held(out []fetch, f string, vals []string, sel Selection, w Window) []fetch {
	have := sel.Have
	restricted := len(sel.Unkeyed) > 0 && !slices.Contains(sel.Unkeyed, f)
	var exact, plain []string
	counted := map[int][]string{}
	for _, val := range vals {
		hs := have[f+"\x00"+val]
		known := true
		for _, h := range hs {
			known = known && h.File != "" && h.Line != ""
		}
		switch {
		case known:
			exact = append(exact, val)
		case restricted:
			// The store would count the lines the restriction keeps,
			// and the kept ones are not all of those: all of them.
			plain = append(plain, val)
		default:
			counted[len(hs)] = append(counted[len(hs)], val)
		}
	}
	for len(plain) > 0 {
		n := p.batch(len(f)+200, plain)
		out = append(out, p.fetch(Or{p.clause(sel, f, plain[:n])}, w))
		plain = plain[n:]
	}
	for len(exact) > 0 {
		n, size := 0, len(f)+16
		skip := map[string][]string{}
		for n < len(exact) {
			hs := have[f+"\x00"+exact[n]]
			add := len(exact[n]) + 4
			for _, h := range hs {
				add += len(h.Line) + 4
				if _, ok := skip[h.File]; !ok {
					add += len(h.File) + 40
				}
			}
			if n > 0 && size+add >= p.lim.QueryBytes {
				break
			}
			for _, h := range hs {
				skip[h.File] = append(skip[h.File], h.Line)
			}
			size += add
			n++
		}
		q := And{p.clause(sel, f, exact[:n])}
		files := make([]string, 0, len(skip))
		for file := range skip {
			files = append(files, file)
		}
		sort.Strings(files)
		for _, file := range files {
			q = append(q, Not{And{Eq{FieldFile, file}, In{FieldLine, skip[file]}}})
		}
		out = append(out, p.fetch(q, w))
		exact = exact[n:]
	}
	counts := make([]int, 0, len(counted))
	for h := range counted {
		counts = append(counts, h)
	}
	sort.Ints(counts)
	for _, h := range counts {
		vals := counted[h]
		for len(vals) > 0 {
			// The field is named three times and the scope repeated in
			// the count's subquery.
			n := p.batch(3*len(f)+p.lim.ScopeBytes+80, vals)
			out = append(out, p.fetch(Member{Field: f, Lines: In{f, vals[:n]}, By: []string{f}, Over: h}, w))
			vals = vals[n:]
		}
	}
	return out
}

// batch returns how many of vals (at least one) fit in a query of
// overhead bytes besides them, each value quoted with a comma.
func (p *planner) batch(overhead int, vals []string) int {
	n, size := 0, overhead
	for n < len(vals) && (n == 0 || size+len(vals[n])+4 < p.lim.QueryBytes) {
		size += len(vals[n]) + 4
		n++
	}
	return n
}

// secretLines are the lines marked with a secret.
var secretLines = Lines{Filter: Eq{FieldSecret, "1"}}

// fetch asks for the lines filter selects within w, without those with a
// secret once those were all fetched.
func (p *planner) fetch(filter Filter, w Window) fetch {
	q := Lines{Filter: filter}
	if p.secretsFetched {
		q.Except = secretLines.Filter
	}
	return fetch{q: q, w: w}
}

// size is how long filter is as the store's dialect writes it.
func (p *planner) size(filter Filter) int { return len(p.r.Show(Lines{Filter: filter})) }

// clause asks for the lines with one of the values of f, only those
// without a raw key where the selection says so.
func (p *planner) clause(sel Selection, f string, vals []string) Filter {
	if len(sel.Unkeyed) > 0 && !slices.Contains(sel.Unkeyed, f) {
		return append(And{In{f, vals}, Not{anySet(sel.Unkeyed)}}, notReads(p.methods)...)
	}
	return In{f, vals}
}

func sortedFields(m map[string][]string) []string {
	set := map[string]bool{}
	for k := range m {
		set[k] = true
	}
	return slices.Sorted(maps.Keys(set))
}
