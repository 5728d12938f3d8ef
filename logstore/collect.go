package logstore

import (
	"bytes"
	"context"
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

// Collect runs phase 1 and 2 against the store r reads over w and returns
// the lines as sources for the readers: one per file they were exported
// from (cited as that file, at the same line numbers), one per source the
// store names for lines shipped by something else. widen widens w for
// phase 2, so that an intent that started inside the window is fetched
// whole; near is how long after a failure its client's other requests
// are fetched, the follow-up horizon the rules read (trace.Build's
// FollowUp; NearWindow at the least).
func Collect(ctx context.Context, r Reader, w Window, widen, near time.Duration, now func() time.Time) ([]ingest.Source, *Stats, error) {
	p := newPlanner(r)
	p.followUp = near
	return p.collect(ctx, w, widen, now)
}

func (p *planner) collect(ctx context.Context, w Window, widen time.Duration, now func() time.Time) ([]ingest.Source, *Stats, error) {
	stats := &Stats{Store: p.r.Name()}
	t0 := now()
	n, err := p.r.Count(ctx, All{}, w)
	if err != nil {
		return nil, stats, err
	}
	stats.Stored = n
	cand, err := p.Candidates(ctx, w)
	if err != nil {
		return nil, stats, err
	}
	stats.Queries, stats.Matched, stats.Near = cand.Queries, cand.Matched, len(cand.Near)
	t1 := now()
	stats.Phase1 = t1.Sub(t0)

	c := &collector{seen: map[string]bool{}, asked: map[string]bool{}, files: map[string]*file{}, shipped: p.r.Rebuild}
	join := p.JoinFields()
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
		err := p.Fetch(ctx, sel, fw, func(r Record) error {
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
		raw := p.RawKeyFields()
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
	// Lines fetched near failures and dropped came over the wire too.
	stats.Received += p.nearDropped
	stats.Bytes = c.bytes
	stats.Phase2 = now().Sub(t1)
	return c.sources(), stats, nil
}

// collector keeps each fetched record once, by where it came from.
type collector struct {
	seen         map[string]bool
	asked        map[string]bool
	files        map[string]*file
	shipped      func(Record) (source, line string) // the store's Rebuild
	count, bytes int64
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
// its _msg, at its file and line; the store rebuilds the others.
func (c *collector) rebuild(r Record) (name string, line int, text string) {
	if f, ok := r[FieldFile]; ok {
		n, _ := strconv.Atoi(r[FieldLine])
		return f, n, r["_msg"]
	}
	name, text = c.shipped(r)
	return name, 0, text
}

// setPath puts v under a dotted name as nested objects, the way the line
// was written before a store flattened it; a name that collides with a
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
