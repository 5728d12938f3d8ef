package logstore

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"strconv"
	"strings"
	"time"
)

// memStore is the dialect of a store that does not exist: it runs the
// plan's questions over records held in memory, as a store's engine
// would, and writes them (Show) in a language of its own, whose lengths
// differ from LogsQL's, so the plan batches differently. That the plan
// finds the same candidates and lines through it as through VictoriaLogs
// shows that what to ask is the plan's, and how to ask the dialect's:
// a store is added by writing this file for real, against its API.
type memStore struct {
	recs   []Record
	limits Limits
	now    time.Time
}

var _ Store = (*memStore)(nil)

func newMemStore(limits Limits) *memStore {
	return &memStore{limits: limits, now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
}

func (m *memStore) Name() string   { return "mem://" }
func (m *memStore) Limits() Limits { return m.limits }

// Insert keeps JSON lines as a store does: every value a string, empty
// ones dropped, a line without a time given the time it came.
func (m *memStore) Insert(_ context.Context, body io.Reader) error {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for sc.Scan() {
		var obj map[string]any
		if err := json.Unmarshal(sc.Bytes(), &obj); err != nil {
			return err
		}
		r := Record{}
		for k, v := range obj {
			if s := fmt.Sprint(v); s != "" {
				r[k] = s
			}
		}
		if r["_time"] == "" {
			r["_time"] = m.now.Format(time.RFC3339Nano)
		}
		m.recs = append(m.recs, r)
	}
	return sc.Err()
}

func (m *memStore) Flush(context.Context) {}

// within lists the records inside w (both bounds included).
func (m *memStore) within(w Window) []Record {
	var out []Record
	for _, r := range m.recs {
		t, err := time.Parse(time.RFC3339Nano, r["_time"])
		if err != nil || !w.Start.IsZero() && t.Before(w.Start) || !w.End.IsZero() && t.After(w.End) {
			continue
		}
		out = append(out, r)
	}
	return out
}

func (m *memStore) Fields(_ context.Context, w Window) (map[string]bool, error) {
	out := map[string]bool{}
	for _, r := range m.within(w) {
		for k := range r {
			out[k] = true
		}
	}
	return out, nil
}

func (m *memStore) Count(_ context.Context, f Filter, w Window) (int64, error) {
	var n int64
	for _, r := range m.within(w) {
		if m.match(f, r, w) {
			n++
		}
	}
	return n, nil
}

func (m *memStore) Run(_ context.Context, q Query, w Window, each func(Record) error) error {
	var out []Record
	switch q := q.(type) {
	case Lines:
		for _, r := range m.within(w) {
			if !m.match(q.Filter, r, w) || q.Except != nil && m.match(q.Except, r, w) {
				continue
			}
			if len(q.Fields) > 0 {
				only := Record{"_time": r["_time"]}
				for _, f := range q.Fields {
					only[f] = r[f]
				}
				r = only
			}
			out = append(out, r)
		}
	case Group:
		var err error
		if out, err = m.group(q, w); err != nil {
			return err
		}
	}
	for _, r := range out {
		if err := each(r); err != nil {
			return err
		}
	}
	return nil
}

// group runs a Group over every line of each group, and checks the
// plan's word that each group kept has more than one line or one Also
// selects, which a dialect may narrow by.
func (m *memStore) group(g Group, w Window) ([]Record, error) {
	groups := map[string][]Record{}
	var order []string
	for _, r := range m.within(w) {
		if !m.match(g.Lines, r, w) || !inPart(g.Part, r) {
			continue
		}
		k := tuple(r, g.By)
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	var out []Record
	for _, k := range order {
		lines := groups[k]
		ans := Record{}
		for _, f := range g.By {
			ans[f] = lines[0][f]
		}
		n := map[string]int{}
		for _, a := range g.Aggs {
			switch a.Op {
			case AggCount:
				n[a.Name] = len(lines)
			case AggCountIf:
				for _, r := range lines {
					if m.match(a.If, r, w) {
						n[a.Name]++
					}
				}
			case AggDistinct:
				seen := map[string]bool{}
				for _, r := range lines {
					if t := tuple(r, a.Fields); strings.Trim(t, "\x00") != "" {
						seen[t] = true
					}
				}
				n[a.Name] = len(seen)
			case AggFirst, AggLast:
				var first, last time.Time
				for i, r := range lines {
					t, _ := time.Parse(time.RFC3339Nano, r["_time"])
					if i == 0 || t.Before(first) {
						first = t
					}
					if i == 0 || t.After(last) {
						last = t
					}
				}
				ans[a.Name] = first.UTC().Format(time.RFC3339Nano)
				if a.Op == AggLast {
					ans[a.Name] = last.UTC().Format(time.RFC3339Nano)
				}
				continue
			}
			ans[a.Name] = strconv.Itoa(n[a.Name])
		}
		kept := false
		for _, c := range g.Keep {
			kept = kept || n[c.Agg] > c.N
		}
		if !kept {
			continue
		}
		also := false
		for _, r := range lines {
			also = also || g.Also != nil && m.match(g.Also, r, w)
		}
		if len(lines) < 2 && !also {
			return nil, errors.New("memStore: a group was kept with one line and none Also selects: a dialect narrowing by Also would have lost it")
		}
		out = append(out, ans)
	}
	return out, nil
}

// match evaluates a filter on one record; a Member's subquery runs over
// the same window.
func (m *memStore) match(f Filter, r Record, w Window) bool {
	switch f := f.(type) {
	case All:
		return true
	case Set:
		return r[f.Field] != ""
	case Eq:
		return r[f.Field] == f.Value
	case In:
		for _, v := range f.Values {
			if r[f.Field] == v {
				return true
			}
		}
		return false
	case Range:
		n, err := strconv.ParseFloat(r[f.Field], 64)
		return err == nil && n >= float64(f.Min) && n <= float64(f.Max)
	case And:
		for _, x := range f {
			if !m.match(x, r, w) {
				return false
			}
		}
		return true
	case Or:
		for _, x := range f {
			if m.match(x, r, w) {
				return true
			}
		}
		return false
	case Not:
		return !m.match(f.Filter, r, w)
	case Member:
		return r[f.Field] != "" && m.members(f, w)[r[f.Field]]
	}
	panic(fmt.Sprintf("memStore: no filter %T", f))
}

// members are the values of mb.Field a Member selects by: those of its
// lines, or of its groups with more than Over lines.
func (m *memStore) members(mb Member, w Window) map[string]bool {
	out := map[string]bool{}
	count := map[string]int{}
	vals := map[string]string{}
	for _, r := range m.within(w) {
		if !m.match(mb.Lines, r, w) || !inPart(mb.Part, r) || r[mb.Field] == "" {
			continue
		}
		if len(mb.By) == 0 {
			out[r[mb.Field]] = true
			continue
		}
		k := tuple(r, mb.By)
		count[k]++
		vals[k] = r[mb.Field]
	}
	for k, n := range count {
		if n > mb.Over {
			out[vals[k]] = true
		}
	}
	return out
}

func inPart(p Part, r Record) bool {
	if p.Of < 2 {
		return true
	}
	h := fnv.New32a()
	h.Write([]byte(r[p.Field]))
	return int(h.Sum32()%uint32(p.Of)) == p.Index
}

func tuple(r Record, fs []string) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(r[f])
		b.WriteByte(0)
	}
	return b.String()
}

// Show writes a question as nested calls, the language of no store.
func (m *memStore) Show(q Query) string {
	switch q := q.(type) {
	case Lines:
		s := "lines(" + showFilter(q.Filter)
		if q.Except != nil {
			s += ", except " + showFilter(q.Except)
		}
		return s + ", fields " + strings.Join(q.Fields, " ") + ")"
	case Group:
		return fmt.Sprintf("group(%s, by %s, part %d/%d, aggs %v, keep %v)", showFilter(q.Lines), strings.Join(q.By, " "), q.Part.Index, q.Part.Of, q.Aggs, q.Keep)
	}
	return fmt.Sprintf("%T", q)
}

func showFilter(f Filter) string {
	list := func(name string, fs []Filter) string {
		parts := make([]string, len(fs))
		for i, x := range fs {
			parts[i] = showFilter(x)
		}
		return name + "(" + strings.Join(parts, ", ") + ")"
	}
	switch f := f.(type) {
	case And:
		return list("and", f)
	case Or:
		return list("or", f)
	case Not:
		return "not(" + showFilter(f.Filter) + ")"
	case In:
		return "in(" + f.Field + ": " + strings.Join(f.Values, " ") + ")"
	case Member:
		return fmt.Sprintf("member(%s of %s by %s over %d)", f.Field, showFilter(f.Lines), strings.Join(f.By, " "), f.Over)
	}
	return fmt.Sprint(f)
}

// Rebuild: a line loaded by something else than idem export is its _msg,
// cited by its stream.
func (m *memStore) Rebuild(r Record) (source, line string) { return "mem:" + r["_stream"], r["_msg"] }
