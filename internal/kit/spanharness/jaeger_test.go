package spanharness

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/idem-cli/idem/internal/kit/capture"
	"github.com/tidwall/gjson"
)

// JaegerVersion is the Jaeger release the captures run, built from the
// Go module proxy by .ci/spans.sh.
const JaegerVersion = "v1.76.0"

// jaegerBinary finds Jaeger v2: $IDEM_JAEGER, the CI cache .ci/spans.sh
// builds it into, or PATH; without it the test skips, and fails under CI.
func jaegerBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("IDEM_JAEGER"); p != "" {
		return p
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	if p := filepath.Join(cache, "idem-ci", "jaeger-"+JaegerVersion, "jaeger"); fileExists(p) {
		return p
	}
	if p, err := exec.LookPath("jaeger"); err == nil {
		return p
	}
	capture.Missing(t, "jaeger", "bash .ci/spans.sh")
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// jaeger is a Jaeger v2 running in memory on loopback: an OTLP/HTTP
// receiver and the query API, nothing else.
type jaeger struct {
	OTLP, Query string // http://127.0.0.1:port
}

// jaegerConfig is the collector configuration Jaeger v2 runs: OTLP in,
// the memory store, the query API; no other receiver, extension or
// telemetry port.
const jaegerConfig = `service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 1000
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: %s
    grpc:
      endpoint: %s
receivers:
  otlp:
    protocols:
      http:
        endpoint: %s
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`

// startJaeger runs Jaeger from dir until the test ends.
func startJaeger(t *testing.T, dir string) *jaeger {
	t.Helper()
	bin := jaegerBinary(t)
	otlp, query, grpc := capture.Addr(capture.FreePort(t)), capture.Addr(capture.FreePort(t)), capture.Addr(capture.FreePort(t))
	config := capture.WriteFile(t, dir, "jaeger.yaml", fmt.Sprintf(jaegerConfig, query, grpc, otlp))
	capture.Start(t, capture.Cmd{Name: "jaeger", Bin: bin, Args: []string{"--config", config}, Listen: []string{otlp, query}})
	return &jaeger{OTLP: "http://" + otlp, Query: "http://" + query}
}

// Trace returns the query API's answer for a trace, once it holds want
// spans of it (the store takes what it is sent a moment later).
func (j *jaeger) Trace(ctx context.Context, traceID string, want int) ([]byte, error) {
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, n, err := j.get(ctx, traceID)
		if err == nil && n >= want {
			return b, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("jaeger: trace %s: %d spans of %d (%v)", traceID, n, want, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (j *jaeger) get(ctx context.Context, traceID string) ([]byte, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, j.Query+"/api/traces/"+traceID, nil)
	if err != nil {
		return nil, 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, 0, fmt.Errorf("%s", resp.Status)
	}
	return b, countSpans(b), nil
}

// countSpans counts the spans of a query API answer.
func countSpans(answer []byte) int {
	n := 0
	gjson.GetBytes(answer, "data").ForEach(func(_, trace gjson.Result) bool {
		n += len(trace.Get("spans").Array())
		return true
	})
	return n
}
