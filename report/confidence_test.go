package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/idem-cli/idem/diagnose"
)

// TestConfidenceInEveryOutput reads the real nginx capture, where no tier
// logged a payload: its retry under a new key is inferred, and every
// output says so, with what the logs lack; every finding of the JSON
// report has a level.
func TestConfidenceInEveryOutput(t *testing.T) {
	r := build(t, "../fixtures/real/nginx/a*.j*")
	var inferred int
	for _, f := range r.Findings {
		if f.Confidence.Level == diagnose.Inferred {
			inferred++
		}
	}
	if inferred == 0 {
		t.Fatal("no inferred finding on a capture that logs no payload")
	}
	var text, md, html, js bytes.Buffer
	r.Text(&text, NewStyles(&text, false), 200)
	r.Markdown(&md)
	if err := r.HTML(&html); err != nil {
		t.Fatal(err)
	}
	if err := r.JSON(&js); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String(), "html": html.String()} {
		if !strings.Contains(out, "inferred: rests on same client") || !strings.Contains(out, "lacks the payloads (no tier logged them)") {
			t.Errorf("%s does not say the retry under a new key is inferred, and why", name)
		}
	}
	var doc struct {
		Findings []struct {
			Rule       string
			Confidence *struct {
				Level   string   `json:"level"`
				RestsOn []string `json:"rests_on"`
				Lacks   []string `json:"lacks"`
			} `json:"confidence"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range doc.Findings {
		switch {
		case f.Confidence == nil || f.Confidence.RestsOn == nil || f.Confidence.Lacks == nil:
			t.Errorf("%s: confidence %+v, want a level and both lists", f.Rule, f.Confidence)
		case f.Confidence.Level == diagnose.Inferred:
			n++
		case f.Confidence.Level != diagnose.Proven:
			t.Errorf("%s: level %q", f.Rule, f.Confidence.Level)
		}
	}
	if n != inferred {
		t.Errorf("JSON has %d inferred findings, the diagnosis %d", n, inferred)
	}
}

// TestConfidenceIsEscaped: what a confidence rests on may quote a log (a
// client's address or user agent); it reaches no output raw.
func TestConfidenceIsEscaped(t *testing.T) {
	r := build(t, "../fixtures/real/nginx/a*.j*")
	if len(r.Findings) == 0 {
		t.Fatal("no findings")
	}
	r.Findings[0].Confidence = diagnose.Confidence{Level: diagnose.Inferred,
		RestsOn: []string{"same client \x1b[2J<script>alert(1)</script> | Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc.def"}, Lacks: []string{"the payloads"}}
	var text, md, html, js bytes.Buffer
	r.Text(&text, NewStyles(&text, false), 200)
	r.Markdown(&md)
	if err := r.HTML(&html); err != nil {
		t.Fatal(err)
	}
	if err := r.JSON(&js); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String(), "html": html.String(), "json": js.String()} {
		if strings.Contains(out, "eyJhbGciOiJIUzI1NiJ9") {
			t.Errorf("%s holds the token", name)
		}
		if strings.Contains(out, "\x1b[2J") {
			t.Errorf("%s holds a raw escape sequence", name)
		}
	}
	if strings.Contains(html.String(), "<script>alert") {
		t.Error("html holds the script")
	}
	if strings.Contains(md.String(), "<script>alert(1)</script> |") {
		t.Error("markdown holds the raw cell separator")
	}
}
