package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idem-cli/idem/diagnose"
)

// TestSpansAreNamed: idem trace names each span beside its tier, and the
// HTML timeline's bars list the spans they draw; a log line beside them
// is shown as before, without a span's name.
func TestSpansAreNamed(t *testing.T) {
	dir := "../fixtures/real/spans-go-otelhttp"
	set := loadSet(t, []string{filepath.Join(dir, "traces.jsonl"), filepath.Join(dir, "app.jsonl")})
	key := "key-go-otelhttp-1"
	var b bytes.Buffer
	TraceText(&b, NewStyles(&b, false), set, key, set.FindIntent(key), 160)
	text := b.String()
	for _, want := range []string{`client  timeout  span "HTTP POST" `, `server  201      span "POST" `, `span "order created" result=ord_go_2 EFFECT`} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "app.jsonl") && strings.Contains(line, "span ") {
			t.Errorf("a log line named as a span: %s", line)
		}
	}
	res := diagnose.Run(set, diagnose.DefaultOptions())
	page := htmlOf(t, &Report{Inputs: set.Inputs, Summary: res.Summary, Findings: res.Findings})
	if !strings.Contains(page, "spans HTTP POST") || !strings.Contains(page, "spans POST, order created") {
		t.Errorf("the timeline's bars do not name their spans")
	}
}
