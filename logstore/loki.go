package logstore

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"net/url"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/idem-cli/idem/formats"
)

// lokiStore is the dialect of Grafana Loki's HTTP API, a Store. Phase 1's
// groupings are LogQL metric queries (/loki/api/v1/query, instant, over
// the window), phase 2's lines log queries (/loki/api/v1/query_range,
// forward, paged by time under Loki's limit of lines per query), both
// under a stream selector (loki_logql.go). /loki/api/v1/push loads, with
// the labels tier, format and service: a key or a request id is never a
// label (one stream a key would overwhelm the index); they stay in the
// line, which is the record idem export writes, as JSON.
type lokiStore struct {
	base     *url.URL
	name     string
	tenant   string
	selector string
	parser   string
	auth     func(*http.Request)
	client   *http.Client
	timeout  time.Duration
	// maxEntries is the lines one query_range asks for: Loki refuses more
	// than its max_entries_limit_per_query (5000 by default).
	maxEntries int
	// lookback opens a window without a start: Loki needs one, and
	// refuses a query longer than its max_query_length (721 h by default).
	lookback                         time.Duration
	maxAnswerBytes, maxAnswerRecords int64
	now                              func() time.Time

	mu     sync.Mutex
	loaded Window          // the times of the lines this client pushed
	known  map[string]bool // the store's fields, from Fields
}

var _ Store = (*lokiStore)(nil)

// defaultSelector selects the lines idem export loaded.
const defaultSelector = `{format=~".+"}`

func newLoki(u *url.URL, opts Options) (*lokiStore, error) {
	q := u.Query()
	scheme := "http"
	if u.Scheme == "loki+https" || q.Get("tls") == "1" || q.Get("tls") == "true" {
		scheme = "https"
	}
	if u.Host == "" {
		return nil, &AddressError{Addr: redactAddr(u.String()), Err: errors.New("no HOST:PORT")}
	}
	base := &url.URL{Scheme: scheme, Host: u.Host, Path: strings.TrimSuffix(u.Path, "/")}
	k := &lokiStore{base: base, name: "loki://" + u.Host + base.Path, tenant: q.Get("tenant"), parser: "json",
		timeout: opts.Timeout, maxEntries: 5000, lookback: 720 * time.Hour, now: time.Now,
		maxAnswerBytes: opts.MaxAnswerBytes, maxAnswerRecords: opts.MaxAnswerRecords}
	if p := q.Get("parser"); p != "" {
		if p != "json" && p != "logfmt" {
			return nil, &AddressError{Addr: k.name, Err: fmt.Errorf("parser is json or logfmt, not %q", p)}
		}
		k.parser = p
	}
	for _, b := range []struct {
		param string
		to    *int64
	}{{"max_answer_bytes", &k.maxAnswerBytes}, {"max_answer_records", &k.maxAnswerRecords}} {
		if s := q.Get(b.param); s != "" {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil || n < 1 {
				return nil, &AddressError{Addr: k.name, Err: fmt.Errorf("%s is a number of at least 1, not %q", b.param, s)}
			}
			*b.to = n
		}
	}
	if s := q.Get("max_entries"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 2 {
			return nil, &AddressError{Addr: k.name, Err: fmt.Errorf("max_entries is a number of at least 2, not %q", s)}
		}
		k.maxEntries = n
	}
	if s := q.Get("lookback"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return nil, &AddressError{Addr: k.name, Err: fmt.Errorf("lookback is a duration such as 168h, not %q", s)}
		}
		k.lookback = d
	}
	if k.maxAnswerBytes <= 0 {
		k.maxAnswerBytes = defaultMaxAnswerBytes
	}
	if k.maxAnswerRecords <= 0 {
		k.maxAnswerRecords = defaultMaxAnswerRecords
	}
	k.selector = strings.TrimSpace(opts.Selector)
	if k.selector == "" {
		k.selector = defaultSelector
	}
	if !strings.HasPrefix(k.selector, "{") || !strings.HasSuffix(k.selector, "}") {
		return nil, &AddressError{Addr: k.name, Err: fmt.Errorf("the selector is a LogQL stream selector such as {app=\"payments\"}, not %q", k.selector)}
	}
	k.auth = authFrom(opts.Getenv)
	k.client = storeClient()
	return k, nil
}

// authFrom reads the credentials from the environment only:
// IDEM_LOGSTORE_TOKEN (bearer), or IDEM_LOGSTORE_USER and
// IDEM_LOGSTORE_PASSWORD (basic).
func authFrom(getenv func(string) string) func(*http.Request) {
	if getenv == nil {
		return func(*http.Request) {}
	}
	token, user, pass := getenv("IDEM_LOGSTORE_TOKEN"), getenv("IDEM_LOGSTORE_USER"), getenv("IDEM_LOGSTORE_PASSWORD")
	switch {
	case token != "":
		return func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) }
	case user != "":
		return func(r *http.Request) { r.SetBasicAuth(user, pass) }
	}
	return func(*http.Request) {}
}

// storeClient is an HTTP client that follows no redirect and uses no
// proxy from the environment: credentials go only where the user pointed
// them.
func storeClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	tr.Proxy = nil
	return &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// Name is the store's address, without credentials.
func (k *lokiStore) Name() string { return k.name }

// Limits: Loki has no bound on a query's length but what a request
// carries; long alternations cost its regular expressions, so queries
// stay near VictoriaLogs'. Groupings are one query each, by the keys'
// counts: Loki has no hash to split them by.
func (k *lokiStore) Limits() Limits { return Limits{QueryBytes: 12 << 10, ScopeBytes: len(k.selector)} }

func (k *lokiStore) ql() *logql { return newLogQL(k.selector, k.parser) }

// bounds makes w's open ends concrete: now, and the earliest line this
// client pushed or lookback before the end.
func (k *lokiStore) bounds(w Window) Window {
	k.mu.Lock()
	loaded := k.loaded
	k.mu.Unlock()
	if w.End.IsZero() {
		w.End = k.now()
		if !loaded.End.IsZero() && loaded.End.After(w.End) {
			w.End = loaded.End
		}
	}
	if w.Start.IsZero() {
		w.Start = w.End.Add(-k.lookback)
		if !loaded.Start.IsZero() && loaded.Start.Before(w.Start) {
			w.Start = loaded.Start
		}
	}
	return w
}

// Show writes q in LogQL, as sent: a Group as its aggregates' queries,
// one a line; a Member as the values it stands for where they are
// known (a list), else as the subquery's filter.
func (k *lokiStore) Show(q Query) string {
	l := k.ql()
	w := Window{Start: time.Unix(0, 0), End: time.Unix(3600, 0)}
	switch q := q.(type) {
	case Lines:
		s, _ := k.linesQuery(l, q, k.shown(k.linesFilter(q)))
		return s
	case Group:
		qs, _ := k.groupQueries(l, q, k.shown(q.Lines), w)
		return l.finish(strings.Join(qs, "; "))
	}
	return fmt.Sprintf("%T", q)
}

// shown replaces each Member by the values it stands for when those are
// a list (what phase 2 asks), else by its lines' filter.
func (k *lokiStore) shown(f Filter) Filter {
	return mapMembers(f, func(m Member) Filter {
		if in, ok := m.Lines.(In); ok && in.Field == m.Field {
			return in
		}
		return m.Lines
	})
}

func (k *lokiStore) linesFilter(q Lines) Filter {
	if q.Except == nil {
		return q.Filter
	}
	return And{q.Filter, Not{q.Except}}
}

// mapMembers rebuilds f with each Member replaced by fn's filter.
func mapMembers(f Filter, fn func(Member) Filter) Filter {
	switch f := f.(type) {
	case Member:
		return fn(f)
	case Not:
		return Not{mapMembers(f.Filter, fn)}
	case And:
		out := make(And, len(f))
		for i, x := range f {
			out[i] = mapMembers(x, fn)
		}
		return out
	case Or:
		out := make(Or, len(f))
		for i, x := range f {
			out[i] = mapMembers(x, fn)
		}
		return out
	}
	return f
}

// resolve asks the store for the values of each Member (a metric query by
// the field, kept above Over lines when By is set) and puts them in its
// place as an In: LogQL has no subquery.
func (k *lokiStore) resolve(ctx context.Context, f Filter, w Window) (Filter, error) {
	var err error
	out := mapMembers(f, func(m Member) Filter {
		if err != nil {
			return never2
		}
		if m.Part.Of >= 2 {
			err = errors.New("logstore: Loki has no partitions by hash")
			return never2
		}
		by := m.By
		if len(by) == 0 {
			by = []string{m.Field}
		} else if !slices.Contains(by, m.Field) {
			err = fmt.Errorf("logstore: a Member by %v of %s", by, m.Field)
			return never2
		}
		inner, e := k.resolve(ctx, m.Lines, w)
		if e != nil {
			err = e
			return never2
		}
		l := k.ql()
		c := l.cond(And{inner, Set{m.Field}}, false)
		s, ok := l.metric(c)
		if !ok {
			return never2
		}
		q := "sum by " + l.byList(by) + " (count_over_time(" + s + " " + rangeOf(w) + "))"
		if len(m.By) > 0 {
			q += " > " + strconv.Itoa(m.Over)
		}
		var vals []string
		seen := map[string]bool{}
		e = k.instant(ctx, l.finish(q), w, func(metric map[string]string, _ float64) {
			if v := metric[l.name(m.Field)]; v != "" && !seen[v] {
				seen[v] = true
				vals = append(vals, v)
			}
		})
		if e != nil {
			err = e
			return never2
		}
		sort.Strings(vals)
		return In{m.Field, vals}
	})
	return out, err
}

// never2 is a filter that selects nothing.
var never2 = In{Field: "_", Values: nil}

// Run asks a Group or a Lines in LogQL.
func (k *lokiStore) Run(ctx context.Context, q Query, w Window, each func(Record) error) error {
	w = k.bounds(w)
	switch q := q.(type) {
	case Group:
		return k.group(ctx, q, w, each)
	case Lines:
		return k.lines(ctx, q, w, each)
	}
	return fmt.Errorf("logstore: no LogQL for %T", q)
}

// groupQueries writes a Group's aggregates, each kept to the groups Keep
// holds for; ok is false when its lines are none.
func (k *lokiStore) groupQueries(l *logql, g Group, lines Filter, w Window) ([]string, bool) {
	base := l.cond(lines, false)
	if base.never {
		return nil, false
	}
	byName := map[string]Agg{}
	for _, a := range g.Aggs {
		byName[a.Name] = a
	}
	var keep []string
	for _, kp := range g.Keep {
		a, ok := byName[kp.Agg]
		if !ok {
			continue
		}
		if s, ok := l.aggregate(a, g.By, base, w); ok {
			keep = append(keep, "("+s+" > "+strconv.Itoa(kp.N)+")")
		}
	}
	if len(keep) == 0 {
		return nil, false
	}
	kept := strings.Join(keep, " or ")
	out := make([]string, 0, len(g.Aggs))
	for _, a := range g.Aggs {
		s, ok := l.aggregate(a, g.By, base, w)
		if !ok {
			s = "vector(0) < 0" // none: the answer has no group
		}
		out = append(out, "("+s+") and ("+kept+")")
	}
	return out, true
}

// group runs a Group: a metric query an aggregate, each by the group's
// fields, joined here. Counts missing from an aggregate's answer are 0
// (LogQL gives no series for a group without such lines).
func (k *lokiStore) group(ctx context.Context, g Group, w Window, each func(Record) error) error {
	if g.Part.Of >= 2 {
		return errors.New("logstore: Loki has no partitions by hash")
	}
	lines, err := k.resolve(ctx, g.Lines, w)
	if err != nil {
		return err
	}
	l := k.ql()
	qs, ok := k.groupQueries(l, g, lines, w)
	if !ok {
		return nil
	}
	recs := map[string]Record{}
	var order []string
	for i, a := range g.Aggs {
		err := k.instant(ctx, l.finish(qs[i]), w, func(metric map[string]string, v float64) {
			var id strings.Builder
			for _, f := range g.By {
				id.WriteString(metric[l.name(f)])
				id.WriteByte(0)
			}
			r := recs[id.String()]
			if r == nil {
				r = Record{}
				for _, f := range g.By {
					r[f] = metric[l.name(f)]
				}
				recs[id.String()] = r
				order = append(order, id.String())
			}
			switch a.Op {
			case AggFirst, AggLast:
				r[a.Name] = w.Start.Add(time.Duration(int64(v))).UTC().Format(time.RFC3339Nano)
			default:
				r[a.Name] = strconv.FormatInt(int64(math.Round(v)), 10)
			}
		})
		if err != nil {
			return err
		}
	}
	sort.Strings(order)
	for _, id := range order {
		r := recs[id]
		for _, a := range g.Aggs {
			if _, ok := r[a.Name]; !ok && a.Op != AggFirst && a.Op != AggLast {
				r[a.Name] = "0"
			}
		}
		if err := each(r); err != nil {
			return err
		}
	}
	return nil
}

// Count reports how many records f selects within w.
func (k *lokiStore) Count(ctx context.Context, f Filter, w Window) (int64, error) {
	w = k.bounds(w)
	f, err := k.resolve(ctx, f, w)
	if err != nil {
		return 0, err
	}
	l := k.ql()
	s, ok := l.metric(l.cond(f, false))
	if !ok {
		return 0, nil
	}
	var n int64
	err = k.instant(ctx, l.finish("sum(count_over_time("+s+" "+rangeOf(w)+"))"), w, func(_ map[string]string, v float64) {
		n = int64(math.Round(v))
	})
	return n, err
}

// Fields reads which of the fields idem's formats name (and an export
// adds) the lines within w have: one metric query by a label per field
// that says whether a line has it, so the answer is one series per
// combination of fields the lines have (a few per format), not per line.
func (k *lokiStore) Fields(ctx context.Context, w Window) (map[string]bool, error) {
	w = k.bounds(w)
	l := k.ql()
	var names []string
	all := formats.AllFields()
	for _, list := range [][]string{all.Key, all.KeyHash, all.RequestID, all.Status, all.Outcome, all.Decision, all.State,
		all.Client, all.Fingerprint, all.Method, all.Route, all.Body,
		{FieldFile, FieldLine, FieldFormat, FieldRun, FieldActivity, FieldSecret, FieldRetried, fieldTier}} {
		for _, f := range list {
			if !slices.Contains(names, f) {
				names = append(names, f)
				l.name(f)
			}
		}
	}
	var set []string
	for _, f := range names {
		a := l.name(f)
		set = append(set, a+"=`{{ if ."+a+" }}1{{ end }}`")
	}
	s, _ := l.metric(always)
	q := "sum by " + l.byList(names) + " (count_over_time(" + s + " | label_format " + strings.Join(set, ", ") + " " + rangeOf(w) + "))"
	out := map[string]bool{}
	err := k.instant(ctx, l.finish(q), w, func(metric map[string]string, _ float64) {
		for a, v := range metric {
			if f := l.fields[a]; f != "" && v != "" {
				out[f] = true
			}
		}
	})
	if err != nil {
		return nil, err
	}
	k.mu.Lock()
	k.known = out
	k.mu.Unlock()
	return out, nil
}

// instant runs a metric query at w.End and hands each series of the
// vector it answers to each.
func (k *lokiStore) instant(ctx context.Context, q string, w Window, each func(map[string]string, float64)) error {
	form := url.Values{"query": {q}, "time": {w.End.UTC().Format(time.RFC3339Nano)}}
	var ans struct {
		Status   string   `json:"status"`
		Warnings []string `json:"warnings"`
		Data     struct {
			ResultType string `json:"resultType"`
			Result     []struct {
				Metric map[string]string `json:"metric"`
				Value  [2]any            `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := k.get(ctx, "/loki/api/v1/query", form, &ans); err != nil {
		return err
	}
	if err := k.whole(ans.Status, ans.Warnings); err != nil {
		return err
	}
	if ans.Data.ResultType != "vector" {
		return &IncompleteError{Store: k.name, Err: fmt.Errorf("a metric query answered %q, not a vector", ans.Data.ResultType)}
	}
	if int64(len(ans.Data.Result)) > k.maxAnswerRecords {
		return k.tooLarge(&answerLimitError{What: "records", Limit: k.maxAnswerRecords, Set: "max_answer_records in the store's address raises it"})
	}
	for _, r := range ans.Data.Result {
		s, _ := r.Value[1].(string)
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return &IncompleteError{Store: k.name, Err: fmt.Errorf("a sample %q is not a number", s)}
		}
		each(r.Metric, v)
	}
	return nil
}

// whole refuses an answer that says it is not all of it.
func (k *lokiStore) whole(status string, warnings []string) error {
	if status != "success" {
		return &IncompleteError{Store: k.name, Err: fmt.Errorf("the answer's status is %q", status)}
	}
	if len(warnings) > 0 {
		return &IncompleteError{Store: k.name, Answer: firstLine([]byte(strings.Join(warnings, "; "))), Err: errors.New("the store warned that the answer is not whole")}
	}
	return nil
}

// entry is one line of a query_range answer.
type entry struct {
	ts     int64
	stream map[string]string
	line   string
}

func (e *entry) id() string {
	keys := make([]string, 0, len(e.stream))
	for k := range e.stream {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + "\x00" + e.stream[k] + "\x00")
	}
	return b.String() + e.line
}

// lines runs a Lines: log queries forward in time, a page of maxEntries
// lines each, the next starting at the last line's time (its lines at
// that instant already handed over are skipped). A page full of lines at
// one instant cannot be paged past: an incomplete result naming the
// limit, never a part read as the whole.
func (k *lokiStore) lines(ctx context.Context, q Lines, w Window, each func(Record) error) error {
	f, err := k.resolve(ctx, k.linesFilter(q), w)
	if err != nil {
		return err
	}
	l := k.ql()
	s, ok := k.linesQuery(l, q, f)
	if !ok {
		return nil
	}
	start, end := w.Start.UnixNano(), w.End.UnixNano()+1
	seen := map[string]bool{} // the lines at start already handed over
	var records int64
	for {
		form := url.Values{"query": {s}, "start": {strconv.FormatInt(start, 10)}, "end": {strconv.FormatInt(end, 10)},
			"limit": {strconv.Itoa(k.maxEntries)}, "direction": {"forward"}}
		var ans struct {
			Status   string   `json:"status"`
			Warnings []string `json:"warnings"`
			Data     struct {
				ResultType string `json:"resultType"`
				Result     []struct {
					Stream map[string]string `json:"stream"`
					Values [][2]string       `json:"values"`
				} `json:"result"`
			} `json:"data"`
		}
		if err := k.get(ctx, "/loki/api/v1/query_range", form, &ans); err != nil {
			return err
		}
		if err := k.whole(ans.Status, ans.Warnings); err != nil {
			return err
		}
		if ans.Data.ResultType != "streams" {
			return &IncompleteError{Store: k.name, Err: fmt.Errorf("a log query answered %q, not streams", ans.Data.ResultType)}
		}
		var page []entry
		for _, st := range ans.Data.Result {
			for _, v := range st.Values {
				ts, err := strconv.ParseInt(v[0], 10, 64)
				if err != nil {
					return &IncompleteError{Store: k.name, Err: fmt.Errorf("a line's time %q is not nanoseconds", v[0])}
				}
				page = append(page, entry{ts: ts, stream: st.Stream, line: v[1]})
			}
		}
		sort.SliceStable(page, func(i, j int) bool { return page[i].ts < page[j].ts })
		for i := range page {
			e := &page[i]
			if e.ts == start && seen[e.id()] {
				continue
			}
			if records++; records > k.maxAnswerRecords {
				return k.tooLarge(&answerLimitError{What: "records", Limit: k.maxAnswerRecords, Set: "max_answer_records in the store's address raises it"})
			}
			if err := each(k.record(l, e, q.Fields)); err != nil {
				return err
			}
		}
		if len(page) < k.maxEntries {
			return nil
		}
		last := page[len(page)-1].ts
		if last == start && page[0].ts == start {
			return &IncompleteError{Store: k.name, Err: &answerLimitError{What: "lines at one instant", Limit: int64(k.maxEntries),
				Set: "max_entries in the store's address raises it, up to Loki's max_entries_limit_per_query"}}
		}
		if last != start {
			seen = map[string]bool{}
		}
		for i := range page {
			if page[i].ts == last {
				seen[page[i].id()] = true
			}
		}
		start = last
	}
}

// linesQuery writes a log query for the lines f selects. A JSON line is
// read whole here; from a logfmt line, Loki extracts the fields the
// records need besides those f names: the store's (Fields).
func (k *lokiStore) linesQuery(l *logql, q Lines, f Filter) (string, bool) {
	c := l.cond(f, false)
	if k.parser != "json" {
		k.mu.Lock()
		known := slices.Sorted(maps.Keys(k.known))
		k.mu.Unlock()
		for _, fld := range append(known, q.Fields...) {
			l.name(fld)
		}
	}
	s, ok := l.pipeline(c)
	return l.finish(s), ok
}

// record reads a line back: the record idem export wrote (a JSON object
// with idem.file), or a shipper's line with the fields the parser found
// in it, its text in _msg unless it names its own (as VictoriaLogs and
// the memory store read it). Its time is the store's.
func (k *lokiStore) record(l *logql, e *entry, only []string) Record {
	r := Record{}
	if strings.HasPrefix(e.line, "{") {
		var obj map[string]any
		dec := json.NewDecoder(strings.NewReader(e.line))
		dec.UseNumber()
		if dec.Decode(&obj) == nil {
			flatten(r, "", obj)
		}
	}
	if _, exported := r[FieldFile]; !exported {
		for a, v := range e.stream {
			if f := l.fields[a]; f != "" && v != "" {
				r[f] = v
			}
		}
		if _, ok := r["_msg"]; !ok {
			r["_msg"] = e.line // a line that names no message is its own
		}
		r[lokiLine] = e.line
		r["_stream"] = streamOf(e.stream, l)
	}
	r["_time"] = time.Unix(0, e.ts).UTC().Format(time.RFC3339Nano)
	if len(only) > 0 {
		out := Record{"_time": r["_time"]}
		for _, f := range only {
			out[f] = r[f]
		}
		return out
	}
	return r
}

// lokiLine holds a shipper's line as Loki keeps it, for Rebuild.
const lokiLine = "_loki_line"

// flatten puts a JSON object's values in r as text, nested names dotted,
// as the plan names a shipper's nested fields.
func flatten(r Record, prefix string, obj map[string]any) {
	for k, v := range obj {
		name := prefix + k
		switch v := v.(type) {
		case map[string]any:
			flatten(r, name+".", v)
		case string:
			r[name] = v
		case nil:
		default:
			b, _ := json.Marshal(v)
			r[name] = string(b)
		}
	}
}

// streamOf writes a stream's own labels (not the fields a query
// extracted) as Loki shows them.
func streamOf(labels map[string]string, l *logql) string {
	var parts []string
	for k, v := range labels {
		if l.fields[k] == "" && k != "__error__" && k != "__error_details__" {
			parts = append(parts, k+"="+strconv.Quote(v))
		}
	}
	sort.Strings(parts)
	return "{" + strings.Join(parts, ", ") + "}"
}

// Rebuild: a line a shipper loaded is kept whole by Loki, cited by its
// stream.
func (k *lokiStore) Rebuild(r Record) (source, line string) {
	return "loki:" + r["_stream"], r[lokiLine]
}

// get sends a query and decodes its JSON answer, within its bounds.
func (k *lokiStore) get(ctx context.Context, p string, form url.Values, into any) error {
	resp, cancel, err := k.do(ctx, http.MethodPost, p, strings.NewReader(form.Encode()), "application/x-www-form-urlencoded")
	if err != nil {
		return err
	}
	defer cancel()
	defer resp.Body.Close()
	br := &boundedReader{r: resp.Body, left: k.maxAnswerBytes, err: &answerLimitError{What: "bytes", Limit: k.maxAnswerBytes, Set: "max_answer_bytes in the store's address raises it"}}
	if err := json.NewDecoder(br).Decode(into); err != nil {
		if le := (*answerLimitError)(nil); errors.As(err, &le) {
			return k.tooLarge(le)
		}
		return k.incomplete(resp.Request.Context(), resp.StatusCode, "", fmt.Errorf("the answer was cut short or is not JSON: %w", err))
	}
	return nil
}

// do sends one request and returns the response when it is a 2xx; any
// other answer, or none in time, is an *IncompleteError.
func (k *lokiStore) do(ctx context.Context, method, p string, body io.Reader, contentType string) (*http.Response, context.CancelFunc, error) {
	cancel := context.CancelFunc(func() {})
	if k.timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, k.timeout)
	}
	u := *k.base
	u.Path = path.Join("/", u.Path, p)
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if k.tenant != "" {
		req.Header.Set("X-Scope-OrgID", k.tenant)
	}
	k.auth(req)
	resp, err := k.client.Do(req)
	if err != nil {
		err = k.incomplete(ctx, 0, "", err)
		cancel()
		return nil, nil, err
	}
	if resp.StatusCode/100 != 2 {
		answer, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		err = k.incomplete(ctx, resp.StatusCode, firstLine(answer), statusCause(resp.StatusCode))
		cancel()
		return nil, nil, err
	}
	return resp, cancel, nil
}

// statusCause says what a status means for the run.
func statusCause(status int) error {
	switch status {
	case http.StatusTooManyRequests:
		return errors.New("the Loki store is limiting this tenant's queries (429): try again later, or narrow --since or --selector")
	case http.StatusBadRequest:
		return errors.New("the Loki store refused the query (a limit of its limits_config, or LogQL it does not take)")
	}
	return nil
}

func (k *lokiStore) incomplete(ctx context.Context, status int, answer string, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("%w (%s)", ErrTimeout, k.timeout)
	} else if errors.Is(ctx.Err(), context.Canceled) {
		return ctx.Err()
	} else if ue := (*url.Error)(nil); errors.As(err, &ue) {
		err = ue.Err
	}
	return &IncompleteError{Store: k.name, Status: status, Answer: answer, Err: err}
}

func (k *lokiStore) tooLarge(le *answerLimitError) error {
	return &IncompleteError{Store: k.name, Err: le}
}

// pushBytes bounds one push: Loki's distributor hands a push to its
// ingesters whole, over gRPC, whose messages are 4 MiB at most by
// default.
const pushBytes = 1 << 20

// Insert pushes JSON lines (the records idem export writes) to
// /loki/api/v1/push, each line whole as the entry's text at its _time
// (now for a line without one), in streams by tier, format and service
// (the file's name without its extensions).
func (k *lokiStore) Insert(ctx context.Context, body io.Reader) error {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	type stream struct {
		Stream map[string]string `json:"stream"`
		Values [][2]string       `json:"values"`
	}
	streams := map[string]*stream{}
	var order []string
	size := 0
	flush := func() error {
		if size == 0 {
			return nil
		}
		push := struct {
			Streams []*stream `json:"streams"`
		}{}
		for _, id := range order {
			// In time order: Loki refuses a line more than an hour
			// (max_chunk_age/2) older than its stream's newest.
			st := streams[id]
			sort.SliceStable(st.Values, func(i, j int) bool {
				a, _ := strconv.ParseInt(st.Values[i][0], 10, 64)
				b, _ := strconv.ParseInt(st.Values[j][0], 10, 64)
				return a < b
			})
			push.Streams = append(push.Streams, st)
		}
		b, err := json.Marshal(push)
		if err != nil {
			return err
		}
		streams, order, size = map[string]*stream{}, nil, 0
		return k.push(ctx, b)
	}
	for sc.Scan() {
		line := sc.Text()
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return fmt.Errorf("logstore: a line to push is not a JSON object: %w", err)
		}
		text := func(f string) string { s, _ := rec[f].(string); return s }
		t, err := time.Parse(time.RFC3339Nano, text("_time"))
		if err != nil {
			t = k.now()
		}
		labels := map[string]string{"format": cmp.Or(text(FieldFormat), "unknown"), "tier": cmp.Or(text(fieldTier), "unknown"), "service": cmp.Or(service(text(FieldFile)), "unknown")}
		id := labels["format"] + "\x00" + labels["tier"] + "\x00" + labels["service"]
		st := streams[id]
		if st == nil {
			st = &stream{Stream: labels}
			streams[id] = st
			order = append(order, id)
		}
		st.Values = append(st.Values, [2]string{strconv.FormatInt(t.UnixNano(), 10), line})
		k.mu.Lock()
		if k.loaded.Start.IsZero() || t.Before(k.loaded.Start) {
			k.loaded.Start = t
		}
		if t.After(k.loaded.End) {
			k.loaded.End = t
		}
		k.mu.Unlock()
		if size += len(line) + 32; size >= pushBytes {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return flush()
}

// push sends one push body; Loki answers 204. A 429 (the tenant's
// ingestion rate) is tried again, three times at most, after the wait
// Loki asks for or a growing one.
func (k *lokiStore) push(ctx context.Context, body []byte) error {
	for attempt := 0; ; attempt++ {
		resp, cancel, err := k.do(ctx, http.MethodPost, "/loki/api/v1/push", bytes.NewReader(body), "application/json")
		if err == nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
			cancel()
			return nil
		}
		var ie *IncompleteError
		if !errors.As(err, &ie) || ie.Status != http.StatusTooManyRequests || attempt >= 3 {
			if errors.As(err, &ie) && ie.Status == http.StatusBadRequest {
				return fmt.Errorf("%s refused lines (a push is accepted but for the lines named: older than reject_old_samples_max_age, out of order, too long): %q", k.name, ie.Answer)
			}
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(1<<attempt) * time.Second):
		}
	}
}

// service names a file's service as Loki's users label it: its name
// without directory or extensions (proxy.log.gz → proxy).
func service(file string) string {
	base := path.Base(strings.ReplaceAll(file, "\\", "/"))
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	if base == "." || base == "/" {
		return ""
	}
	return base
}

// Flush does nothing: Loki's ingesters answer queries about what they
// hold before it is flushed to storage.
func (k *lokiStore) Flush(context.Context) {}
