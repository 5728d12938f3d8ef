package logstore

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/logstore/lokitest"
)

// lokiLoad pushes records (JSON lines) into a tenant of a running Loki
// and waits until it counts them all.
func lokiLoad(t *testing.T, l *lokitest.Loki, tenant string, load func(Store)) *lokiStore {
	t.Helper()
	st, err := Open(l.URL()+"?tenant="+tenant, Options{Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	load(st)
	return st.(*lokiStore)
}

// waitCount waits until the store counts want lines of f.
func waitCount(t *testing.T, r Reader, f Filter, want int64) {
	t.Helper()
	waitCountIn(t, r, f, Window{}, want)
}

// waitCountIn waits for want lines in w: a store that refuses the default
// window (max_query_length) counts in a shorter one.
func waitCountIn(t *testing.T, r Reader, f Filter, w Window, want int64) {
	t.Helper()
	var n int64
	var err error
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if n, err = r.Count(context.Background(), f, w); err == nil && n == want {
			return
		}
	}
	t.Fatalf("the store counts %d lines (%v), want %d", n, err, want)
}

// The same plan through Loki and through the memory dialect, on the same
// lines, finds the same candidates and fetches the same lines: every
// fixture case exported to a tenant of its own, and lines a shipper
// loaded (known by count, not by file and line).
func TestLokiAgrees(t *testing.T) {
	l := lokitest.Start(t)
	i := 0
	for name, files := range fixtureCases(t) {
		i++
		t.Run(name, func(t *testing.T) {
			var sent int64
			k := lokiLoad(t, l, fmt.Sprintf("case%d", i), func(st Store) { sent = exportTo(t, st, files) })
			waitCount(t, k, Eq{FieldRun, "run"}, sent)
			m := newMemStore(Limits{QueryBytes: 2 << 10, GroupLines: 7})
			exportTo(t, m, files)
			lk, mem := diagnoseFrom(t, k), diagnoseFrom(t, m)
			if !reflect.DeepEqual(lk.cand.Selection, mem.cand.Selection) || lk.cand.Matched != mem.cand.Matched {
				t.Errorf("candidates differ\nloki:   %+v (matched %d)\nmemory: %+v (matched %d)", lk.cand.Selection, lk.cand.Matched, mem.cand.Selection, mem.cand.Matched)
			}
			if !reflect.DeepEqual(lk.lines, mem.lines) {
				t.Errorf("lines differ\nloki:   %q\nmemory: %q", lk.lines, mem.lines)
			}
			sameStats(t, lk.stats, mem.stats)
		})
	}
	t.Run("shipped", func(t *testing.T) {
		recs, _, _ := partitionedRecords()
		k := lokiLoad(t, l, "shipped", func(st Store) {
			if err := st.Insert(context.Background(), strings.NewReader(jsonLines(recs))); err != nil {
				t.Fatal(err)
			}
		})
		waitCount(t, k, All{}, int64(len(recs)))
		m := memLoad(t, recs)
		lk, mem := diagnoseFrom(t, k), diagnoseFrom(t, m)
		if !reflect.DeepEqual(lk.cand.Selection, mem.cand.Selection) || lk.cand.Matched != mem.cand.Matched {
			t.Errorf("candidates differ\nloki:   %+v (matched %d)\nmemory: %+v (matched %d)", lk.cand.Selection, lk.cand.Matched, mem.cand.Selection, mem.cand.Matched)
		}
		lk.stats.Bytes, mem.stats.Bytes = 0, 0
		if mem.stats.Rounds < 2 || mem.stats.Near == 0 {
			t.Errorf("%+v: want failures' clients followed into a second round", mem.stats)
		}
		sameStats(t, lk.stats, mem.stats)
	})
	t.Run("paged", func(t *testing.T) {
		// Lines fetched 7 at a time, 5 of them at one instant: every line
		// comes once across the pages.
		t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
		var recs []map[string]string
		for j := range 40 {
			at := t0.Add(time.Duration(j/5*5) * time.Millisecond)
			recs = append(recs, map[string]string{"_msg": fmt.Sprintf("line %d", j), "_time": at.Format(time.RFC3339Nano), "idempotency_key": "k"})
		}
		k := lokiLoad(t, l, "paged", func(st Store) {
			if err := st.Insert(context.Background(), strings.NewReader(jsonLines(recs))); err != nil {
				t.Fatal(err)
			}
		})
		waitCount(t, k, All{}, int64(len(recs)))
		k.maxEntries = 7
		got := map[string]int{}
		err := k.Run(context.Background(), Lines{Filter: Eq{"idempotency_key", "k"}}, Window{}, func(r Record) error {
			got[r["_msg"]]++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			if got[r["_msg"]] != 1 {
				t.Errorf("%s came %d times", r["_msg"], got[r["_msg"]])
			}
		}
		// A page cannot hold the lines of one instant: not a part of them.
		k.maxEntries = 4
		err = k.Run(context.Background(), Lines{Filter: Eq{"idempotency_key", "k"}}, Window{}, func(Record) error { return nil })
		var ie *IncompleteError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), "lines at one instant") {
			t.Errorf("5 lines at one instant, pages of 4: %v, want an incomplete result naming the limit", err)
		}
		// More than Loki's max_entries_limit_per_query: refused, said.
		k.maxEntries = 5001
		err = k.Run(context.Background(), Lines{Filter: Eq{"idempotency_key", "k"}}, Window{}, func(Record) error { return nil })
		if !errors.As(err, &ie) || ie.Status != http.StatusBadRequest || !strings.Contains(ie.Answer, "max_entries_limit_per_query") {
			t.Errorf("pages past the store's limit: %v, want its refusal", err)
		}
	})
	t.Run("hung", func(t *testing.T) {
		st, err := Open(l.URL()+"?tenant=hung", Options{Timeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		l.Pause()
		defer l.Resume()
		_, err = st.Count(context.Background(), All{}, Window{})
		var ie *IncompleteError
		if !errors.As(err, &ie) || !errors.Is(err, ErrTimeout) {
			t.Errorf("a hung Loki: %v, want an incomplete result for the timeout", err)
		}
	})
}

// A query over Loki's limits is its refusal, said, never a part read as
// the whole: more groups than max_query_series, a window longer than
// max_query_length; and a Loki that is not there.
func TestLokiLimits(t *testing.T) {
	l := lokitest.Start(t, "max_query_series: 3", "max_query_length: 48h")
	recs, _, _ := partitionedRecords()
	k := lokiLoad(t, l, "limits", func(st Store) {
		if err := st.Insert(context.Background(), strings.NewReader(jsonLines(recs))); err != nil {
			t.Fatal(err)
		}
	})
	w := Window{Start: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	waitCountIn(t, k, All{}, w, int64(len(recs)))
	ctx := context.Background()
	_, _, err := Collect(ctx, k, w, time.Hour, NearWindow, time.Now)
	var ie *IncompleteError
	if !errors.As(err, &ie) || !strings.Contains(ie.Answer, "maximum number of series") {
		t.Errorf("more keys than max_query_series: %v, want Loki's refusal", err)
	}
	w.Start = w.End.Add(-72 * time.Hour)
	_, _, err = Collect(ctx, k, w, time.Hour, NearWindow, time.Now)
	if !errors.As(err, &ie) || !strings.Contains(ie.Answer, "query time range exceeds the limit") {
		t.Errorf("a window over max_query_length: %v, want Loki's refusal", err)
	}
	l.Stop()
	_, err = k.Count(ctx, All{}, w)
	if !errors.As(err, &ie) || ie.Status != 0 {
		t.Errorf("Loki gone: %v, want an incomplete result", err)
	}
}

// Faults the real Loki does not make on demand, from a stand-in: a 429,
// a warning that the answer is partial, an answer cut short, an answer
// of another kind. Each is an incomplete result, never records.
func TestLokiFaultsStandIn(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"rate limited", 429, "too many outstanding requests", "limiting this tenant's queries"},
		{"partial", 200, `{"status":"success","warnings":["maximum number of series (500) reached for a single query; returning partial results"],"data":{"resultType":"vector","result":[{"metric":{},"value":[1,"5"]}]}}`, "not whole"},
		{"cut short", 200, `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"val`, "cut short"},
		{"not a vector", 200, `{"status":"success","data":{"resultType":"streams","result":[]}}`, "not a vector"},
		{"failed", 200, `{"status":"error","data":{}}`, "status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tenant, auth string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				tenant, auth = r.Header.Get("X-Scope-OrgID"), r.Header.Get("Authorization")
				w.WriteHeader(tt.status)
				fmt.Fprint(w, tt.body)
			}))
			defer srv.Close()
			env := map[string]string{"IDEM_LOGSTORE_TOKEN": "s3cret-token"}
			st, err := Open("loki://"+strings.TrimPrefix(srv.URL, "http://")+"?tenant=team-a", Options{Getenv: func(k string) string { return env[k] }})
			if err != nil {
				t.Fatal(err)
			}
			n, err := st.Count(context.Background(), All{}, Window{})
			var ie *IncompleteError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%d, %v: want an incomplete result saying %q", n, err, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), "s3cret") {
				t.Errorf("the token is in the message: %v", err)
			}
			if tenant != "team-a" || auth != "Bearer s3cret-token" {
				t.Errorf("sent tenant %q and authorization %q", tenant, auth)
			}
		})
	}
}
