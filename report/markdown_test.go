package report

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/trace"
)

// hostileReport is a diagnosis whose log content tries to break out of
// Markdown tables and Mermaid messages.
func hostileReport() *Report {
	nasty := "x|y`z`\n## injected | row\r\n<script>alert(1)</script> ->> S: fake; Note over C: pwned %% \x1b[31m" +
		" https://evil.example/login www.evil.example ops@evil.example"
	c := trace.NewCorrelator(nil)
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	key := "k-" + nasty
	c.Add(&model.Observation{Tier: model.TierClient, Time: t0, RequestID: "r1" + nasty, Key: key, Method: "POST", Route: "/v1/" + nasty,
		Outcome: model.OutcomeTimeout, Detail: nasty, Source: model.Source{File: "c|lient.har", Line: 1}})
	c.Add(&model.Observation{Tier: model.TierServer, Time: t0.Add(time.Second), RequestID: "r1" + nasty, KeyHash: "h", Status: 201,
		Outcome: model.OutcomeOK, Effect: true, ResultID: "ord|" + nasty, Message: nasty, Source: model.Source{File: "app.jsonl", Line: 2}})
	set := c.Set([]*model.Input{{Path: "c|lient.har", Format: "har", Tier: "client", Lines: 1, Formats: map[string]int{}}})
	res := diagnose.Run(set, diagnose.DefaultOptions())
	return &Report{Inputs: set.Inputs, Summary: res.Summary, Findings: res.Findings}
}

func TestHostileMarkdownKeepsItsStructure(t *testing.T) {
	r := hostileReport()
	if len(r.Findings) == 0 {
		t.Fatal("the hostile report has no finding to render")
	}
	var md bytes.Buffer
	r.Markdown(&md)
	out := md.String()
	for _, bad := range []string{"\n## injected", "<script>", "\x1b", "`z`"} {
		if strings.Contains(out, bad) {
			t.Errorf("log content %q reached the Markdown unescaped", bad)
		}
	}
	// Inside a diagram, log content must not start a message or a note.
	for _, block := range strings.Split(out, "```mermaid")[1:] {
		diagram, _, _ := strings.Cut(block, "```")
		for _, bad := range []string{"Note over C: pwned", "S: fake", "%%"} {
			if strings.Contains(diagram, bad) {
				t.Errorf("log content %q reached a Mermaid diagram", bad)
			}
		}
	}
	var text bytes.Buffer
	r.Text(&text, NewStyles(&text, false), 100)
	if bytes.Contains(text.Bytes(), []byte("\x1b")) || bytes.Contains(text.Bytes(), []byte("\r")) {
		t.Errorf("control characters reached the text report")
	}
}

// TestMarkdownRenders parses every Markdown report with marked and every
// Mermaid diagram with mermaid's own parser (Node.js, installed by
// `npm ci --prefix report/testdata/mdcheck`). CI installs them; elsewhere
// the test skips when they are missing.
func TestMarkdownRenders(t *testing.T) {
	checker, _ := filepath.Abs("testdata/mdcheck/check.mjs")
	if _, err := exec.LookPath("node"); err != nil || !exists("testdata/mdcheck/node_modules/mermaid") {
		if os.Getenv("CI") != "" {
			t.Fatal("CI must run this test: node and `npm ci --prefix report/testdata/mdcheck` are needed")
		}
		t.Skip("node or the mdcheck packages are missing; run: npm ci --prefix report/testdata/mdcheck")
	}
	dir := t.TempDir()
	var files []string
	write := func(name string, r *Report) {
		var b bytes.Buffer
		r.Markdown(&b)
		p := filepath.Join(dir, name+".md")
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	scenarios, _ := filepath.Glob("../fixtures/scenarios/*")
	for _, sc := range scenarios {
		if st, err := os.Stat(sc); err == nil && st.IsDir() {
			write(filepath.Base(sc), build(t, sc+"/*"))
		}
	}
	write("incident", build(t, "../fixtures/incident/*"))
	write("hostile", hostileReport())
	write("hostile-fixtures", build(t, "../fixtures/hostile/*"))
	out, err := exec.Command("node", append([]string{checker}, files...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("Markdown check failed: %v\n%s", err, out)
	}
	if n := strings.Count(string(out), "ok no links"); n != 2 {
		t.Errorf("%d hostile reports checked for links, want 2:\n%s", n, out)
	}
	if n := strings.Count(string(out), "ok mermaid"); n < len(scenarios) {
		t.Errorf("only %d Mermaid diagrams checked:\n%s", n, out)
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
