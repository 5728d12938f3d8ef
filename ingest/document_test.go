package ingest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idem-cli/idem/formats"
	"github.com/idem-cli/idem/trace"
)

// goodLines is n JSON lines of goodLine, numbered from 1.
func goodLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, goodLine+"\n", i)
	}
	return b.String()
}

// An Envoy / Istio access log line in the default text format.
const envoyText = `[2026-11-30T14:02:11.300Z] "POST /v1/orders HTTP/1.1" 201 - via_upstream - "-" 52 96 96 95 "10.0.0.7" "curl/8.5.0" "5a0c7e21-0b1d-4c2e-8f3a-4b5c6d7e8f90" "api.example.com" "10.0.3.19:8080" outbound|8080||orders.prod.svc.cluster.local 10.0.2.4:51234 10.0.3.19:8080 10.0.0.7:40112 - default`

// A Rails request log line: a text format idem does not read.
const railsLine = `I, [2026-11-30T14:02:11.300123 #4242]  INFO -- : [5a0c7e21-0b1d-4c2e-8f3a-4b5c6d7e8f90] Started POST "/v1/orders" for 10.0.0.7 at 2026-11-30 14:02:11 +0000 with a long tail of parameters`

// TestTextStartingLikeJSONIsReadAsLines: a text log whose first line
// opens with "[" or "{" used to be taken for a JSON document and given up
// on after its first line, so the lines behind it were never read.
func TestTextStartingLikeJSONIsReadAsLines(t *testing.T) {
	tests := []struct {
		name  string
		first string
		read  int // observations of the first lines themselves
	}{
		{"bracketed time", "[2026-11-30T11:00:00Z] server starting", 0},
		{"lone bracket", "[", 0},
		{"lone brace", "{", 0},
		{"envoy text access log", envoyText, 1},
		{"kubectl prefix", "[pod/orders-api-7d9f6b8c5-qm2lx/api] listening on :8080", 0},
		{"common log date", "[30/Nov/2026:14:02:11 +0000] worker 3 ready", 0},
		{"a JSON array of one line, then lines", `["a","b"]` + "\nnot json", 0},
		{"broken object, then text", `{"time":"2026-11-30T09:14:02Z","requ` + "\nserver starting", 0},
		{"BOM and bracketed time", "\ufeff[2026-11-30T11:00:00Z] server starting", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := strings.Count(tt.first, "\n") + 1
			obs, info := readString(t, tt.name, tt.first+"\n"+goodLines(1000), Options{})
			if len(obs) != 1000+tt.read {
				t.Fatalf("%d observations, want %d; skipped %+v", len(obs), 1000+tt.read, info.SkipSamples)
			}
			obs = obs[tt.read:]
			if obs[0].Source.Line != first+1 || obs[999].Source.Line != first+1000 || info.Lines != first+1000 {
				t.Errorf("lines: first observation at %d, last at %d, %d lines", obs[0].Source.Line, obs[999].Source.Line, info.Lines)
			}
			if info.Skipped > first || info.Err != nil {
				t.Errorf("skipped %d (%+v), error %v", info.Skipped, info.SkipSamples, info.Err)
			}
			for _, s := range info.SkipSamples {
				if strings.Contains(s.Reason, "document") {
					t.Errorf("read as a document: %+v", s)
				}
			}
		})
	}
}

// TestDocumentsStayDocuments: what is a document is still read as one.
func TestDocumentsStayDocuments(t *testing.T) {
	line := func(i int) string { return fmt.Sprintf(goodLine, i) }
	tests := []struct {
		name  string
		data  string
		lines []int // where each observation starts
	}{
		{"pretty array", "[\n  " + line(1) + ",\n  " + line(2) + "\n]\n", []int{2, 3}},
		{"one-line array", "[" + line(1) + "," + line(2) + "]", []int{1, 1}},
		{"pretty objects", "{\n  \"request_id\": \"r-1\", \"method\": \"GET\", \"status\": 200\n}\n{\n  \"request_id\": \"r-2\",\n  \"method\": \"GET\", \"status\": 200\n}\n", []int{1, 4}},
		{"BOM and pretty array", "\ufeff[\n  " + line(1) + "\n]\n", []int{2}},
		{"empty array, then objects", "[]\n" + line(1) + "\n" + line(2) + "\n", []int{2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obs, info := readString(t, tt.name, tt.data, Options{})
			var got []int
			for _, o := range obs {
				got = append(got, o.Source.Line)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.lines) || info.Skipped != 0 || info.Err != nil {
				t.Errorf("observations at %v, want %v; skipped %+v, error %v", got, tt.lines, info.SkipSamples, info.Err)
			}
		})
	}
}

// TestBrokenDocumentReadsOnAsLines: a document that breaks past the part
// looked at to decide is not given up on: the break is a skipped line and
// what follows it is read as lines.
func TestBrokenDocumentReadsOnAsLines(t *testing.T) {
	var b strings.Builder
	b.WriteString("[\n")
	n := 0
	for b.Len() < 2*headBytes {
		n++
		fmt.Fprintf(&b, "  "+goodLine+",\n", n)
	}
	b.WriteString("  {\"request_id\": oops}\n") // line n+2
	b.WriteString(goodLines(3))
	obs, info := readString(t, "broken", b.String(), Options{})
	if len(obs) != n+3 {
		t.Fatalf("%d observations, want %d (elements before the break and lines after it)", len(obs), n+3)
	}
	if info.Skipped != 1 || info.SkipSamples[0].Source.Line != n+2 || !strings.Contains(info.SkipSamples[0].Reason, "read as lines") {
		t.Errorf("skipped %d: %+v", info.Skipped, info.SkipSamples)
	}
	if last := obs[len(obs)-1]; last.Source.Line != n+5 || info.Lines != n+5 {
		t.Errorf("last observation at line %d, %d lines; want %d", last.Source.Line, info.Lines, n+5)
	}
}

// TestDocumentCutShort: a document that ends inside a value was cut short,
// which is a read error (exit 2), not a quiet skip.
func TestDocumentCutShort(t *testing.T) {
	tests := []struct {
		name string
		data string
		obs  int
	}{
		{"array", "[\n  " + fmt.Sprintf(goodLine, 1) + ",\n  " + fmt.Sprintf(goodLine, 2) + ",\n", 2},
		{"inside an element", "[\n  " + fmt.Sprintf(goodLine, 1) + ",\n  {\"request_id\": \"r-2\",", 1},
		{"HAR", "{\"log\": {\"entries\": [\n" + harEntry(0, "POST", 201) + ",\n", 1},
		{"HAR after its entries", "{\"log\": {\"entries\": [" + harEntry(0, "POST", 201) + "]", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obs, info := readString(t, tt.name, tt.data, Options{})
			if len(obs) != tt.obs {
				t.Errorf("%d observations, want %d", len(obs), tt.obs)
			}
			if info.Err == nil || !strings.Contains(info.Err.Error(), "ends inside a value") {
				t.Errorf("error %v, want a cut-short document", info.Err)
			}
			if info.Skipped != 1 {
				t.Errorf("skipped %+v", info.SkipSamples)
			}
		})
	}
}

// harEntry is one entry as Playwright's recordHar writes it.
func harEntry(i int, method string, status int) string {
	failure := ""
	if status < 0 {
		failure = `,"_failureText":"net::ERR_CONNECTION_REFUSED"`
	}
	return fmt.Sprintf(`{"startedDateTime":"2026-11-30T14:02:%02d.300Z","time":31.4,"request":{"method":%q,"url":"https://api.example.com/v1/orders","httpVersion":"HTTP/1.1","cookies":[],"headers":[{"name":"Content-Type","value":"application/json"},{"name":"Idempotency-Key","value":"c0ffee00-1111-4222-8333-%012d"},{"name":"X-Request-Id","value":"5a0c7e21-0b1d-4c2e-8f3a-%012d"}],"queryString":[],"headersSize":-1,"bodySize":13,"postData":{"mimeType":"application/json","text":"{\"sku\":\"A%d\"}","params":[]}},"response":{"status":%d,"statusText":"Created","httpVersion":"HTTP/1.1","cookies":[],"headers":[{"name":"Content-Type","value":"application/json"}],"content":{"size":18,"mimeType":"application/json","text":"{\"id\":\"ord_%d\"}"},"headersSize":-1,"bodySize":18,"redirectURL":""%s},"cache":{},"timings":{"dns":-1,"connect":-1,"ssl":-1,"send":0,"wait":30.1,"receive":1.3},"pageref":"page@1","serverIPAddress":"10.0.3.19","_frameref":"frame@1","_monotonicTime":%d.5}`,
		i%60, method, i, i, i, status, i, failure, 1000+i)
}

// playwrightHAR is a HAR on one line, as Playwright writes it.
func playwrightHAR(entries int) string {
	var b strings.Builder
	b.WriteString(`{"log":{"version":"1.2","creator":{"name":"Playwright","version":"1.49.1"},"browser":{"name":"chromium","version":"131.0.6778.33"},"pages":[{"startedDateTime":"2026-11-30T14:02:00.000Z","id":"page@1","title":"Checkout","pageTimings":{"onContentLoad":-1,"onLoad":-1}}],"entries":[`)
	for i := 0; i < entries; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(harEntry(i, "POST", 201))
	}
	b.WriteString("]}}")
	return b.String()
}

// TestOneLineHAR: a HAR on one line streams entry by entry whatever its
// length (it used to be one line, dropped whole past the line limit), and
// each entry is cited by its index.
func TestOneLineHAR(t *testing.T) {
	har := playwrightHAR(300)
	for _, limit := range []int{DefaultMaxLineBytes, 4096} {
		obs, info := readString(t, "pw", har, Options{MaxLineBytes: limit})
		if len(obs) != 300 || info.Skipped != 0 || info.Format != "har" {
			t.Fatalf("line limit %d: %d observations, format %s, skipped %+v", limit, len(obs), info.Format, info.SkipSamples)
		}
		for i, o := range obs {
			if want := fmt.Sprintf("-:1#entries[%d]", i); o.Source.String() != want {
				t.Fatalf("entry %d cited as %s, want %s", i, o.Source, want)
			}
		}
		if obs[7].Key != "c0ffee00-1111-4222-8333-000000000007" || obs[7].ResultID != "ord_7" {
			t.Errorf("entry 7: key %q, result %q", obs[7].Key, obs[7].ResultID)
		}
	}
	// pretty-printed, each entry has its own line: line numbers say it all,
	// and the sources render as before.
	pretty := "{\n  \"log\": {\n    \"entries\": [\n      " + harEntry(0, "POST", 201) + ",\n      " + harEntry(1, "POST", 201) + "\n    ]\n  }\n}\n"
	obs, _ := readString(t, "pretty", pretty, Options{})
	if len(obs) != 2 || obs[0].Source.String() != "-:4" || obs[1].Source.String() != "-:5" {
		t.Errorf("pretty HAR entries: %d, %v", len(obs), obs)
	}
	// Entries that share a line after the first: only those are indexed.
	shared := "{\"log\": {\"entries\": [\n" + harEntry(0, "POST", 201) + ", " + harEntry(1, "POST", 201) + "\n]}}\n"
	obs, _ = readString(t, "shared", shared, Options{})
	if len(obs) != 2 || obs[0].Source.String() != "-:2" || obs[1].Source.String() != "-:2#entries[1]" {
		t.Errorf("entries sharing a line: %v", obs)
	}
}

// TestHARByShape: a HAR is told by its shape, {"log": {"entries": [...]}},
// not by optional fields; its entries are HAR entries by where they are.
func TestHARByShape(t *testing.T) {
	tests := []struct {
		name string
		data string
		obs  int
	}{
		{"no pages, no startedDateTime, one line", `{"log":{"entries":[{"request":{"method":"POST","url":"https://api.example.com/v1/orders","headers":[{"name":"X-Request-Id","value":"r-1"},{"name":"Idempotency-Key","value":"k-1"}]},"response":{"status":201,"headers":[]}}]}}`, 1},
		{"no pages, no startedDateTime, pretty", "{\n  \"log\": {\n    \"entries\": [\n      {\"request\": {\"method\": \"POST\", \"url\": \"https://api.example.com/v1/orders\"}, \"response\": {\"status\": 0}}\n    ]\n  }\n}\n", 1},
		{"spaces around the colon", "{ \"log\" : { \"version\": \"1.2\", \"entries\": [" + harEntry(3, "POST", 201) + "] } }", 1},
		{"BOM, one line", "\ufeff" + playwrightHAR(2), 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obs, info := readString(t, tt.name, tt.data, Options{})
			if len(obs) != tt.obs || info.Skipped != 0 || info.Err != nil {
				t.Fatalf("%d observations, want %d; skipped %+v, error %v", len(obs), tt.obs, info.SkipSamples, info.Err)
			}
			for _, o := range obs {
				if o.Format != "har" || o.Tier.String() != "client" || o.Method != "POST" {
					t.Errorf("read as %s/%s %q", o.Format, o.Tier, o.Method)
				}
			}
		})
	}
	// A Docker json-file log line has a "log" member too: a string.
	obs, info := readString(t, "docker", `{"log":"{\"time\":\"2026-11-30T09:14:02Z\",\"request_id\":\"r-1\",\"method\":\"POST\",\"status\":201}\n","stream":"stdout","time":"2026-11-30T09:14:02.1Z"}`+"\n", Options{})
	if len(obs) != 1 || obs[0].Format == "har" || info.Skipped != 0 {
		t.Errorf("docker line: %d observations, %+v", len(obs), info.SkipSamples)
	}
}

// TestBOMHAR reads mitmproxy's HAR fixture that opens with a UTF-8 BOM
// (see testdata/README.md): the BOM used to stop the JSON decoder, losing
// the file.
func TestBOMHAR(t *testing.T) {
	var col Collector
	inputs, err := Read(context.Background(), []string{"testdata/mitmproxy-with-bom.har"}, Options{}, &col)
	if err != nil {
		t.Fatal(err)
	}
	in := inputs[0]
	if len(col.Obs) != 1 || in.Skipped != 0 || in.Err != nil || in.Format != "har" {
		t.Fatalf("%d observations, format %s, skipped %+v, error %v", len(col.Obs), in.Format, in.SkipSamples, in.Err)
	}
	o := col.Obs[0]
	if o.Method != "POST" || o.Status != 200 || o.Route != "/metrics" || o.Source.Line != 10 {
		t.Errorf("entry: %s %s %d at %s", o.Method, o.Route, o.Status, o.Source)
	}
}

// TestLargeOneLineHARStreamsInBoundedMemory reads a generated one-line HAR
// of about 40 MB, past the 16 MiB line limit: every entry is read, and the
// heap stays far below the file's size.
func TestLargeOneLineHARStreamsInBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads 40 MB")
	}
	path := filepath.Join(t.TempDir(), "playwright.har")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	entries := 0
	size := 0
	n, _ := f.WriteString(`{"log":{"version":"1.2","creator":{"name":"Playwright","version":"1.49.1"},"pages":[],"entries":[`)
	size += n
	for size < 40<<20 {
		if entries > 0 {
			f.WriteString(",")
		}
		n, _ := f.WriteString(harEntry(entries, "POST", 201))
		size += n + 1
		entries++
	}
	f.WriteString("]}}")
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	var n2 counter
	inputs, err := Read(context.Background(), []string{path}, Options{}, &n2)
	close(done)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if n2.N != entries || inputs[0].Skipped != 0 {
		t.Fatalf("%d of %d entries read, skipped %+v", n2.N, entries, inputs[0].SkipSamples)
	}
	grown := int64(peak.Load()) - int64(before.HeapAlloc)
	t.Logf("%d MB, %d entries, heap grew by at most %d MB", size>>20, entries, grown>>20)
	if grown > int64(size)/4 {
		t.Errorf("heap grew by %d MB reading a %d MB HAR", grown>>20, size>>20)
	}
}

// TestRepairedLines: a JSON line with raw control bytes inside a string
// (RFC 8259 forbids them) is read, but counted as repaired and shown.
func TestRepairedLines(t *testing.T) {
	tests := []struct {
		name     string
		line     string
		repaired bool
	}{
		{"raw tab in a value", `{"time":"2026-11-30T09:14:02Z","request_id":"r-1","method":"POST","status":201,"msg":"a` + "\t" + `b"}`, true},
		{"ANSI colour in a long message", `{"time":"2026-11-30T09:14:02Z","request_id":"r-1","method":"POST","status":201,"msg":"request completed after a long wait for the upstream ` + "\x1b[31m" + `slow` + "\x1b[0m" + `"}`, true},
		{"NUL in a key", `{"time":"2026-11-30T09:14:02Z","request_id":"r-1","method":"POST","status":201,"x` + "\x00" + `":1}`, true},
		{"raw control byte nested", `{"time":"2026-11-30T09:14:02Z","request_id":"r-1","method":"POST","status":201,"req":{"headers":{"ua":"curl` + "\x01" + `"}}}`, true},
		{"escaped tab", `{"time":"2026-11-30T09:14:02Z","request_id":"r-1","method":"POST","status":201,"msg":"a\tb"}`, false},
		{"tab between members", `{"time":"2026-11-30T09:14:02Z",` + "\t" + `"request_id":"r-1","method":"POST","status":201}`, false},
		{"CRLF line end", `{"time":"2026-11-30T09:14:02Z","request_id":"r-1","method":"POST","status":201}` + "\r", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := goodLines(2) + tt.line + "\n" + goodLines(1)
			obs, info := readString(t, tt.name, data, Options{})
			if len(obs) != 4 || info.Skipped != 0 {
				t.Fatalf("%d observations, skipped %+v", len(obs), info.SkipSamples)
			}
			want := 0
			if tt.repaired {
				want = 1
			}
			if info.Repaired != want || len(info.RepairSamples) != want {
				t.Fatalf("repaired %d, samples %+v; want %d", info.Repaired, info.RepairSamples, want)
			}
			if want == 1 && (info.RepairSamples[0].Source.Line != 3 || !strings.Contains(info.RepairSamples[0].Reason, "control bytes")) {
				t.Errorf("sample %+v", info.RepairSamples[0])
			}
		})
	}
}

// TestUnrecognisedInput: an input of which no line was recognised names
// its first line, to be shown as a warning; one recognised line, or an
// empty input, says nothing.
func TestUnrecognisedInput(t *testing.T) {
	tests := []struct {
		name string
		data string
		want string // the first line's text, "" for no warning
		line int
	}{
		{"a text format idem does not read, cut at a word", railsLine + "\n" + railsLine + "\n", railsLine[:strings.LastIndexAny(railsLine[:excerptBytes], " \t,;&\"'")], 1},
		{"a secret is not cut in half", strings.Repeat("x", excerptBytes-12) + " token=sk_live_4eC39HqLyjWDarjtT1zdp7dc\n", strings.Repeat("x", excerptBytes-12), 1},
		{"after blank lines", "\n\n2026-11-30 11:00:00 INFO server starting\n", "2026-11-30 11:00:00 INFO server starting", 3},
		{"long line is cut", strings.Repeat("é", 200) + "\n", strings.Repeat("é", excerptBytes/2), 1},
		{"one recognised line", "server starting\n" + fmt.Sprintf(goodLine, 1) + "\n", "", 0},
		{"JSON that says nothing about a request", `{"level":"info","msg":"server starting"}` + "\n", "", 0},
		{"empty", "", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, info := readString(t, tt.name, tt.data, Options{})
			u := info.Unrecognised
			switch {
			case tt.want == "" && u != nil:
				t.Errorf("warned about %+v", u)
			case tt.want != "" && u == nil:
				t.Errorf("no warning; skipped %+v", info.SkipSamples)
			case tt.want != "" && (u.Text != tt.want || u.Source.Line != tt.line):
				t.Errorf("first unrecognised line %d %q, want %d %q", u.Source.Line, u.Text, tt.line, tt.want)
			}
		})
	}
	// Also from a document: its first element.
	_, info := readString(t, "array of strings", "[\n  \"a\",\n  \"b\"\n]\n", Options{})
	if info.Unrecognised == nil || info.Unrecognised.Source.Line != 2 || info.Unrecognised.Text != `"a"` {
		t.Errorf("document: %+v", info.Unrecognised)
	}
}

// TestKeepGoingPastAMissingInput: one missing input among several is
// summarised with its error and the others are read.
func TestKeepGoingPastAMissingInput(t *testing.T) {
	dir := t.TempDir()
	a, c := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "c.jsonl")
	os.WriteFile(a, []byte(goodLines(2)), 0o644)
	os.WriteFile(c, []byte(goodLines(3)), 0o644)
	paths := []string{a, filepath.Join(dir, "b.jsonl"), c}

	var n counter
	inputs, err := Read(context.Background(), paths, Options{KeepGoing: true}, &n)
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) != 3 || n.N != 5 {
		t.Fatalf("%d inputs, %d observations", len(inputs), n.N)
	}
	var oe *OpenError
	if !errors.As(inputs[1].Err, &oe) || !strings.Contains(inputs[1].Err.Error(), "no such file") || inputs[0].Err != nil || inputs[2].Err != nil {
		t.Errorf("errors: %v, %v, %v", inputs[0].Err, inputs[1].Err, inputs[2].Err)
	}
	// Without it, reading stops at the missing input.
	inputs, err = Read(context.Background(), paths, Options{}, &counter{})
	var ie *InputError
	if !errors.As(err, &ie) || len(inputs) != 1 {
		t.Errorf("without KeepGoing: %v, %d inputs", err, len(inputs))
	}
}

// The forced-format path: with --input-format, a HAR's entries are read as
// that format says, not forced to HAR.
func TestHAREntriesFollowAForcedFormat(t *testing.T) {
	cfg := &formats.Config{}
	if err := cfg.Compile(); err != nil {
		t.Fatal(err)
	}
	obs, _ := readString(t, "forced", playwrightHAR(2), Options{Format: "har", Config: cfg})
	if len(obs) != 2 {
		t.Errorf("%d observations", len(obs))
	}
}

// TestHostileLookalikes pins what the look-alike inputs of
// fixtures/hostile give beyond their counts.
func TestHostileLookalikes(t *testing.T) {
	read := func(name string) ([]string, *Collector, int, []int) {
		var col Collector
		inputs, err := Read(context.Background(), []string{"../fixtures/hostile/" + name}, Options{}, &col)
		if err != nil {
			t.Fatal(err)
		}
		var srcs []string
		for _, o := range col.Obs {
			srcs = append(srcs, o.Source.String())
		}
		var repaired []int
		for _, s := range inputs[0].RepairSamples {
			repaired = append(repaired, s.Source.Line)
		}
		return srcs, &col, inputs[0].Repaired, repaired
	}
	if _, _, n, lines := read("control-bytes.jsonl"); n != 2 || fmt.Sprint(lines) != "[2 3]" {
		t.Errorf("control-bytes.jsonl: %d repaired, at %v; want 2, at [2 3]", n, lines)
	}
	srcs, col, _, _ := read("one-line.har")
	want := "[../fixtures/hostile/one-line.har:1#entries[0] ../fixtures/hostile/one-line.har:1#entries[1] ../fixtures/hostile/one-line.har:1#entries[2]]"
	if fmt.Sprint(srcs) != want {
		t.Errorf("one-line.har cited as %v", srcs)
	}
	if o := col.Obs[2]; o.Format != "har" || !o.Time.IsZero() || o.Key != "c0ffee00-1111-4222-8333-000000000003" {
		t.Errorf("the entry without startedDateTime: %s %v %q", o.Format, o.Time, o.Key)
	}
}

// TestEntryCitationsSurviveTheCorrelator: a plain entry (no body, no
// result) of a one-line HAR, which the correlator would keep compact, comes
// back out of the set still citing its entry.
func TestEntryCitationsSurviveTheCorrelator(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"log":{"entries":[`)
	for i := range 3 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"startedDateTime":"2026-11-30T14:02:0%dZ","time":31,"request":{"method":"POST","url":"https://api.example.com/v1/orders","headers":[{"name":"Idempotency-Key","value":"k-1"},{"name":"X-Request-Id","value":"r-%d"}]},"response":{"status":503,"headers":[]}}`, i, i)
	}
	b.WriteString(`]}}`)
	c := trace.NewCorrelator(nil)
	inputs, err := Read(context.Background(), []string{"-"}, Options{Stdin: strings.NewReader(b.String())}, c)
	if err != nil {
		t.Fatal(err)
	}
	set := c.Set(inputs)
	var got []string
	for _, in := range set.FindIntent("k-1") {
		for _, d := range in.Deliveries {
			for _, o := range d.Observations {
				got = append(got, o.Source.String())
			}
		}
	}
	if fmt.Sprint(got) != "[-:1#entries[0] -:1#entries[1] -:1#entries[2]]" {
		t.Errorf("cited as %v", got)
	}
}
