package ingest

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/model"
)

// traceSpan is one OTLP/JSON span of trace 0af7…, pretty-printed over
// four lines.
func traceSpan(id, kind int) string {
	return fmt.Sprintf(`{"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": "%016x", "parentSpanId": "00f067aa0ba902b7",
          "name": "POST", "kind": %d, "startTimeUnixNano": "1764577200000000000", "endTimeUnixNano": "1764577200250000000",
          "attributes": [{"key": "http.request.method", "value": {"stringValue": "POST"}},
                         {"key": "http.request.header.idempotency-key", "value": {"arrayValue": {"values": [{"stringValue": "k-%d"}]}}}]}`, id, kind, id)
}

// resourceSpans is a ResourceSpans of service with spans, pretty-printed.
func resourceSpans(service string, spans ...string) string {
	return `{"resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "` + service + `"}}]},
      "scopeSpans": [{"scope": {"name": "otelhttp"},
        "spans": [
          ` + strings.Join(spans, ",\n          ") + `]}]}`
}

// TestTraceDownloadsStream: a trace download is read an element of its
// list at a time, whatever wraps the list and however it is laid out;
// each span is cited by the line it starts on when the document is
// pretty-printed; the document's other members are passed over.
func TestTraceDownloadsStream(t *testing.T) {
	rs := "[\n    " + resourceSpans("checkout", traceSpan(1, 3), traceSpan(2, 3)) + ",\n    " + resourceSpans("orders", traceSpan(3, 2)) + "\n  ]"
	jaegerTrace := func(n int) string {
		return fmt.Sprintf(`{"traceID":"0af7651916cd43dd8448eb211c80319c","spans":[{"traceID":"0af7651916cd43dd8448eb211c80319c","spanID":"%016x",`+
			`"operationName":"POST","references":[],"startTime":1764577200000000,"duration":250000,"tags":[{"key":"span.kind","type":"string",`+
			`"value":"server"},{"key":"http.method","type":"string","value":"POST"}],"logs":[],"processID":"p1"}],"processes":{"p1":`+
			`{"serviceName":"orders","tags":[]}},"warnings":null}`, n)
	}
	tests := []struct {
		name, doc string
		format    string
		lines     []int // the line each span is cited by
	}{
		{"OTLP, pretty-printed (Tempo's and Jaeger's OTLP downloads)", "{\n  \"resourceSpans\": " + rs + "\n}\n", "otlp-traces", []int{6, 10, 17}},
		{"Tempo's batches", "{\n  \"batches\": " + rs + "\n}\n", "otlp-traces", []int{6, 10, 17}},
		{"Jaeger's api/v3 answer, on one line", `{"result": {"resourceSpans": ` + strings.ReplaceAll(rs, "\n", "") + `}}`, "otlp-traces", []int{1, 1, 1}},
		{"Tempo's api/v2 answer, other members after", "{\"trace\": {\"resourceSpans\": " + rs + "}, \"metrics\": {\"inspectedBytes\": \"1\"}, \"status\": \"ok\"}",
			"otlp-traces", []int{5, 9, 16}},
		{"Jaeger's query API, two traces on one line", `{"data":[` + jaegerTrace(1) + `,` + jaegerTrace(2) + `],"total":0,"limit":0,"offset":0,"errors":null}`,
			"jaeger", []int{1, 1}},
		{"Jaeger's answers, one a line", `{"data":[` + jaegerTrace(1) + `],"total":0}` + "\n" + `{"data":[` + jaegerTrace(2) + `],"total":0,"errors":null}` + "\n",
			"jaeger", []int{1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obs, info := readString(t, tt.name, tt.doc, Options{})
			if info.Skipped > 0 {
				t.Fatalf("skipped %+v", info.SkipSamples)
			}
			var lines []int
			for _, o := range obs {
				if o.Format != tt.format {
					t.Errorf("read as %s: %+v", o.Format, o)
				}
				lines = append(lines, o.Source.Line)
			}
			if !slices.Equal(lines, tt.lines) {
				t.Errorf("spans cited by lines %v, want %v", lines, tt.lines)
			}
		})
	}
}

// TestTraceDownloadLookalikes: a {"data": [...]} that holds no Jaeger
// traces is read as it was before, as a whole; a trace download that
// breaks is read up to the break, which is said, and on as lines.
func TestTraceDownloadLookalikes(t *testing.T) {
	obs, info := readString(t, "data", `{"data": [{"time": "2026-11-30T09:00:00Z", "request_id": "r-1", "method": "POST", "path": "/v1/orders", "status": 201}]}`, Options{})
	if info.Skipped > 0 || slices.ContainsFunc(obs, func(o *model.Observation) bool { return o.Format == "jaeger" }) {
		t.Errorf("a data list of log records: %d skipped, read as %v", info.Skipped, info.Formats)
	}
	// Past the first 64 KiB, which are looked at to tell a document from lines.
	var spans []string
	for i := range 200 {
		spans = append(spans, traceSpan(i+1, 2))
	}
	doc := "{\n  \"resourceSpans\": [\n    " + resourceSpans("orders", spans...) + ",\n    oops\n  ]\n}\n" + goodLines(3)
	broken := 6 + 4*200 // the spans start on line 6, four lines each
	obs, info = readString(t, "broken", doc, Options{})
	if info.Skipped == 0 || !strings.Contains(info.SkipSamples[0].Reason, "breaks") || info.SkipSamples[0].Source.Line != broken {
		t.Errorf("the break is not said where it is (line %d): %+v", broken, info.SkipSamples)
	}
	if len(obs) != 203 {
		t.Errorf("%d observations, want the 200 spans before the break and the 3 lines after it", len(obs))
	}
}

// FuzzTraceDocument feeds inputs that start like a trace download: the
// reader must not panic or hang, and counts what it hands on.
func FuzzTraceDocument(f *testing.F) {
	f.Add([]byte("{\n  \"resourceSpans\": [\n    " + resourceSpans("orders", traceSpan(1, 2)) + "\n  ]\n}\n"))
	f.Add([]byte(`{"result":{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"1","kind":3}]}]}]}}`))
	f.Add([]byte(`{"trace":{"resourceSpans":{}},"x":1}`))
	f.Add([]byte(`{"data":[{"traceID":"1","spans":[{"traceID":"1","spanID":"2","tags":[{"key":"span.kind","value":"client"}]}]},{"traceID":`))
	f.Add([]byte(`{"batches":[]} {"batches":[1]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var n counter
		inputs, err := Read(ctx, []string{"-"}, Options{Stdin: bytes.NewReader(data), MaxLineBytes: 1 << 16}, &n)
		if err != nil && !strings.Contains(err.Error(), "ends inside a value") {
			t.Fatalf("Read: %v", err)
		}
		if inputs[0].Observations != n.N {
			t.Fatalf("observations counted %d, delivered %d", inputs[0].Observations, n.N)
		}
	})
}
