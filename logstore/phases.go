package logstore

import (
	"context"
	"sort"
	"strconv"
	"time"

	"github.com/idem-cli/idem/formats"
)

// failedStatuses are the statuses of a delivery whose client may retry:
// none (0, 499), a timeout, a conflict or an in-progress answer, a
// validation of the key, a rate limit; 5xx are added as a range.
var failedStatuses = []string{"0", "408", "409", "422", "425", "429", "499"}

// failedOutcomes are the outcomes (trace.Outcome names) of a lost
// response, as idem's canonical schema and export write them.
var failedOutcomes = []string{"timeout", "reset", "aborted", "client_closed", "upstream_timeout", "upstream_reset", "not_delivered", "error"}

// storeFields are the fields phase 1 and 2 ask about: the format
// registry's names for each, kept to those the store has.
type storeFields struct {
	keys, rids, status, outcome, decision, state, clients, fps, methods, routes []string
	rawKeys                                                                     []string // keys, not their hashes
	activity, secret                                                            bool     // fields an export adds
}

func (v *VictoriaLogs) storeFields(ctx context.Context, w Window) (*storeFields, error) {
	have, err := v.fieldNames(ctx, w)
	if err != nil {
		return nil, err
	}
	all := formats.AllFields()
	keep := func(lists ...[]string) []string {
		var out []string
		for _, l := range lists {
			for _, f := range l {
				if have[f] && !contains(out, f) {
					out = append(out, f)
				}
			}
		}
		return out
	}
	return &storeFields{keys: keep(all.Key, all.KeyHash), rids: keep(all.RequestID), status: keep(all.Status),
		outcome: keep(all.Outcome), decision: keep(all.Decision), state: keep(all.State),
		clients: keep(all.Client), fps: keep(all.Fingerprint),
		methods: keep(all.Method), routes: keep(all.Route), rawKeys: keep(all.Key), activity: have[FieldActivity], secret: have[FieldSecret]}, nil
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// failedFilter matches a delivery that failed or was answered as a
// conflict or in progress, by whichever fields the store has (nil: none).
func (sf *storeFields) failedFilter() Filter {
	var or Or
	for _, f := range sf.status {
		or = append(or, In{f, failedStatuses}, Range{f, 500, 599})
	}
	for _, f := range sf.outcome {
		or = append(or, In{f, failedOutcomes})
	}
	for _, f := range sf.decision {
		or = append(or, In{f, []string{"replay", "conflict", "in_progress"}})
	}
	for _, f := range sf.state {
		or = append(or, In{f, []string{"in_progress"}})
	}
	if len(or) == 0 {
		return nil
	}
	return or
}

// lostFilter matches a delivery whose response was lost: no status, a
// timeout, a proxy's 5xx for a server that did not answer in time.
func (sf *storeFields) lostFilter() Filter {
	var or Or
	for _, f := range sf.status {
		or = append(or, In{f, []string{"0", "408", "499"}}, Range{f, 500, 599})
	}
	for _, f := range sf.outcome {
		or = append(or, In{f, failedOutcomes})
	}
	if len(or) == 0 {
		return nil
	}
	return or
}

// writeMethods are the methods whose retry can duplicate an effect.
var writeMethods = []string{"POST", "PUT", "PATCH", "DELETE", "post", "put", "patch", "delete"}

// Candidates runs phase 1: LogsQL whose stats pipes run on the storage
// nodes, so only the grouped answers leave the store.
//   - keys with more than one delivery (request id);
//   - keys with any failed, conflicting or in-progress delivery;
//   - request ids that carried more than one key;
//   - payload fingerprints sent more than once;
//   - failed deliveries, keyed or not, with their client and request id,
//     for the rules that look at what the same client sent next.
func (v *VictoriaLogs) Candidates(ctx context.Context, w Window) (*Candidates, error) {
	sf, err := v.storeFields(ctx, w)
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
	run := func(q string, fields []string) error {
		c.Queries = append(c.Queries, q)
		return v.query(ctx, q, w, func(r Record) error {
			n, _ := strconv.ParseInt(r["c"], 10, 64)
			c.Matched += n
			t, _ := time.Parse(time.RFC3339Nano, r["t"])
			u, _ := time.Parse(time.RFC3339Nano, r["u"])
			for _, f := range fields {
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
	}
	parts := 1
	if v.GroupLines > 0 {
		n, err := v.count(ctx, All{}, w)
		if err != nil {
			return nil, err
		}
		parts = int(min((n+v.GroupLines-1)/v.GroupLines, 64))
	}
	group := func(g Group, fields []string) error {
		for part := range max(parts, 1) {
			g.Part = Part{Field: g.By[0], Index: part, Of: parts}
			if err := run(v.sql().query(g), fields); err != nil {
				return err
			}
		}
		return nil
	}
	// Every group keeps its lines' count and first and last times.
	count, first, last := Agg{Name: "c", Op: AggCount}, Agg{Name: "t", Op: AggFirst}, Agg{Name: "u", Op: AggLast}
	failed := sf.failedFilter()
	if len(sf.keys) > 0 {
		// Keys with more than one delivery or a failed one.
		g := Group{Lines: And{anySet(sf.keys)}, By: sf.keys, Also: failed, Aggs: []Agg{count}, Keep: []Above{{"c", 1}}}
		if len(sf.rids) > 0 {
			g.Aggs, g.Keep = append(g.Aggs, Agg{Name: "d", Op: AggDistinct, Fields: sf.rids}), []Above{{"d", 1}}
		}
		if failed != nil {
			g.Aggs, g.Keep = append(g.Aggs, Agg{Name: "f", Op: AggCountIf, If: failed}), append(g.Keep, Above{"f", 0})
		}
		g.Aggs = append(g.Aggs, first, last)
		if err := group(g, sf.keys); err != nil {
			return nil, err
		}
		if len(sf.rids) > 0 {
			// Request ids that carried more than one key.
			g := Group{Lines: And{anySet(sf.rids), anySet(sf.keys)}, By: sf.rids, Keep: []Above{{"k", 1}},
				Aggs: []Agg{count, {Name: "k", Op: AggDistinct, Fields: sf.keys}, first, last}}
			if err := group(g, sf.rids); err != nil {
				return nil, err
			}
		}
	}
	if len(sf.fps) > 0 {
		// Payloads sent more than once, under more than one request id
		// (or key).
		by := sf.rids
		if len(by) == 0 {
			by = sf.keys
		}
		g := Group{Lines: And{anySet(sf.fps)}, By: sf.fps, Keep: []Above{{"c", 1}}, Aggs: []Agg{count, first, last}}
		if len(by) > 0 {
			g.Keep, g.Aggs = []Above{{"d", 1}}, []Agg{count, {Name: "d", Op: AggDistinct, Fields: by}, first, last}
		}
		if err := group(g, sf.fps); err != nil {
			return nil, err
		}
	}
	if lost := sf.lostFilter(); lost != nil && len(sf.clients)+len(sf.rids) > 0 {
		// What a lost write's client sent next, by the same method and
		// route, is what the likely-retry rules compare it with.
		filter := And{lost}
		if len(sf.methods) > 0 {
			var or Or
			for _, f := range sf.methods {
				or = append(or, In{f, writeMethods})
			}
			filter = append(filter, or)
		}
		var fs []string
		for _, l := range [][]string{sf.clients, sf.rids, sf.methods, sf.routes, sf.rawKeys} {
			fs = append(fs, l...)
		}
		q := v.sql().query(Lines{Filter: filter, Fields: fs})
		c.Queries = append(c.Queries, q)
		near := map[string]bool{}
		err := v.query(ctx, q, w, func(r Record) error {
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
			t, err := time.Parse(time.RFC3339Nano, r["_time"])
			if err != nil {
				return nil
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
					// Its own key's lines come by the key.
					nr.Not = map[string]string{f: val}
					break
				}
			}
			id := nr.Field + "\x00" + nr.Value + "\x00" + r["_time"]
			if nr.Field != "" && !near[id] {
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
		c.Queries = append(c.Queries, v.sql().query(secretLines))
	}
	v.fields, v.rawKeys, v.methods = map[string]bool{}, sf.rawKeys, sf.methods
	if sf.activity {
		v.fields[FieldActivity] = true
	}
	for _, l := range [][]string{sf.keys, sf.rids} {
		for _, f := range l {
			if !contains(sf.rawKeys, f) {
				v.fields[f] = true
			}
		}
	}
	if len(v.fields) > 0 && len(sf.rawKeys) > 0 {
		// Following request ids to lines without a key (a server's
		// effect line, a worker's completion) is needed only where the
		// store has such lines; reads (GET) are never a key's.
		q := append(And{anySet(sortedKeys(v.fields)), Not{anySet(sf.rawKeys)}}, v.notReads()...)
		n, err := v.count(ctx, q, w)
		if err != nil {
			return nil, err
		}
		c.Queries = append(c.Queries, v.sql().query(Lines{Filter: q}))
		if n == 0 {
			v.fields = map[string]bool{}
		}
	}
	// A line found near a failure brings its key: that key's lines on
	// other tiers come in the next round.
	for _, f := range sf.rawKeys {
		v.fields[f] = true
	}
	return c, nil
}

// Fetch runs phase 2: the selection as filters, packed into queries the
// store accepts (explicit in(...) lists longer than its query limit are
// refused with HTTP 400), the records streamed back as JSON lines.
func (v *VictoriaLogs) Fetch(ctx context.Context, sel Selection, w Window, each func(Record) error) error {
	if contains(sel.Values[FieldSecret], "1") && !v.secretsFetched {
		// Every line with a credential or a body first, and then no
		// other query brings one of them again.
		if err := v.query(ctx, v.sql().query(secretLines), w, each); err != nil {
			return err
		}
		v.secretsFetched = true
	}
	// Values whose first time phase 1 knows go in time order, each query
	// bounded to the times of its values (widened as w is): the store
	// reads that slice only, not its whole window once per query. The
	// fields go together, so that a line with two of the values (a
	// server's key hash and request id) comes once.
	type item struct {
		f, val   string
		at, last time.Time
	}
	var timed []item
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
				timed = append(timed, item{f, val, sel.At[id], sel.Last[id]})
			}
		}
		if err := v.fetchHeld(ctx, f, held, sel, w, each); err != nil {
			return err
		}
	}
	clause := func(f string, vals []string) Filter { return v.clause(sel, f, vals) }
	// What the values fetched over the whole window bring is left out of
	// the others' queries, where it is short enough to repeat.
	var excl And
	for _, f := range sortedFields(untimed) {
		excl = append(excl, Not{clause(f, untimed[f])})
	}
	if len(excl) > 0 && len(v.sql().filter(excl, false))+1 > v.MaxQueryBytes/4 {
		excl = nil
	}
	sort.SliceStable(timed, func(i, j int) bool { return timed[i].at.Before(timed[j].at) })
	for len(timed) > 0 {
		n, size := 0, 0
		if len(excl) > 0 {
			size = len(v.sql().filter(excl, false)) + 1
		}
		byField := map[string][]string{}
		// From the first value's first line to the last line of any.
		qw := Window{Start: timed[0].at, End: timed[0].at}
		for n < len(timed) && timed[n].at.Sub(timed[0].at) < valueSpan {
			it := timed[n]
			add := len(it.val) + 4
			if _, ok := byField[it.f]; !ok {
				add += len(it.f) + 200 // the field's in(...) and what it leaves out
			}
			if n > 0 && size+add >= v.MaxQueryBytes {
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
		var q Filter
		var or Or
		for _, f := range sortedFields(byField) {
			or = append(or, clause(f, byField[f]))
		}
		q = or
		if len(excl) > 0 {
			q = append(And{or}, excl...)
		}
		if err := v.fetch(ctx, q, qw.Widen(sel.Widen).Within(w), each); err != nil {
			return err
		}
		timed = timed[n:]
	}
	var clauses []Filter
	for _, f := range sortedFields(untimed) {
		vals := untimed[f]
		for len(vals) > 0 {
			n, size := 0, len(f)+8
			for n < len(vals) && (n == 0 || size+len(vals[n])+4 < v.MaxQueryBytes) {
				size += len(vals[n]) + 4
				n++
			}
			clauses = append(clauses, clause(f, vals[:n]))
			vals = vals[n:]
		}
	}
	if err := v.run(ctx, clauses, w, each); err != nil {
		return err
	}
	// The values fetched above (every line of each), for the neighbour
	// queries to leave out.
	var byKey []keySpan
	always := map[string][]string{}
	for _, f := range sortedFields(sel.Values) {
		if f == FieldSecret || len(sel.Unkeyed) > 0 && !contains(sel.Unkeyed, f) {
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
	return v.fetchNear(ctx, sel.Near, byKey, always, w, each)
}

// keySpan is a value fetched whole (a key, a request id), and its first
// and last lines in phase 1's window.
type keySpan struct {
	f, val   string
	at, last time.Time
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

// fetchHeld fetches the other lines of values some of whose lines are kept
// already. An exported line is excluded by the file and line it was loaded
// from; where a kept line was loaded by something else, the store counts
// each value's lines first, in the same query, and a value with no more
// lines than are kept is not fetched.
func (v *VictoriaLogs) fetchHeld(ctx context.Context, f string, vals []string, sel Selection, w Window, each func(Record) error) error {
	have := sel.Have
	restricted := len(sel.Unkeyed) > 0 && !contains(sel.Unkeyed, f)
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
		n, size := 0, len(f)+200
		for n < len(plain) && (n == 0 || size+len(plain[n])+4 < v.MaxQueryBytes) {
			size += len(plain[n]) + 4
			n++
		}
		if err := v.fetch(ctx, Or{v.clause(sel, f, plain[:n])}, w, each); err != nil {
			return err
		}
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
			if n > 0 && size+add >= v.MaxQueryBytes {
				break
			}
			for _, h := range hs {
				skip[h.File] = append(skip[h.File], h.Line)
			}
			size += add
			n++
		}
		q := And{v.clause(sel, f, exact[:n])}
		files := make([]string, 0, len(skip))
		for file := range skip {
			files = append(files, file)
		}
		sort.Strings(files)
		for _, file := range files {
			q = append(q, Not{And{Eq{FieldFile, file}, In{FieldLine, skip[file]}}})
		}
		if err := v.fetch(ctx, q, w, each); err != nil {
			return err
		}
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
			n, size := 0, 3*len(f)+len(v.filter)+80
			for n < len(vals) && (n == 0 || size+len(vals[n])+4 < v.MaxQueryBytes) {
				size += len(vals[n]) + 4
				n++
			}
			q := Member{Field: f, Lines: In{f, vals[:n]}, By: []string{f}, Over: h}
			if err := v.fetch(ctx, q, w, each); err != nil {
				return err
			}
			vals = vals[n:]
		}
	}
	return nil
}

// secretLines are the lines marked with a secret.
var secretLines = Lines{Filter: Eq{FieldSecret, "1"}}

// fetch runs a phase 2 filter, without the lines with a secret when
// those were all fetched already.
func (v *VictoriaLogs) fetch(ctx context.Context, filter Filter, w Window, each func(Record) error) error {
	q := Lines{Filter: filter}
	if v.secretsFetched {
		q.Except = secretLines.Filter
	}
	return v.query(ctx, v.sql().query(q), w, each)
}

// clause asks for the lines with one of the values of f, only those
// without a raw key where the selection says so.
func (v *VictoriaLogs) clause(sel Selection, f string, vals []string) Filter {
	if len(sel.Unkeyed) > 0 && !contains(sel.Unkeyed, f) {
		return append(And{In{f, vals}, Not{anySet(sel.Unkeyed)}}, v.notReads()...)
	}
	return In{f, vals}
}

// fetchNear fetches what each failure's client sent in the minute after
// it. Failures go in time order, a run of them at a time (at most
// nearSpan apart): one query of cheap in(...) filters over the run's
// clients, not their own keys (those lines come by the key), bounded to
// the time the run spans; what falls outside a failure's minute, method
// or route is dropped here. A filter per failure, each with its own time
// range, costs the store a scan of the span per failure: on two million
// lines, two minutes instead of seconds.
func (v *VictoriaLogs) fetchNear(ctx context.Context, all []Near, byKey []keySpan, always map[string][]string, w Window, each func(Record) error) error {
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
		for n < len(near) && near[n].Field == field && (n == 0 || size < v.MaxQueryBytes*3/4 && near[n].Time.Sub(near[0].Time) < nearSpan) {
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
			qw = Window{Start: near[0].Time, End: near[n-1].Time.Add(NearWindow)}.Within(w)
			not := map[string]map[string]bool{}
			byClient = map[string][]Near{}
			for _, nr := range near[:n] {
				byClient[nr.Value] = append(byClient[nr.Value], nr)
				for f, val := range nr.Not {
					addTo(not, f, val)
				}
			}
			q = v.nearQuery(field, byClient, not)
			fetched := keysIn(byKey, longest, qw)
			for f, vals := range always {
				fetched[f] = append(fetched[f], vals...)
			}
			for f, vals := range fetched {
				for _, val := range vals {
					addTo(not, f, val)
				}
			}
			if full := v.nearQuery(field, byClient, not); len(v.sql().filter(full, false)) < v.MaxQueryBytes || n == 1 {
				if len(v.sql().filter(full, false)) < v.MaxQueryBytes {
					q = full
				}
				break
			}
			n = max(n/2, 1)
		}
		err := v.fetch(ctx, q, qw, func(r Record) error {
			if t, err := time.Parse(time.RFC3339Nano, r["_time"]); err == nil {
				for _, nr := range byClient[r[field]] {
					if nr.matches(r, t) {
						return each(r)
					}
				}
			}
			v.nearDropped++
			return nil
		})
		if err != nil {
			return err
		}
		near = near[n:]
	}
	return nil
}

// nearQuery asks for the writes of the clients, not under the keys.
func (v *VictoriaLogs) nearQuery(field string, byClient map[string][]Near, not map[string]map[string]bool) And {
	clients := make([]string, 0, len(byClient))
	for c := range byClient {
		clients = append(clients, c)
	}
	sort.Strings(clients)
	q := And{In{field, clients}}
	for _, f := range v.methods {
		q = append(q, In{f, writeMethods})
	}
	for _, f := range sortedKeys(keysOf(not)) {
		q = append(q, Not{In{f, sortedKeys(not[f])}})
	}
	return q
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

// valueSpan bounds the first times of the values one query asks for.
const valueSpan = 30 * time.Minute

// nearSpan bounds the time one neighbour query spans.
const nearSpan = 10 * time.Minute

func keysOf(m map[string]map[string]bool) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

// matches reports whether r, written at t, is what nr's client sent next:
// within NearWindow after it, by the same method and route.
func (nr *Near) matches(r Record, t time.Time) bool {
	if t.Before(nr.Time) || t.Sub(nr.Time) > NearWindow {
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

// NearDropped reports how many records fetched for failures' clients were
// dropped as outside their minute, method or route: they came over the
// wire all the same.
func (v *VictoriaLogs) NearDropped() int64 { return v.nearDropped }

// run packs clauses into queries under the store's length limit.
func (v *VictoriaLogs) run(ctx context.Context, clauses []Filter, w Window, each func(Record) error) error {
	for len(clauses) > 0 {
		n, size := 0, 0
		for n < len(clauses) && (n == 0 || size+len(v.sql().filter(Or{clauses[n]}, false))+4 < v.MaxQueryBytes) {
			size += len(v.sql().filter(Or{clauses[n]}, false)) + 4
			n++
		}
		if err := v.fetch(ctx, Or(clauses[:n]), w, each); err != nil {
			return err
		}
		clauses = clauses[n:]
	}
	return nil
}

// JoinFields are the store's fields that tie records together (keys, key
// hashes, request ids), known once Candidates has run.
func (v *VictoriaLogs) JoinFields() []string { return sortedKeys(v.fields) }

// notReads excludes reads, which carry no key and make no effect.
func (v *VictoriaLogs) notReads() []Filter {
	var out []Filter
	for _, f := range v.methods {
		out = append(out, Not{In{f, []string{"GET", "HEAD", "OPTIONS", "get", "head", "options"}}})
	}
	return out
}

// RawKeyFields are the store's fields that hold a raw key (not a hash).
func (v *VictoriaLogs) RawKeyFields() []string { return v.rawKeys }

func sortedFields(m map[string][]string) []string {
	set := map[string]bool{}
	for k := range m {
		set[k] = true
	}
	return sortedKeys(set)
}
