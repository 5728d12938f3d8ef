package logstore

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/formats"
	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/logstore/vltest"
)

// memLoad holds records in a memory dialect whose queries may be 2 KiB.
func memLoad(t *testing.T, recs []map[string]string) *memStore {
	t.Helper()
	m := newMemStore(Limits{QueryBytes: 2 << 10})
	if err := m.Insert(context.Background(), strings.NewReader(jsonLines(recs))); err != nil {
		t.Fatal(err)
	}
	return m
}

func jsonLines(recs []map[string]string) string {
	var b strings.Builder
	for _, r := range recs {
		line, _ := json.Marshal(r)
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// exportTo loads files into a store as idem export does, and returns how
// many lines it sent.
func exportTo(t *testing.T, st Loader, files []string) int64 {
	t.Helper()
	cfg := &formats.Config{}
	if err := cfg.Compile(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ex := NewExporter(ctx, st, "run")
	if _, err := ingest.Read(ctx, files, ingest.Options{MaxLineBytes: ingest.DefaultMaxLineBytes, Config: cfg}, ex); err != nil {
		t.Fatal(err)
	}
	if err := ex.Close(); err != nil {
		t.Fatal(err)
	}
	st.Flush(ctx)
	return ex.Sent
}

// fixtureCases are every scenario and the incident.
func fixtureCases(t *testing.T) map[string][]string {
	t.Helper()
	cases := map[string][]string{}
	dirs, _ := filepath.Glob("../fixtures/scenarios/*")
	for _, d := range append(dirs, "../fixtures/incident") {
		if files, _ := filepath.Glob(filepath.Join(d, "*")); len(files) > 0 {
			cases[filepath.Base(d)] = files
		}
	}
	if len(cases) < 10 {
		t.Fatalf("%d fixture cases found, want the scenarios and the incident", len(cases))
	}
	return cases
}

// diagnosis is what a plan gets from a store: phase 1's candidates, and
// phase 2's lines as sources.
type diagnosis struct {
	cand  *Candidates
	lines map[string]string // source name → its lines
	stats *Stats
}

var since = Window{Start: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}

func diagnoseFrom(t *testing.T, r Reader) diagnosis {
	t.Helper()
	ctx := context.Background()
	cand, err := newPlanner(r).Candidates(ctx, since)
	if err != nil {
		t.Fatal(err)
	}
	srcs, stats, err := Collect(ctx, r, since, time.Hour, NearWindow, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	d := diagnosis{cand: cand, lines: map[string]string{}, stats: stats}
	for _, s := range srcs {
		rc, _ := s.Open(ctx)
		b, _ := io.ReadAll(rc)
		d.lines[s.Name()] = string(b)
	}
	// The order a store answers in is its own.
	for _, vals := range cand.Values {
		sort.Strings(vals)
	}
	sort.Slice(cand.Near, func(i, j int) bool {
		a, b := cand.Near[i], cand.Near[j]
		return a.Field+"\x00"+a.Value+a.Time.String() < b.Field+"\x00"+b.Value+b.Time.String()
	})
	return d
}

// The plan asked through the memory dialect fetches every line of every
// candidate, each once, and what each lost write's client sent next.
func TestPlanFetchesEveryCandidateLine(t *testing.T) {
	for name, files := range fixtureCases(t) {
		t.Run(name, func(t *testing.T) {
			m := newMemStore(Limits{QueryBytes: 2 << 10, GroupLines: 7})
			exportTo(t, m, files)
			d := diagnoseFrom(t, m)
			if d.stats.Stored != int64(len(m.recs)) {
				t.Errorf("%d lines stored, the store holds %d", d.stats.Stored, len(m.recs))
			}
			kept := 0
			for _, lines := range d.lines {
				for _, l := range strings.Split(lines, "\n") {
					if l != "" {
						kept++
					}
				}
			}
			if int64(kept) != d.stats.Transferred || d.stats.Received < d.stats.Transferred {
				t.Errorf("%d lines laid out, %d kept, %d received", kept, d.stats.Transferred, d.stats.Received)
			}
			for _, r := range m.recs {
				for f, vals := range d.cand.Values {
					if slices.Contains(vals, r[f]) && !strings.Contains(d.lines[r[FieldFile]], strings.ReplaceAll(r["_msg"], "\n", " ")) {
						t.Errorf("%s:%s has %s %q, a candidate, and was not fetched", r[FieldFile], r[FieldLine], f, r[f])
					}
				}
			}
		})
	}
}

// The same plan through VictoriaLogs and through the memory dialect, on
// the same lines, finds the same candidates and fetches the same lines,
// although the two batch and partition differently (VictoriaLogs in one
// group a question, the memory dialect in parts of 7 lines under 2 KiB
// queries).
func TestDialectsAgree(t *testing.T) {
	n := vltest.Single(t)
	i := 0
	for name, files := range fixtureCases(t) {
		i++
		t.Run(name, func(t *testing.T) {
			st, err := Open(fmt.Sprintf("%s?account=%d", n.URL(), 200+i), Options{Timeout: 20 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			sent := exportTo(t, st, files)
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
				if n, err := CountRun(context.Background(), st, "run"); err == nil && n == sent {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the store did not keep the %d lines", sent)
				}
			}
			m := newMemStore(Limits{QueryBytes: 2 << 10, GroupLines: 7})
			exportTo(t, m, files)
			vl, mem := diagnoseFrom(t, st), diagnoseFrom(t, m)
			if !reflect.DeepEqual(vl.cand.Selection, mem.cand.Selection) || vl.cand.Matched != mem.cand.Matched {
				t.Errorf("candidates differ\nvictorialogs: %+v (matched %d)\nmemory:       %+v (matched %d)", vl.cand.Selection, vl.cand.Matched, mem.cand.Selection, mem.cand.Matched)
			}
			if !reflect.DeepEqual(vl.lines, mem.lines) {
				t.Errorf("lines differ\nvictorialogs: %q\nmemory:       %q", vl.lines, mem.lines)
			}
			sameStats(t, vl.stats, mem.stats)
		})
	}
	// Lines a shipper loaded, whose kept lines are known by count, not by
	// file and line: the dialects rebuild them each its own way, but
	// find and fetch the same.
	t.Run("shipped", func(t *testing.T) {
		recs, _, _ := partitionedRecords()
		st, err := Open(n.URL()+"?account=299", Options{Timeout: 20 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		m := memLoad(t, recs)
		if err := st.Insert(context.Background(), strings.NewReader(jsonLines(recs))); err != nil {
			t.Fatal(err)
		}
		st.Flush(context.Background())
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			if n, err := st.Count(context.Background(), All{}, Window{}); err == nil && n == int64(len(recs)) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the store did not keep the %d records", len(recs))
			}
		}
		vl, mem := diagnoseFrom(t, st), diagnoseFrom(t, m)
		if !reflect.DeepEqual(vl.cand.Selection, mem.cand.Selection) || vl.cand.Matched != mem.cand.Matched {
			t.Errorf("candidates differ\nvictorialogs: %+v (matched %d)\nmemory:       %+v (matched %d)", vl.cand.Selection, vl.cand.Matched, mem.cand.Selection, mem.cand.Matched)
		}
		vl.stats.Bytes, mem.stats.Bytes = 0, 0
		if mem.stats.Rounds < 2 || mem.stats.Near == 0 {
			t.Errorf("%+v: want failures' clients followed into a second round", mem.stats)
		}
		sameStats(t, vl.stats, mem.stats)
	})
}

// sameStats compares what two dialects cost the plan, but for what
// depends on the dialect: its name and queries, and the lines that its
// batches of failures' clients brought and dropped.
func sameStats(t *testing.T, x, y *Stats) {
	t.Helper()
	a, b := *x, *y
	for _, s := range []*Stats{&a, &b} {
		s.Store, s.Queries, s.Received, s.Phase1, s.Phase2 = "", nil, 0, 0, 0
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("stats differ\nvictorialogs: %+v\nmemory:       %+v", a, b)
	}
}
