package spanharness

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/idem-cli/idem/internal/kit/capture"
)

// route is the one endpoint the order service serves.
const route = "/v1/orders"

// step is one request the client sends.
type step struct {
	Name string `json:"name"`
	Key  string `json:"key"`
	Body string `json:"body"`
	// Action names the user action the step is an attempt of: the
	// client makes one span for an action, so that its attempts are
	// spans of one trace.
	Action  string        `json:"action"`
	Delay   time.Duration `json:"delay"`   // the service's work before it answers
	Timeout time.Duration `json:"timeout"` // the client's patience
}

// scenario is what every client goes through: a clean keyed request, in
// an action of its own; then one action of three attempts: a request
// whose response is lost (the client gives up while the service finishes
// and commits), a retry with the same key, and a retry of the same
// payload under a new key, which makes a second order.
func scenario(library string) []step {
	const ok, work, patience, lost = 100 * time.Millisecond, 1200 * time.Millisecond, 10 * time.Second, 400 * time.Millisecond
	key := func(n string) string { return fmt.Sprintf("key-%s-%s", library, n) }
	return []step{
		{Name: "clean", Key: key("clean"), Body: `{"sku":"A-1","qty":1}`, Action: "first", Delay: ok, Timeout: patience},
		{Name: "lost", Key: key("1"), Body: `{"sku":"B-2","qty":2}`, Action: "checkout", Delay: work, Timeout: lost},
		{Name: "same-key-retry", Key: key("1"), Body: `{"sku":"B-2","qty":2}`, Action: "checkout", Delay: ok, Timeout: patience},
		{Name: "new-key-retry", Key: key("2"), Body: `{"sku":"B-2","qty":2}`, Action: "checkout", Delay: ok, Timeout: patience},
	}
}

// The files a capture keeps, by what wrote them.
const (
	// tracesFile is the Collector's file exporter's format: an OTLP/JSON
	// batch a line.
	tracesFile = "traces.jsonl"
	// appLog is the Go service's own log (slog's JSON lines), the logs a
	// trace is read beside.
	appLog = "app.jsonl"
	// zipkinFile holds what OpenTelemetry's Zipkin exporter POSTed, a
	// JSON array of spans a line.
	zipkinFile = "zipkin.json"
	// jaegerFile holds Jaeger's query API's answer for each trace, a line
	// each.
	jaegerFile = "jaeger.json"
	// captureFile is the harness's record.
	captureFile = "harness.json"
)

// captureRecord is one run: the software that ran, what the client sent (each
// with the traceparent it sent), what the service recorded, and the span
// files kept beside it.
type captureRecord struct {
	Library  string           `json:"library"`  // "go-otelhttp", "node-http"
	Software []string         `json:"software"` // the libraries and versions that wrote the spans
	Sent     []capture.Sent   `json:"sent"`
	Done     []capture.Effect `json:"done"`
	// Files are the span files kept, by format name ("otlp-traces",
	// "zipkin", "jaeger").
	Files map[string]string `json:"files"`
	Dir   string            `json:"-"`
}

// path is where the capture keeps a format's file, or "" when it has none.
func (c *captureRecord) path(format string) string {
	if c.Files[format] == "" {
		return ""
	}
	return filepath.Join(c.Dir, c.Files[format])
}

// readCapture reads dir's harness.json.
func readCapture(dir string) (*captureRecord, error) {
	b, err := os.ReadFile(filepath.Join(dir, captureFile))
	if err != nil {
		return nil, err
	}
	var c captureRecord
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s/%s: %w", dir, captureFile, err)
	}
	c.Dir = dir
	return &c, nil
}

// traceSpan reads the trace id and the client's span id from a W3C
// traceparent, 00-<trace>-<span>-<flags>.
func traceSpan(traceparent string) (trace, span string, ok bool) {
	parts := strings.Split(traceparent, "-")
	if len(parts) != 4 || len(parts[1]) != 32 || len(parts[2]) != 16 {
		return "", "", false
	}
	return strings.ToLower(parts[1]), strings.ToLower(parts[2]), true
}

// deliveryName is the request id idem names a step's delivery by, as
// docs/formats.md says: the X-Request-Id the client sent, which the
// service's span records; else the trace, "trace:<id>", when the trace
// holds that one client call; "trace:<id>/<client span id>" when the
// client made several calls in one trace.
func deliveryName(sent []capture.Sent, s capture.Sent) string {
	if s.RequestID != "" {
		return s.RequestID
	}
	trace, span, ok := traceSpan(s.TraceParent)
	if !ok {
		return ""
	}
	calls := 0
	for _, o := range sent {
		if t, _, ok := traceSpan(o.TraceParent); ok && t == trace {
			calls++
		}
	}
	if calls == 1 {
		return "trace:" + trace
	}
	return "trace:" + trace + "/" + span
}
