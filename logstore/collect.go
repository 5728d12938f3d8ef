package logstore

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/idem-cli/idem/ingest"
)

// Stats say what a diagnosis from a store cost: what was pushed down, how
// much matched, how much came back, how long each phase took.
type Stats struct {
	Store       string
	Stored      int64 // records in the store within the window
	Queries     []string
	Matched     int64 // records phase 1's queries matched (they may overlap)
	Keys        int   // values phase 1 selected (keys, request ids, payloads)
	Near        int   // failures whose client's next requests were fetched
	Received    int64 // records phase 2 brought back, dropped and repeated ones too
	Transferred int64 // records phase 2 kept (each once)
	Bytes       int64 // bytes of those records as idem reads them
	Rounds      int   // phase 2 rounds (request ids found in a round are fetched in the next)
	Phase1      time.Duration
	Phase2      time.Duration
}

// Collect runs phase 1 and 2 against st over w and returns the lines as
// sources for the readers: one per file they were exported from (cited as
// that file, at the same line numbers), one per stream for lines shipped
// by something else. fetch widens w for phase 2, so that an intent that
// started inside the window is fetched whole.
func Collect(ctx context.Context, st Store, w Window, widen time.Duration, now func() time.Time) ([]ingest.Source, *Stats, error) {
	stats := &Stats{Store: st.Name()}
	t0 := now()
	n, err := st.Count(ctx, w)
	if err != nil {
		return nil, stats, err
	}
	stats.Stored = n
	cand, err := st.Candidates(ctx, w)
	if err != nil {
		return nil, stats, err
	}
	stats.Queries, stats.Matched, stats.Near = cand.Queries, cand.Matched, len(cand.Near)
	t1 := now()
	stats.Phase1 = t1.Sub(t0)

	c := &collector{seen: map[string]bool{}, asked: map[string]bool{}, files: map[string]*file{}}
	if vl, ok := st.(*VictoriaLogs); ok {
		c.msgField, c.timeField = vl.msgField, vl.timeField
	}
	join := st.JoinFields()
	sel := cand.Selection
	sel.Widen = widen
	for f, vals := range sel.Values {
		for _, v := range vals {
			c.asked[f+"\x00"+v] = true
		}
		stats.Keys += len(vals)
	}
	fw := w.Widen(widen)
	for round := 0; round < 4 && !sel.Empty(); round++ {
		stats.Rounds++
		var found []Record
		err := st.Fetch(ctx, sel, fw, func(r Record) error {
			stats.Received++
			if c.add(r) {
				found = append(found, r)
			}
			return nil
		})
		if err != nil {
			return nil, stats, err
		}
		// What ties the new lines to others (a retry's request id logged by
		// the server without the key) is fetched in the next round.
		// A key or request id found on a line fetched near a failure may
		// have no other line (a proxy's only delivery of a retry under a
		// new key): the lines already kept are excluded, so only the
		// others come.
		raw := st.RawKeyFields()
		sel = Selection{Values: map[string][]string{}, Unkeyed: raw, Have: map[string][]Held{}}
		newly := map[string]bool{}
		for _, r := range found {
			for _, f := range join {
				if v := r[f]; v != "" && !c.asked[f+"\x00"+v] {
					c.asked[f+"\x00"+v] = true
					newly[f+"\x00"+v] = true
					sel.Values[f] = append(sel.Values[f], v)
				}
			}
		}
		for _, r := range found {
			for _, f := range join {
				if id := f + "\x00" + r[f]; r[f] != "" && newly[id] {
					sel.Have[id] = append(sel.Have[id], Held{File: r[FieldFile], Line: r[FieldLine]})
				}
			}
		}
	}
	stats.Transferred = c.count
	if nd, ok := st.(interface{ NearDropped() int64 }); ok {
		stats.Received += nd.NearDropped()
	}
	stats.Bytes = c.bytes
	stats.Phase2 = now().Sub(t1)
	return c.sources(), stats, nil
}

// collector keeps each fetched record once, by where it came from.
type collector struct {
	seen                map[string]bool
	asked               map[string]bool
	files               map[string]*file
	msgField, timeField string
	count, bytes        int64
}

type file struct {
	name  string
	lines []numbered
}

type numbered struct {
	n    int
	time string
	text string
}

// add keeps r unless it was fetched before; it reports whether it was new.
func (c *collector) add(r Record) bool {
	name, num, text := c.rebuild(r)
	id := name + "\x00" + strconv.Itoa(num)
	if num == 0 {
		id = name + "\x00" + r["_time"] + "\x00" + text
	}
	if c.seen[id] {
		return false
	}
	c.seen[id] = true
	f := c.files[name]
	if f == nil {
		f = &file{name: name}
		c.files[name] = f
	}
	f.lines = append(f.lines, numbered{n: num, time: r["_time"], text: text})
	c.count++
	c.bytes += int64(len(text) + 1)
	return true
}

// rebuild turns a record back into the line it was: an exported line is
// its _msg, at its file and line; a line shipped whole (a JSON object or
// text in _msg) is its _msg; a line the shipper split into fields is a
// JSON object of them again, with what _msg_field and _time_field moved
// into _msg and _time put back under their names.
func (c *collector) rebuild(r Record) (name string, line int, text string) {
	if f, ok := r[FieldFile]; ok {
		n, _ := strconv.Atoi(r[FieldLine])
		return f, n, r["_msg"]
	}
	name = "victorialogs:" + r["_stream"]
	msg := r["_msg"]
	if strings.HasPrefix(msg, missingMsg) {
		msg = ""
	}
	others := false
	for k := range r {
		if !strings.HasPrefix(k, "_") {
			others = true
			break
		}
	}
	if !others && c.msgField == "" || strings.HasPrefix(msg, "{") && json.Valid([]byte(msg)) {
		return name, 0, msg
	}
	obj := map[string]any{}
	// In name order, so that "http" is placed before "http.status".
	names := make([]string, 0, len(r))
	for k := range r {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v := r[k]
		switch k {
		case "_stream", "_stream_id":
		case "_msg":
			if msg != "" {
				setPath(obj, or(c.msgField, "_msg"), v)
			}
		case "_time":
			if c.timeField != "" {
				setPath(obj, c.timeField, v)
			}
		default:
			setPath(obj, k, v)
		}
	}
	b, _ := json.Marshal(obj)
	return name, 0, string(b)
}

// missingMsg is what VictoriaLogs stores as _msg for a line without one.
const missingMsg = "missing _msg field"

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// setPath puts v under a dotted name as nested objects, the way the line
// was written before the store flattened it; a name that collides with a
// value stays flat.
func setPath(obj map[string]any, name, v string) {
	parts := strings.Split(name, ".")
	m := obj
	for i, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			if _, taken := m[p]; taken {
				m[strings.Join(parts[i:], ".")] = v
				return
			}
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	if _, taken := m[parts[len(parts)-1]].(map[string]any); taken {
		obj[name] = v
		return
	}
	m[parts[len(parts)-1]] = v
}

// sources lays each file's lines out at their own line numbers (blank
// lines in between, which the readers pass over), in file name order.
func (c *collector) sources() []ingest.Source {
	names := make([]string, 0, len(c.files))
	for n := range c.files {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []ingest.Source
	for _, n := range names {
		f := c.files[n]
		sort.SliceStable(f.lines, func(i, j int) bool {
			a, b := f.lines[i], f.lines[j]
			if a.n != b.n {
				return a.n < b.n
			}
			return a.time < b.time
		})
		var buf bytes.Buffer
		at, pad := 0, 0
		for _, l := range f.lines {
			// A line number is the store's word: padding is bounded, so a
			// hostile answer cannot make idem write gigabytes of blanks.
			for at+1 < l.n && pad < maxPadding {
				pad++
				buf.WriteByte('\n')
				at++
			}
			buf.WriteString(strings.ReplaceAll(l.text, "\n", " "))
			buf.WriteByte('\n')
			at++
		}
		out = append(out, &memSource{name: n, data: buf.Bytes()})
	}
	return out
}

// maxPadding bounds the blank lines written per source.
const maxPadding = 64 << 20

// memSource is fetched lines held in memory.
type memSource struct {
	name string
	data []byte
}

func (s *memSource) Name() string { return s.name }
func (s *memSource) Open(context.Context) (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(s.data)), nil
}
