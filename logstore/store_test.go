package logstore

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/logstore/vltest"
)

// load inserts records into a fresh single node and returns its client.
func load(t *testing.T, recs []map[string]string) *victoriaLogs {
	t.Helper()
	n := vltest.Single(t)
	st, err := Open(n.URL(), Options{Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := st.Insert(ctx, strings.NewReader(jsonLines(recs))); err != nil {
		t.Fatal(err)
	}
	st.Flush(ctx)
	v := st.(*victoriaLogs)
	for deadline := time.Now().Add(10 * time.Second); ; {
		if n, err := v.Count(ctx, All{}, Window{}); err == nil && n == int64(len(recs)) {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("the store did not keep the %d records", len(recs))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// partitionedRecords are 300 keys' deliveries and what phase 1 must find
// in them: keys with two deliveries or a failed one, request ids with two
// keys; not a key logged twice for one delivery, nor a key with one 2xx.
func partitionedRecords() (recs []map[string]string, wantKeys, wantRids map[string]bool) {
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	rec := func(i int, key, rid, status string) {
		recs = append(recs, map[string]string{"_msg": fmt.Sprintf("line %d", len(recs)), "_time": t0.Add(time.Duration(len(recs)) * time.Second).Format(time.RFC3339Nano),
			"idempotency_key": key, "request_id": rid, "status": status, "method": "POST", "route": "/v1/orders", "client": fmt.Sprintf("10.0.%d.%d", i/200, i%200)})
	}
	wantKeys, wantRids = map[string]bool{}, map[string]bool{}
	for i := range 300 {
		key, rid, status := fmt.Sprintf("k%03d", i), fmt.Sprintf("r%03d-1", i), "201"
		if i%11 == 0 {
			status = "503"
			wantKeys[key] = true
		}
		rec(i, key, rid, status)
		switch {
		case i%7 == 0: // a second delivery
			rec(i, key, fmt.Sprintf("r%03d-2", i), "201")
			wantKeys[key] = true
		case i%13 == 0: // the same delivery logged at a second tier
			rec(i, key, rid, "201")
		}
		if i%17 == 0 { // the request id sent again under another key
			rec(i, "x"+key, rid, "201")
			wantRids[rid] = true
		}
	}
	return recs, wantKeys, wantRids
}

// Phase 1 asked in partitions finds exactly what it finds in one query,
// and both find what a direct count of the records gives, through
// VictoriaLogs and through the memory dialect alike.
func TestCandidatesPartitioned(t *testing.T) {
	recs, wantKeys, wantRids := partitionedRecords()
	check := func(t *testing.T, r Reader, groupLines func(int64)) {
		ctx := context.Background()
		groupLines(0)
		whole, err := newPlanner(r).Candidates(ctx, Window{})
		if err != nil {
			t.Fatal(err)
		}
		groupLines(40)
		parted, err := newPlanner(r).Candidates(ctx, Window{})
		if err != nil {
			t.Fatal(err)
		}
		// The keys' and the request ids' groups, each asked once a part.
		parts := (len(recs) + 39) / 40
		if extra := len(parted.Queries) - len(whole.Queries); extra != 2*(parts-1) {
			t.Errorf("%d more queries in %d parts, want %d:\n%s", extra, parts, 2*(parts-1), strings.Join(parted.Queries, "\n"))
		}
		set := func(vals []string) map[string]bool {
			m := map[string]bool{}
			for _, v := range vals {
				m[v] = true
			}
			return m
		}
		for name, c := range map[string]*Candidates{"one query": whole, "partitions": parted} {
			if got := set(c.Values["idempotency_key"]); !reflect.DeepEqual(got, wantKeys) {
				t.Errorf("%s: keys %v, want %v", name, sorted(got), sorted(wantKeys))
			}
			// A lost write's unkeyed request id would be here too; these are
			// all keyed.
			if got := set(c.Values["request_id"]); !reflect.DeepEqual(got, wantRids) {
				t.Errorf("%s: request ids %v, want %v", name, sorted(got), sorted(wantRids))
			}
		}
		if !reflect.DeepEqual(whole.At, parted.At) || !reflect.DeepEqual(whole.Last, parted.Last) || whole.Matched != parted.Matched {
			t.Errorf("the partitions' times or counts differ from one query's: matched %d and %d", whole.Matched, parted.Matched)
		}
	}
	t.Run("memory", func(t *testing.T) {
		m := memLoad(t, recs)
		check(t, m, func(n int64) { m.limits.GroupLines = n })
	})
	t.Run("victorialogs", func(t *testing.T) {
		v := load(t, recs)
		check(t, v, func(n int64) { v.GroupLines = n })
	})
}

func sorted(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// A line already kept is not fetched again: an exported one is excluded
// by its file and line, and a key whose lines were loaded by something
// else is fetched only when the store has more of them than are kept.
func TestFetchSkipsHeldLines(t *testing.T) {
	at := "2026-11-30T09:00:00Z"
	recs := []map[string]string{
		{"_msg": "k1 proxy", "_time": at, "idempotency_key": "k1", FieldFile: "proxy.log", FieldLine: "1"},
		{"_msg": "k1 server", "_time": at, "idempotency_key": "k1", FieldFile: "server.log", FieldLine: "1"},
		{"_msg": "k2 proxy", "_time": at, "idempotency_key": "k2", FieldFile: "proxy.log", FieldLine: "2"},
		{"_msg": "k3 shipped a", "_time": at, "idempotency_key": "k3"},
		{"_msg": "k3 shipped b", "_time": at, "idempotency_key": "k3"},
		{"_msg": "k4 shipped", "_time": at, "idempotency_key": "k4"},
	}
	v := load(t, recs)
	tests := []struct {
		name string
		have map[string][]Held
		want []string
	}{
		{"nothing kept", nil, []string{"k1 proxy", "k1 server", "k2 proxy", "k3 shipped a", "k3 shipped b", "k4 shipped"}},
		{"kept lines excluded", map[string][]Held{
			"idempotency_key\x00k1": {{File: "proxy.log", Line: "1"}},
			"idempotency_key\x00k2": {{File: "proxy.log", Line: "2"}},
			"idempotency_key\x00k3": {{}},
			"idempotency_key\x00k4": {{}},
		}, []string{"k1 server", "k3 shipped a", "k3 shipped b"}},
		{"every line kept", map[string][]Held{
			"idempotency_key\x00k1": {{File: "proxy.log", Line: "1"}, {File: "server.log", Line: "1"}},
			"idempotency_key\x00k2": {{File: "proxy.log", Line: "2"}},
			"idempotency_key\x00k3": {{}, {}},
			"idempotency_key\x00k4": {{}},
		}, nil},
	}
	for _, tt := range tests {
		sel := Selection{Values: map[string][]string{"idempotency_key": {"k1", "k2", "k3", "k4"}}, Have: tt.have}
		var got []string
		err := newPlanner(v).Fetch(context.Background(), sel, Window{}, func(r Record) error {
			got = append(got, r["_msg"])
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(got)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: fetched %q, want %q", tt.name, got, tt.want)
		}
	}
}
