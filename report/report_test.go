package report

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/load"
	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/trace"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// loadSet reads and correlates the inputs.
func loadSet(t *testing.T, paths []string) *model.Set {
	t.Helper()
	set, err := load.Files(context.Background(), paths, load.Options{Read: ingest.Options{}, Build: diagnose.DefaultOptions().Build()})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func build(t *testing.T, glob string) *Report {
	t.Helper()
	paths, _ := filepath.Glob(glob)
	set := loadSet(t, paths)
	res := diagnose.Run(set, diagnose.DefaultOptions())
	return &Report{Inputs: set.Inputs, Summary: res.Summary, Findings: res.Findings, NotEvaluated: res.NotEvaluated}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; run go test ./report -update and review the diff\n--- got ---\n%s", name, got)
	}
}

func TestGoldenReports(t *testing.T) {
	for _, tc := range []struct{ name, glob string }{
		{"incident", "../fixtures/incident/*"},
		{"retry-new-key", "../fixtures/scenarios/retry-new-key/*"},
		// A real backend's log alone: no finding, and the rules that could
		// not look named instead of "No findings.".
		{"app-alone", "../fixtures/real/nginx/app.jsonl"},
	} {
		r := build(t, tc.glob)
		for _, width := range []int{60, 80, 120} {
			var text bytes.Buffer
			r.Text(&text, NewStyles(&text, false), width)
			golden(t, fmt.Sprintf("%s.w%d.txt", tc.name, width), text.Bytes())
			if bytes.Contains(text.Bytes(), []byte("\x1b[")) {
				t.Errorf("%s: escape sequences in plain text", tc.name)
			}
			assertFits(t, tc.name, text.String(), width)
		}
		var md, js bytes.Buffer
		r.Markdown(&md)
		if err := r.JSON(&js); err != nil {
			t.Fatal(err)
		}
		golden(t, tc.name+".md", md.Bytes())
		golden(t, tc.name+".json", js.Bytes())
		if !json.Valid(js.Bytes()) {
			t.Errorf("%s: invalid JSON", tc.name)
		}
	}
}

// assertFits fails when a line of a text report is wider than the width it
// was laid out for, unless the line is one word (an id or a path, which is
// never split). The first line, the counts, stays one line whatever the
// width, for scripts that read it with sed -n 1p.
func assertFits(t *testing.T, name, text string, width int) {
	t.Helper()
	for i, line := range strings.Split(text, "\n")[1:] {
		i++
		if n := utf8.RuneCountInString(line); n > width && len(strings.Fields(line)) > 1 {
			t.Errorf("%s at %d columns: line %d is %d wide: %q", name, width, i+1, n, line)
		}
	}
}

// Every output names the rules that could not look, and none of them
// says "No findings." then.
func TestNotEvaluatedInEveryOutput(t *testing.T) {
	r := build(t, "../fixtures/real/nginx/app.jsonl")
	if len(r.NotEvaluated) == 0 {
		t.Fatal("the backend's log alone let every rule look")
	}
	var text, md, html, js bytes.Buffer
	r.Text(&text, NewStyles(&text, false), 100)
	r.Markdown(&md)
	if err := r.HTML(&html); err != nil {
		t.Fatal(err)
	}
	if err := r.JSON(&js); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String(), "html": html.String()} {
		// Neither the verdict nor the summary line says "no findings" bare.
		if strings.Contains(out, "No findings.") || strings.Contains(out, "; no findings\n") || strings.Contains(out, "; no findings<") ||
			!strings.Contains(strings.ToLower(out), "no findings from the rules that could look") || !strings.Contains(out, "inconclusive") ||
			!strings.Contains(out, "no client or proxy log, so no tier could see a response go missing") {
			t.Errorf("%s:\n%s", name, out)
		}
	}
	if !strings.Contains(html.String(), `<section id="not-evaluated">`) || !strings.Contains(md.String(), "### Not evaluated") {
		t.Error("no not-evaluated section in HTML or Markdown")
	}
	var doc struct {
		Summary struct {
			Inconclusive bool `json:"inconclusive"`
			N            int  `json:"rules_not_evaluated"`
		} `json:"summary"`
		NotEvaluated []struct{ Rule, Why, Log string } `json:"not_evaluated"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if !doc.Summary.Inconclusive || doc.Summary.N != len(doc.NotEvaluated) || len(doc.NotEvaluated) != len(r.NotEvaluated) ||
		doc.NotEvaluated[0].Rule != "response-lost" || doc.NotEvaluated[0].Log == "" {
		t.Errorf("json: %+v", doc)
	}
}

func TestGoldenTrace(t *testing.T) {
	paths, _ := filepath.Glob("../fixtures/incident/*")
	paths = append(paths, "../fixtures/exports/fluentbit.jsonl")
	set := loadSet(t, paths)
	key := "0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41"
	for _, width := range []int{60, 80, 120} {
		var b bytes.Buffer
		TraceText(&b, NewStyles(&b, false), set, key, set.FindIntent(key), width)
		golden(t, fmt.Sprintf("trace.w%d.txt", width), b.Bytes())
		assertFits(t, "trace", b.String(), width)
	}
}

// TestTraceShowsTheMessage: a line that says nothing the model reads (no
// status, decision or result) shows its log message, aligned with the rest.
func TestTraceShowsTheMessage(t *testing.T) {
	c := trace.NewCorrelator(nil)
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	c.Add(&model.Observation{Tier: model.TierProxy, Time: t0, RequestID: "r1", Key: "k1", Method: "POST", Route: "/v1/x", Status: 201,
		Outcome: model.OutcomeOK, Duration: 30 * time.Millisecond, Source: model.Source{File: "access.log", Line: 1}})
	c.Add(&model.Observation{Tier: model.TierServer, Time: t0.Add(time.Millisecond), RequestID: "r1", Key: "k1",
		Message: "charging card via provider\x1b[2J", Source: model.Source{File: "app.jsonl", Line: 7}})
	set := c.Set(nil)
	var b bytes.Buffer
	TraceText(&b, NewStyles(&b, false), set, "k1", set.FindIntent("k1"), 120)
	want := []string{
		"    09:00:00.000Z  proxy   201  30ms                             access.log:1",
		`    09:00:00.001Z  server  -    charging card via provider\e[2J  app.jsonl:7`,
	}
	for _, w := range want {
		if !strings.Contains(b.String(), w+"\n") {
			t.Errorf("no line %q in\n%s", w, b.String())
		}
	}
}

func TestColorOnlyWhenEnabled(t *testing.T) {
	r := build(t, "../fixtures/scenarios/retry-new-key/*")
	var b bytes.Buffer
	r.Text(&b, NewStyles(&b, true), 100)
	if !bytes.Contains(b.Bytes(), []byte("\x1b[")) {
		t.Errorf("colour was asked for and none came")
	}
}

func TestJSONShape(t *testing.T) {
	r := build(t, "../fixtures/scenarios/retry-new-key/*")
	var b bytes.Buffer
	if err := r.JSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Schema string `json:"schema"`
		Inputs []struct {
			Path, Format, Tier string
			Lines, Skipped     int
		} `json:"inputs"`
		Summary  map[string]any `json:"summary"`
		Findings []struct {
			Rule, Severity, Intent, Symptom, Hypothesis, Check, Action, Narrative string
			Keys                                                                  []string
			Evidence                                                              []struct {
				Source, Tier, Time, Outcome string
				RequestID                   string `json:"request_id"`
				Status                      *int
			}
		} `json:"findings"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != "idem.report/v1" || len(doc.Inputs) != 3 || len(doc.Findings) != 2 {
		t.Fatalf("document: %+v", doc)
	}
	f := doc.Findings[0]
	if f.Rule != "retry-new-key" || f.Severity != "critical" || len(f.Keys) != 2 || f.Symptom == "" || f.Action == "" || f.Intent == "" {
		t.Errorf("finding: %+v", f)
	}
	for _, e := range f.Evidence {
		if e.Source == "" || e.Tier == "" || e.Status == nil || e.RequestID == "" {
			t.Errorf("evidence: %+v", e)
		}
	}
	if doc.Summary["intents"].(float64) != 2 {
		t.Errorf("summary: %v", doc.Summary)
	}
}

func TestSafeEscapesControlSequences(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain id-42", "plain id-42"},
		{"\x1b[31mred\x1b[0m", `\e[31mred\e[0m`},
		{"\x1b]8;;https://evil.example\x07click\x1b]8;;\x07", `\e]8;;https://evil.example\x07click\e]8;;\x07`},
		{"\x1b]52;c;ZWNobyBwd25lZA==\x07", `\e]52;c;ZWNobyBwd25lZA==\x07`},
		{"over\rwrite\bx", `over\rwrite\x08x`},
		{"line\nbreak\ttab", `line\nbreak\ttab`},
		{"c1 \u009b31m", `c1 \x9b31m`},
		{"bidi \u202eevil", `bidi \u202eevil`},
		{"bad \xff utf8", `bad \xff utf8`},
	}
	for _, tt := range tests {
		if got := Safe(tt.in); got != tt.want {
			t.Errorf("Safe(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestMarkdownCannotBeRestructured(t *testing.T) {
	got := md("a | b\n| c | `code` <img src=x onerror=alert(1)> [link](http://x) **bold**")
	for _, bad := range []string{"\n", " | ", "`code`", "<img", "[link](", "**bold**"} {
		if strings.Contains(got, bad) {
			t.Errorf("MD left %q in %q", bad, got)
		}
	}
}

func TestMarkdownNeutralisesAutolinks(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"see https://evil.example/login now", `see https\://evil.example/login now`},
		{"HTTP://EVIL.EXAMPLE", `HTTP\://EVIL.EXAMPLE`},
		{"ftp://x.example", `ftp\://x.example`},
		{"go to www.evil.example", `go to www\.evil.example`},
		{"WWW.Evil.example", `WWW\.Evil.example`},
		{"mail ops@evil.example", `mail ops\@evil.example`},
		{"plain ord_1 at 09:14:02.105Z", `plain ord\_1 at 09:14:02.105Z`},
	} {
		if got := md(tc.in); got != tc.want {
			t.Errorf("MD(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSecretsAreRedacted(t *testing.T) {
	for _, s := range []string{
		"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc.def",
		`{"Cookie":"session=9f8e7d6c5b4a"}`,
		"GET /v1/x?token=s3cr3tvalue&page=2",
		"password=hunter2hunter2",
		"key sk_live_51HxAbCdEfGhIjKlMnOpQr",
		"aws AKIAIOSFODNN7EXAMPLE",
	} {
		got := Safe(s)
		for _, secret := range []string{"eyJhbGciOiJIUzI1NiJ9", "9f8e7d6c5b4a", "s3cr3tvalue", "hunter2", "sk_live_51Hx", "AKIAIOSFODNN7EXAMPLE"} {
			if strings.Contains(got, secret) {
				t.Errorf("Safe(%q) = %q still holds %q", s, got, secret)
			}
		}
	}
	if got := Safe("GET /v1/x?page=2"); got != "GET /v1/x?page=2" {
		t.Errorf("harmless text changed: %q", got)
	}
}

func FuzzSafe(f *testing.F) {
	f.Add("\x1b[31mred")
	f.Add("a|b`c`\n<d>")
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{Safe(s), md(s), mermaid(s)} {
			for _, r := range out {
				if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
					t.Fatalf("control character %U in %q", r, out)
				}
			}
		}
		md := md(s)
		if strings.ContainsAny(md, "|`<>\n") && strings.Contains(md, "|") && !strings.Contains(md, `\|`) {
			t.Fatalf("unescaped pipe in %q", md)
		}
	})
}

func TestCompactJSONIsTheSameDocument(t *testing.T) {
	r := build(t, "../fixtures/scenarios/retry-new-key/*")
	var pretty, compact bytes.Buffer
	if err := r.JSON(&pretty); err != nil {
		t.Fatal(err)
	}
	r.Compact = true
	if err := r.JSON(&compact); err != nil {
		t.Fatal(err)
	}
	if bytes.Count(compact.Bytes(), []byte("\n")) != 1 {
		t.Errorf("compact JSON spans lines")
	}
	var a, b any
	if err := json.Unmarshal(pretty.Bytes(), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(compact.Bytes(), &b); err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		t.Errorf("compact and indented reports differ")
	}
}

// FuzzRenderers feeds any bytes, as a log, through reading, diagnosis and
// the renderers: no panic, valid JSON, and no control character in text,
// Markdown or HTML but the newline.
func FuzzRenderers(f *testing.F) {
	for _, p := range []string{"../fixtures/hostile/escapes.jsonl", "../fixtures/scenarios/retry-new-key/app.jsonl", "../fixtures/scenarios/unkeyed-retry/nginx.jsonl"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		set, err := load.Files(context.Background(), []string{"-"}, load.Options{Read: ingest.Options{Stdin: bytes.NewReader(data), MaxLineBytes: 1 << 16}, Build: diagnose.DefaultOptions().Build()})
		if err != nil {
			t.Fatal(err)
		}
		res := diagnose.Run(set, diagnose.DefaultOptions())
		r := &Report{Inputs: set.Inputs, Summary: res.Summary, Findings: res.Findings}
		var text, narrow, md, js, page bytes.Buffer
		r.Text(&text, NewStyles(&text, false), 80)
		r.Text(&narrow, NewStyles(&narrow, false), 40)
		r.Markdown(&md)
		if err := r.JSON(&js); err != nil || !json.Valid(js.Bytes()) {
			t.Fatalf("invalid JSON report: %v\n%s", err, js.Bytes())
		}
		if err := r.HTML(&page); err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(page.Bytes(), []byte("<script")) {
			t.Fatalf("a script element in the HTML report")
		}
		for _, out := range []string{text.String(), narrow.String(), md.String(), page.String()} {
			for _, c := range out {
				if c < 0x20 && c != '\n' || c == 0x7f || c >= 0x80 && c <= 0x9f {
					t.Fatalf("control character %U in a report", c)
				}
			}
		}
	})
}

// A server's answer stands at its end, after the lines the server wrote
// while it ran (the effect), with its duration shown as a span: in the
// trace and in a finding's evidence alike.
func TestServerAnswerStandsAtItsEnd(t *testing.T) {
	paths, _ := filepath.Glob("../fixtures/scenarios/retry-new-key/*")
	set := loadSet(t, paths)
	const key = "c0ffee00-1111-4222-8333-444455556666"
	var trace bytes.Buffer
	TraceText(&trace, NewStyles(&trace, false), set, key, set.FindIntent(key), 160)
	r := build(t, "../fixtures/scenarios/retry-new-key/*")
	var text bytes.Buffer
	r.Text(&text, NewStyles(&text, false), 160)
	for name, out := range map[string]string{"trace": trace.String(), "text": text.String()} {
		effect := strings.Index(out, "14:02:17.450Z  server  -")
		answer := strings.Index(out, "14:02:17.500Z  server  201")
		if effect < 0 || answer < effect || strings.Contains(out, "14:02:11.309Z  server  201") ||
			!strings.Contains(out, "6.191s from 14:02:11.309Z") {
			t.Errorf("%s: the 201 does not stand at its end, after the effect:\n%s", name, out)
		}
	}
	// The sequence diagram answers after the effect too.
	var md bytes.Buffer
	r.Markdown(&md)
	if effect, answer := strings.Index(md.String(), "Note over S: effect tr_001"), strings.Index(md.String(), "S-->>P: 201 new tr_001"); effect < 0 || answer < effect {
		t.Errorf("markdown: the server answers before its effect:\n%s", md.String())
	}
}
