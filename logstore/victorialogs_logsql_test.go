package logstore

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// canned is a store's answer to the queries holding every one of match
// ("==Q": the query Q itself).
type canned struct {
	match []string
	lines []string
}

// cannedStore answers like VictoriaLogs from canned answers (the first
// that matches; none is an empty answer), and writes down every request:
// what the plan compiles to, as sent.
func cannedStore(t *testing.T, addr string, opts Options, fields []string, answers []canned) (*victoriaLogs, *strings.Builder) {
	t.Helper()
	var log strings.Builder
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		fmt.Fprintf(&log, "%s %s", r.Method, r.URL.Path)
		for _, p := range []string{"start", "end"} {
			if v := r.Form.Get(p); v != "" {
				fmt.Fprintf(&log, " %s=%s", p, v)
			}
		}
		q := r.Form.Get("query")
		fmt.Fprintf(&log, "\n%s\n\n", q)
		if strings.HasSuffix(r.URL.Path, "/field_names") {
			var vals []string
			for _, f := range fields {
				vals = append(vals, fmt.Sprintf(`{"value":%q,"hits":1}`, f))
			}
			fmt.Fprintf(w, `{"values":[%s]}`, strings.Join(vals, ","))
			return
		}
	next:
		for _, a := range answers {
			for _, m := range a.match {
				if exact, ok := strings.CutPrefix(m, "=="); ok && q != exact || !ok && !strings.Contains(q, m) {
					continue next
				}
			}
			for _, l := range a.lines {
				io.WriteString(w, l+"\n")
			}
			return
		}
	}))
	t.Cleanup(srv.Close)
	st, err := Open("victorialogs://"+strings.TrimPrefix(srv.URL, "http://")+addr, opts)
	if err != nil {
		t.Fatal(err)
	}
	return st.(*victoriaLogs), &log
}

// goldenFile compares got with testdata/NAME.golden, or rewrites it with
// -update.
func goldenFile(t *testing.T, name string, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./logstore -run %s -update)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("the queries sent differ from %s; run go test ./logstore -run %s -update and review the diff\n--- got ---\n%s", path, t.Name(), got)
	}
}

var t9 = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

func at(d time.Duration) string { return t9.Add(d).Format(time.RFC3339Nano) }

// The LogsQL a diagnosis sends, query by query, for representative
// stores: idem's own export (every field, a window large enough to group
// in partitions, lines with a secret, a failure's client whose next write
// brings new keys, loaded by idem and by a shipper), a proxy's shipped
// lines under a --query scope, and a selection too large for one query.
func TestLogsQLGolden(t *testing.T) {
	ctx := context.Background()
	w := Window{Start: t9.Add(-time.Hour), End: t9.Add(time.Hour)}
	clock := func() time.Time { return t9 }
	t.Run("export", func(t *testing.T) {
		fields := []string{"_msg", "_stream", "_time", "idempotency_key", "key_hash", "request_id", "status", "outcome", "decision", "state",
			"client", "fingerprint", "method", "route", FieldFile, FieldLine, FieldFormat, FieldRun, FieldActivity, FieldSecret}
		keys := `stats by ("idempotency_key", "key_hash") count() as c, count_uniq`
		v, log := cannedStore(t, "?account=3", Options{}, fields, []canned{
			{[]string{"* | stats count() as n"}, []string{`{"n":"6000000"}`}},
			{[]string{keys, "idem_p:=0"}, []string{fmt.Sprintf(`{"idempotency_key":"k1","key_hash":"","c":"3","d":"2","f":"1","t":%q,"u":%q}`, at(0), at(30*time.Second))}},
			{[]string{keys, "idem_p:=2"}, []string{fmt.Sprintf(`{"idempotency_key":"","key_hash":"h2","c":"2","d":"2","f":"0","t":%q,"u":%q}`, at(40*time.Minute), at(41*time.Minute))}},
			{[]string{`stats by ("request_id") count() as c, count_uniq`, "idem_p:=1"}, []string{fmt.Sprintf(`{"request_id":"r9","c":"2","k":"2","t":%q,"u":%q}`, at(time.Minute), at(2*time.Minute))}},
			{[]string{`stats by ("fingerprint")`}, []string{fmt.Sprintf(`{"fingerprint":"fp1","c":"2","d":"2","t":%q,"u":%q}`, at(5*time.Minute), at(6*time.Minute))}},
			{[]string{"| fields _time, "}, []string{
				fmt.Sprintf(`{"_time":%q,"client":"10.0.0.1","request_id":"r-lost","method":"POST","route":"/v1/orders"}`, at(10*time.Minute)),
				fmt.Sprintf(`{"_time":%q,"client":"10.0.0.2","request_id":"r5","method":"POST","route":"/v1/pay","idempotency_key":"k5"}`, at(20*time.Minute)),
			}},
			{[]string{`-("idempotency_key":*)`, "| stats count() as n"}, []string{`{"n":"4"}`}},
			{[]string{`"idem.run":="run1"`}, []string{`{"n":"16"}`}},
			{[]string{`"client":in("10.0.0.1")`}, []string{
				fmt.Sprintf(`{"_msg":"next","_time":%q,"client":"10.0.0.1","method":"POST","route":"/v1/orders","idempotency_key":"k-new","request_id":"r-new","idem.file":"server.log","idem.line":"7"}`, at(10*time.Minute+20*time.Second)),
				fmt.Sprintf(`{"_msg":"shipped","_time":%q,"_stream":"{app=\"api\"}","client":"10.0.0.1","method":"POST","route":"/v1/orders","idempotency_key":"k-ship","request_id":"r-ship"}`, at(10*time.Minute+30*time.Second)),
				fmt.Sprintf(`{"_msg":"later","_time":%q,"client":"10.0.0.1","method":"POST","route":"/v1/orders","idem.file":"server.log","idem.line":"9"}`, at(15*time.Minute)),
			}},
			{[]string{`=="idem.secret":="1"`}, []string{fmt.Sprintf(`{"_msg":"token","_time":%q,"idem.secret":"1","idem.file":"app.log","idem.line":"3"}`, at(0))}},
		})
		srcs, stats, err := Collect(ctx, v, w, time.Hour, NearWindow, clock)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := CountRun(ctx, v, "run1"); err != nil || n != 16 {
			t.Fatalf("CountRun: %d, %v", n, err)
		}
		fmt.Fprintf(log, "# %d sources, %d queries shown, %d matched, %d keys, %d near, %d received, %d kept, %d rounds\n",
			len(srcs), len(stats.Queries), stats.Matched, stats.Keys, stats.Near, stats.Received, stats.Transferred, stats.Rounds)
		for _, q := range stats.Queries {
			fmt.Fprintf(log, "# shown: %s\n", q)
		}
		goldenFile(t, "logsql/export", log.String())
	})
	t.Run("proxy scoped", func(t *testing.T) {
		fields := []string{"_msg", "_stream", "_time", "http_idempotency_key", "http.request_id", "status", "remote_addr", "request_method", "request_uri"}
		v, log := cannedStore(t, "?msg_field=request_uri&time_field=msec", Options{Query: `{app="nginx"}`}, fields, []canned{
			{[]string{`stats by ("http_idempotency_key")`}, []string{
				fmt.Sprintf(`{"http_idempotency_key":"k\"q","c":"2","d":"2","f":"1","t":%q,"u":%q}`, at(0), at(time.Second)),
				fmt.Sprintf(`{"http_idempotency_key":"k\\b","c":"2","d":"1","f":"1","t":%q,"u":%q}`, at(time.Minute), at(time.Minute)),
			}},
			{[]string{"| fields _time, "}, []string{
				fmt.Sprintf(`{"_time":%q,"remote_addr":"10.0.0.9","http.request_id":"r1","request_method":"PUT","request_uri":"/v1/a","http_idempotency_key":"k\"q"}`, at(0)),
			}},
			{[]string{"| stats count() as n"}, []string{`{"n":"0"}`}},
		})
		v.GroupLines = 0
		p := newPlanner(v)
		srcs, stats, err := p.collect(ctx, Window{}, time.Hour, clock)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(log, "# %d sources, %d queries shown, %d matched, %d keys, %d near, %d received, %d kept, %d rounds, join %q, raw %q\n",
			len(srcs), len(stats.Queries), stats.Matched, stats.Keys, stats.Near, stats.Received, stats.Transferred, stats.Rounds, p.JoinFields(), p.RawKeyFields())
		goldenFile(t, "logsql/proxy-scoped", log.String())
	})
	t.Run("batches", func(t *testing.T) {
		v, log := cannedStore(t, "", Options{Query: "env:prod"}, nil, nil)
		v.maxQueryBytes = 600
		p := newPlanner(v)
		p.rawKeys, p.methods = []string{"idempotency_key"}, []string{"method"}
		sel := Selection{Values: map[string][]string{}, At: map[string]time.Time{}, Last: map[string]time.Time{}, Have: map[string][]Held{}, Widen: time.Minute}
		for i := range 40 {
			k := fmt.Sprintf("key-%03d-%s", i, strings.Repeat("x", 20))
			sel.Values["idempotency_key"] = append(sel.Values["idempotency_key"], k)
			if i%4 != 0 {
				id := "idempotency_key\x00" + k
				sel.At[id], sel.Last[id] = t9.Add(time.Duration(i)*time.Minute), t9.Add(time.Duration(i)*time.Minute+90*time.Second)
			}
			sel.Near = append(sel.Near, Near{Field: "client", Value: fmt.Sprintf("10.0.%d.%d", i/10, i), Time: t9.Add(time.Duration(i) * 20 * time.Second),
				Also: map[string]string{"method": "POST"}, Not: map[string]string{"idempotency_key": fmt.Sprintf("own-%03d", i)}})
		}
		for i := range 30 {
			r := fmt.Sprintf("rid-%03d", i)
			sel.Values["request_id"] = append(sel.Values["request_id"], r)
			if i%3 == 0 {
				id := "request_id\x00" + r
				sel.At[id] = t9.Add(time.Duration(i) * time.Minute)
			}
		}
		for i := range 12 {
			r := fmt.Sprintf("held-%03d", i)
			sel.Values["key_hash"] = append(sel.Values["key_hash"], r)
			h := []Held{{File: fmt.Sprintf("f%d.log", i%3), Line: fmt.Sprint(i + 1)}}
			if i%2 == 1 {
				h = []Held{{}, {}}[:1+i%4/2]
			}
			sel.Have["key_hash\x00"+r] = h
		}
		if err := p.Fetch(ctx, sel, w, func(Record) error { return nil }); err != nil {
			t.Fatal(err)
		}
		sel.Unkeyed = []string{"idempotency_key"}
		sel.Near = nil
		fmt.Fprintf(log, "# the same, following request ids to lines without a key\n\n")
		if err := p.Fetch(ctx, sel, w, func(Record) error { return nil }); err != nil {
			t.Fatal(err)
		}
		// Failures' clients a run at a time, leaving out the keys whose
		// lines came whole, the run cut where those make it too long.
		fmt.Fprintf(log, "# timed keys and failures' clients under a larger limit\n\n")
		v.maxQueryBytes = 1400
		near := sel.Near[:0:0]
		for i := range 40 {
			near = append(near, Near{Field: "client", Value: fmt.Sprintf("10.1.0.%d", i%7), Time: t9.Add(time.Duration(i) * 50 * time.Second),
				Also: map[string]string{"method": "POST"}, Not: map[string]string{"idempotency_key": fmt.Sprintf("own-%03d", i)}})
		}
		timed := Selection{Values: map[string][]string{}, At: sel.At, Last: sel.Last, Widen: time.Minute, Near: near}
		for _, k := range sel.Values["idempotency_key"] {
			if !sel.At["idempotency_key\x00"+k].IsZero() {
				timed.Values["idempotency_key"] = append(timed.Values["idempotency_key"], k)
			}
		}
		if err := p.Fetch(ctx, timed, w, func(Record) error { return nil }); err != nil {
			t.Fatal(err)
		}
		goldenFile(t, "logsql/batches", log.String())
	})
}
