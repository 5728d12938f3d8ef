package spanharness

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/idem-cli/idem/internal/kit/capture"
)

var update = flag.Bool("update", false, "rewrite fixtures/real/ from this run's captures")

// fixturesDir is where the captures are kept.
const fixturesDir = "../../../fixtures/real"

// The captures, by library: their folder under fixtures/real/.
var captures = []string{"spans-go-otelhttp", "spans-node-http"}

// run is one capture's run: the span files it writes in dir, and what
// runs the client and service.
type run struct {
	library string
	// drive runs the client and service through the steps against the
	// collector, and returns what was sent and the software that ran.
	drive func(t *testing.T, c *collector, dir string, steps []step) ([]capture.Sent, []string)
	// logs are the files besides the span files it keeps, by name.
	logs []string
}

// capture runs r with Jaeger and the collector, keeps what they wrote
// under fixtures/real/<folder>/ with -update, and checks it.
func (r run) capture(t *testing.T, folder string) {
	dir := t.TempDir()
	jg := startJaeger(t, dir)
	paths := map[string]string{tracesFile: filepath.Join(dir, tracesFile), zipkinFile: filepath.Join(dir, zipkinFile),
		jaegerFile: filepath.Join(dir, jaegerFile)}
	col := startCollector(t, paths[tracesFile], paths[zipkinFile], jg.OTLP)
	sent, software := r.drive(t, col, dir, scenario(r.library))
	if err := col.Err(); err != nil {
		t.Fatal(err)
	}
	done, err := capture.ReadLedger(filepath.Join(dir, "ledger.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	checkSent(t, sent, done)

	// Jaeger's answer for each trace, once it holds every span sent.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var answers bytes.Buffer
	spans := col.Spans()
	for _, trace := range traces(sent) {
		b, err := jg.Trace(ctx, trace, spans[trace])
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Compact(&answers, b); err != nil {
			t.Fatal(err)
		}
		answers.WriteByte('\n')
	}
	jaegerJSON := capture.WriteFile(t, t.TempDir(), jaegerFile, answers.String())

	c := &captureRecord{Library: r.library, Software: append(software, "jaeger "+JaegerVersion+" (memory store, /api/traces/{id})"),
		Sent: sent, Done: done, Files: map[string]string{"otlp-traces": tracesFile, "jaeger": jaegerFile}}
	logs := map[string]string{tracesFile: paths[tracesFile], jaegerFile: jaegerJSON}
	if fileExists(paths[zipkinFile]) {
		c.Files["zipkin"] = zipkinFile
		logs[zipkinFile] = paths[zipkinFile]
	}
	for _, name := range r.logs {
		logs[name] = filepath.Join(dir, name)
	}
	folder2 := capture.Folder{Logs: logs, RecordName: captureFile, Record: c}
	folder2.Keep(t, filepath.Join(fixturesDir, folder), *update, func(t *testing.T, dir string) {
		check(t, loadCapture(t, dir))
	})
}

// traces are the trace ids the client's steps were sent in, in order.
func traces(sent []capture.Sent) []string {
	var out []string
	for _, s := range sent {
		if tr, _, ok := traceSpan(s.TraceParent); ok && !slices.Contains(out, tr) {
			out = append(out, tr)
		}
	}
	return out
}

// checkSent makes sure the run did what the scenario says before anything
// is asked of idem: the lost response was lost after the service
// committed, the rest answered, the same-key retry found the first order,
// the new-key retry made a second one.
func checkSent(t *testing.T, sent []capture.Sent, done []capture.Effect) {
	t.Helper()
	by := map[string]capture.Effect{}
	for _, d := range done {
		by[d.Step] = d
	}
	for _, s := range sent {
		d, ok := by[s.Step]
		switch {
		case !ok:
			t.Fatalf("step %s: the service recorded nothing", s.Step)
		case s.Step == "lost" && s.Ended != capture.EndedTimeout:
			t.Fatalf("the lost step got a response (%d in %s)", s.Status, s.Elapsed())
		case s.Step != "lost" && s.Status != d.Status:
			t.Fatalf("step %s answered %d, the service wrote %d", s.Step, s.Status, d.Status)
		case s.TraceParent == "":
			t.Fatalf("step %s: the client sent no traceparent", s.Step)
		}
	}
	if by["same-key-retry"].Created || by["same-key-retry"].OrderID != by["lost"].OrderID || !by["lost"].Created {
		t.Fatalf("the same-key retry made %+v, want the lost step's order %+v replayed", by["same-key-retry"], by["lost"])
	}
	if !by["new-key-retry"].Created {
		t.Fatalf("the new-key retry made no order")
	}
}

func loadCapture(t testing.TB, dir string) *captureRecord {
	t.Helper()
	c, err := readCapture(dir)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestGo captures the Go client and service's spans.
func TestGo(t *testing.T) {
	run{library: "go-otelhttp", drive: driveGo, logs: []string{appLog}}.capture(t, "spans-go-otelhttp")
}

func driveGo(t *testing.T, c *collector, dir string, steps []step) ([]capture.Sent, []string) {
	return runGo(t, c, filepath.Join(dir, "ledger.jsonl"), filepath.Join(dir, appLog), steps), goSoftware(t)
}

// TestFixtures checks the committed captures the same way, so that what
// the libraries wrote stays checked where Jaeger or node is missing.
func TestFixtures(t *testing.T) {
	if *update {
		t.Skip("rewriting the fixtures")
	}
	for _, name := range captures {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(fixturesDir, name)
			capture.Recorded(t, dir, captureFile, "go test ./internal/kit/spanharness -update")
			check(t, loadCapture(t, dir))
		})
	}
}
