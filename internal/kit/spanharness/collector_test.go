package spanharness

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// collector stands in for the OpenTelemetry Collector between the
// instrumented programs and the files: it receives OTLP/HTTP (protobuf
// from Go's exporter, JSON from Node's), writes each export as the
// Collector's file exporter does (a line of pdata's JSON marshaler), and
// hands the same request on to Jaeger's OTLP receiver when one runs; it
// keeps each body OpenTelemetry's Zipkin exporter POSTs, a line each.
type collector struct {
	URL    string // http://127.0.0.1:port
	traces string
	zipkin string
	jaeger string // Jaeger's OTLP/HTTP receiver, when one runs

	mu   sync.Mutex
	errs []error
	// spans counts the spans received of each trace.
	spans map[string]int
	srv   *http.Server
}

// startCollector listens on a free port and writes into tracesPath and
// zipkinPath; jaegerOTLP, when set, is where it hands OTLP on.
func startCollector(t *testing.T, tracesPath, zipkinPath, jaegerOTLP string) *collector {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &collector{URL: "http://" + ln.Addr().String(), traces: tracesPath, zipkin: zipkinPath, jaeger: jaegerOTLP, spans: map[string]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", c.otlp)
	mux.HandleFunc("POST /api/v2/spans", c.zipkinSpans)
	c.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = c.srv.Serve(ln) }()
	t.Cleanup(func() { _ = c.srv.Close() })
	return c
}

// Err is what went wrong receiving, if anything.
func (c *collector) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return errors.Join(c.errs...)
}

func (c *collector) fail(w http.ResponseWriter, err error) {
	c.mu.Lock()
	c.errs = append(c.errs, err)
	c.mu.Unlock()
	http.Error(w, err.Error(), http.StatusBadRequest)
}

// body reads a request's body, gunzipped where it says so.
func body(r *http.Request) ([]byte, error) {
	var rd io.Reader = r.Body
	if strings.EqualFold(r.Header.Get("Content-Encoding"), "gzip") {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		rd = zr
	}
	return io.ReadAll(rd)
}

func (c *collector) otlp(w http.ResponseWriter, r *http.Request) {
	b, err := body(r)
	if err != nil {
		c.fail(w, err)
		return
	}
	req := ptraceotlp.NewExportRequest()
	asJSON := strings.HasPrefix(r.Header.Get("Content-Type"), "application/json")
	if asJSON {
		err = req.UnmarshalJSON(b)
	} else {
		err = req.UnmarshalProto(b)
	}
	if err != nil {
		c.fail(w, fmt.Errorf("OTLP request (%s): %w", r.Header.Get("Content-Type"), err))
		return
	}
	c.count(req.Traces())
	line, err := (&ptrace.JSONMarshaler{}).MarshalTraces(req.Traces())
	if err != nil {
		c.fail(w, err)
		return
	}
	if err := c.appendLine(c.traces, line); err != nil {
		c.fail(w, err)
		return
	}
	if c.jaeger != "" {
		if err := forward(r.Context(), c.jaeger+"/v1/traces", r.Header.Get("Content-Type"), b); err != nil {
			c.fail(w, fmt.Errorf("jaeger: %w", err))
			return
		}
	}
	var out []byte
	if asJSON {
		out, err = ptraceotlp.NewExportResponse().MarshalJSON()
	} else {
		out, err = ptraceotlp.NewExportResponse().MarshalProto()
	}
	if err != nil {
		c.fail(w, err)
		return
	}
	w.Header().Set("Content-Type", r.Header.Get("Content-Type"))
	_, _ = w.Write(out)
}

func (c *collector) zipkinSpans(w http.ResponseWriter, r *http.Request) {
	b, err := body(r)
	if err != nil {
		c.fail(w, err)
		return
	}
	if err := c.appendLine(c.zipkin, bytes.TrimSpace(b)); err != nil {
		c.fail(w, err)
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

// appendLine appends b and a newline to the file at path.
func (c *collector) appendLine(path string, b []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// forward POSTs an OTLP request on, as received.
func forward(ctx context.Context, url, contentType string, b []byte) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("%s: %s", resp.Status, msg)
	}
	return nil
}

// count adds the spans of td to the count of their traces.
func (c *collector) count(td ptrace.Traces) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, s := range ss.Spans().All() {
				c.spans[s.TraceID().String()]++
			}
		}
	}
}

// Spans is how many spans of each trace were received.
func (c *collector) Spans() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.spans)
}
