package logstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// fakeStore answers /select/logsql/query like VictoriaLogs, refusing
// queries longer than its limit as VictoriaLogs does (HTTP 400).
func fakeStore(t *testing.T, limit int, answer func(q string) string) (*victoriaLogs, *[]string, *[]http.Header) {
	var queries []string
	var headers []http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.FormValue("query")
		if len(q) > limit {
			http.Error(w, "too long query", http.StatusBadRequest)
			return
		}
		if r.FormValue("allow_partial_response") != "false" {
			http.Error(w, "partial responses must be refused", http.StatusTeapot)
			return
		}
		queries = append(queries, q)
		headers = append(headers, r.Header.Clone())
		io.WriteString(w, answer(q))
	}))
	t.Cleanup(srv.Close)
	env := map[string]string{"IDEM_LOGSTORE_TOKEN": "tok-secret"}
	st, err := Open("victorialogs://"+strings.TrimPrefix(srv.URL, "http://")+"?account=7&project=8", Options{Getenv: func(k string) string { return env[k] }, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	v := st.(*victoriaLogs)
	v.maxQueryBytes = limit
	return v, &queries, &headers
}

// Thousands of keys go in batches under the store's query length limit,
// never in one query it would refuse; tenant and auth go with each.
func TestFetchBatchesUnderTheQueryLimit(t *testing.T) {
	v, queries, headers := fakeStore(t, 4096, func(string) string { return "" })
	var keys []string
	for i := range 2000 {
		keys = append(keys, fmt.Sprintf("key-%08d-aaaaaaaaaaaaaaaa", i))
	}
	sel := Selection{Values: map[string][]string{"http_idempotency_key": keys},
		Near: []Near{{Field: "remote_addr", Value: "10.0.0.1", Time: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}}}
	if err := newPlanner(v).Fetch(context.Background(), sel, Window{}, func(Record) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if len(*queries) < 2 {
		t.Fatalf("%d queries, want the keys split", len(*queries))
	}
	seen := 0
	for i, q := range *queries {
		seen += strings.Count(q, `"key-`)
		h := (*headers)[i]
		if h.Get("AccountID") != "7" || h.Get("ProjectID") != "8" || h.Get("Authorization") != "Bearer tok-secret" {
			t.Errorf("query %d headers %v", i, h)
		}
	}
	if seen != len(keys) {
		t.Errorf("%d keys asked for, want %d", seen, len(keys))
	}
}

// A store that stops sending JSON lines mid-answer (an error written after
// the first lines, under 200) is an incomplete result, not fewer lines.
func TestQueryCutShortIsIncomplete(t *testing.T) {
	v, _, _ := fakeStore(t, 1<<20, func(string) string {
		return `{"_msg":"a","_time":"2026-11-30T09:00:00Z"}` + "\nerror during query execution: cannot read from vlstorage\n"
	})
	n := 0
	err := v.query(context.Background(), "*", Window{}, func(Record) error { n++; return nil })
	var ie *IncompleteError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "cannot read from vlstorage") || !strings.Contains(err.Error(), "incomplete result") {
		t.Fatalf("err %v, want an incomplete result naming the store's answer", err)
	}
	if strings.Contains(err.Error(), "tok-secret") {
		t.Errorf("the token reached an error: %v", err)
	}
}

// A store that answers nothing in time is an incomplete result too.
func TestQueryTimeoutIsIncomplete(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	st, _ := Open("victorialogs://"+strings.TrimPrefix(srv.URL, "http://"), Options{Timeout: 300 * time.Millisecond})
	start := time.Now()
	_, err := st.Count(context.Background(), All{}, Window{})
	if !errors.Is(err, ErrTimeout) || time.Since(start) > 3*time.Second {
		t.Fatalf("err %v after %s, want ErrTimeout within the timeout", err, time.Since(start))
	}
}

// Every search request asks the store to give up first, by a margin that
// leaves its answer time to reach idem: the tighter of the request's
// timeout and what is left of the whole conversation's.
func TestStoreGivesUpFirst(t *testing.T) {
	for _, tc := range []struct {
		timeout, conversation time.Duration // 0: none
		lo, hi                time.Duration // the store's limit
	}{
		{timeout: 4 * time.Second, lo: 3 * time.Second, hi: 3 * time.Second},
		{timeout: time.Minute, lo: 54 * time.Second, hi: 54 * time.Second},
		{timeout: 1500 * time.Millisecond, lo: 750 * time.Millisecond, hi: 750 * time.Millisecond},
		{timeout: time.Minute, conversation: 4 * time.Second, lo: 2500 * time.Millisecond, hi: 3 * time.Second},
		{conversation: 20 * time.Second, lo: 17 * time.Second, hi: 18 * time.Second},
	} {
		var forms []url.Values
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_ = r.ParseForm()
			forms = append(forms, r.Form)
			if strings.HasSuffix(r.URL.Path, "/field_names") {
				fmt.Fprint(w, `{"values":[]}`)
			}
		}))
		st, err := Open("victorialogs://"+strings.TrimPrefix(srv.URL, "http://"), Options{Timeout: tc.timeout})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.Background(), context.CancelFunc(func() {})
		if tc.conversation > 0 {
			ctx, cancel = context.WithTimeout(ctx, tc.conversation)
		}
		v := st.(*victoriaLogs)
		_, errCount := v.Count(ctx, All{}, Window{})
		_, errFields := v.Fields(ctx, Window{})
		cancel()
		srv.Close()
		if errCount != nil || errFields != nil || len(forms) != 2 {
			t.Fatalf("%+v: %v, %v, %d requests", tc, errCount, errFields, len(forms))
		}
		for _, f := range forms {
			d, err := time.ParseDuration(f.Get("timeout"))
			if err != nil || d < tc.lo || d > tc.hi {
				t.Errorf("%+v: the store was given timeout=%q, want within [%s, %s]", tc, f.Get("timeout"), tc.lo, tc.hi)
			}
		}
	}
}

// Records come back as the store keeps them: every value a string, no
// empty values, the fields _msg_field and _time_field named folded into
// _msg and _time. rebuild makes each the line it was.
func TestRebuild(t *testing.T) {
	tests := []struct {
		name       string
		msg, tfld  string
		rec        Record
		file       string
		line       int
		wantFields map[string]any // for rebuilt JSON
		wantText   string
	}{
		{name: "exported line", rec: Record{"_msg": `{"a":1}`, FieldFile: "x/app.jsonl", FieldLine: "7", "_stream": "{}"},
			file: "x/app.jsonl", line: 7, wantText: `{"a":1}`},
		{name: "text line shipped whole", rec: Record{"_msg": `10.0.0.1 - - [30/Nov/2026:09:00:00 +0000] "POST /x HTTP/1.1" 201 2`, "_stream": `{app="nginx"}`, "_time": "2026-11-30T09:00:00Z"},
			file: `victorialogs:{app="nginx"}`, wantText: `10.0.0.1 - - [30/Nov/2026:09:00:00 +0000] "POST /x HTTP/1.1" 201 2`},
		{name: "JSON line shipped whole", rec: Record{"_msg": `{"status":201}`, "_stream": "{}", "level": "info"},
			file: "victorialogs:{}", wantText: `{"status":201}`},
		{name: "fields, _msg_field and _time_field put back", msg: "request_uri", tfld: "msec",
			rec:  Record{"_msg": "/v1/orders", "_time": "2026-11-30T09:00:00.5Z", "status": "201", "http_idempotency_key": "k1", "_stream": "{}", "_stream_id": "x"},
			file: "victorialogs:{}", wantFields: map[string]any{"request_uri": "/v1/orders", "msec": "2026-11-30T09:00:00.5Z", "status": "201", "http_idempotency_key": "k1"}},
		{name: "flattened names nest again", rec: Record{"_msg": "missing _msg field; see https://docs.victoriametrics.com/", "http.request_id": "r1", "http.status_code": "502", "http": "x"},
			file: "victorialogs:", wantFields: map[string]any{"http": "x", "http.request_id": "r1", "http.status_code": "502"}},
		{name: "nested", rec: Record{"req.id": "r1", "req.method": "POST"},
			file: "victorialogs:", wantFields: map[string]any{"req": map[string]any{"id": "r1", "method": "POST"}}},
	}
	for _, tt := range tests {
		c := &collector{shipped: (&victoriaLogs{msgField: tt.msg, timeField: tt.tfld}).Rebuild}
		file, line, text := c.rebuild(tt.rec)
		if file != tt.file || line != tt.line {
			t.Errorf("%s: at %s:%d, want %s:%d", tt.name, file, line, tt.file, tt.line)
		}
		if tt.wantFields == nil {
			if text != tt.wantText {
				t.Errorf("%s: %q, want %q", tt.name, text, tt.wantText)
			}
			continue
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(text), &got); err != nil {
			t.Fatalf("%s: %v: %s", tt.name, err, text)
		}
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(tt.wantFields)
		if string(g) != string(w) {
			t.Errorf("%s: %s, want %s", tt.name, g, w)
		}
	}
}

// Without application/stream+json VictoriaLogs answers 200 and keeps
// nothing or a part: every insert names it, and the fields that hold the
// message and the time.
func TestInsertNamesContentTypeAndFields(t *testing.T) {
	var got *http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Clone(context.Background())
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	defer srv.Close()
	st, _ := Open("victorialogs://"+strings.TrimPrefix(srv.URL, "http://"), Options{})
	if err := st.Insert(context.Background(), strings.NewReader(`{"_msg":"x"}`+"\n")); err != nil {
		t.Fatal(err)
	}
	q := got.URL.Query()
	if got.URL.Path != "/insert/jsonline" || got.Header.Get("Content-Type") != "application/stream+json" ||
		q.Get("_msg_field") != "_msg" || q.Get("_time_field") != "_time" {
		t.Errorf("insert %s %v %v", got.URL.Path, got.Header, q)
	}
}
