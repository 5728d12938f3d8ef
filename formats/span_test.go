package formats

import (
	"fmt"
	"strings"
	"testing"

	"github.com/idem-cli/idem/model"
)

// otlpSpan is an OTLP/JSON batch of one span of service, with attrs (a
// JSON list of key/values) and the rest of the span's members.
func otlpSpan(service, scope string, kind int, attrs, rest string) string {
	return fmt.Sprintf(`{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":%q}}]},`+
		`"scopeSpans":[{"scope":{"name":%q},"spans":[{"traceId":"0AF7651916CD43DD8448EB211C80319C","spanId":"B7AD6B7169203331",`+
		`"parentSpanId":"00F067AA0BA902B7","name":"POST /v1/orders","kind":%d,"startTimeUnixNano":"1764577200000000000",`+
		`"endTimeUnixNano":"1764577200250000000","attributes":[%s]%s}]}]}]}`, service, scope, kind, attrs, rest)
}

func str(k, v string) string { return fmt.Sprintf(`{"key":%q,"value":{"stringValue":%q}}`, k, v) }
func num(k string, v int) string {
	return fmt.Sprintf(`{"key":%q,"value":{"intValue":"%d"}}`, k, v)
}
func strs(k string, v ...string) string {
	var vals []string
	for _, s := range v {
		vals = append(vals, fmt.Sprintf(`{"stringValue":%q}`, s))
	}
	return fmt.Sprintf(`{"key":%q,"value":{"arrayValue":{"values":[%s]}}}`, k, strings.Join(vals, ","))
}

const post = `{"key":"http.request.method","value":{"stringValue":"POST"}}`

// readSpans reads one line and returns its observations.
func readSpans(t *testing.T, line string) []model.Observation {
	t.Helper()
	p := NewParser(nil, nil)
	var res Result
	p.Into(&res)
	p.Line([]byte(line), model.Source{File: "spans", Line: 1})
	if len(res.Skips) > 0 {
		t.Fatalf("skipped: %v", res.Skips)
	}
	return res.Obs
}

// TestSpanMeaning: what a span says, by its kind, service, attributes,
// status and events, whichever convention names them.
func TestSpanMeaning(t *testing.T) {
	const ref = "0af7651916cd43dd8448eb211c80319c/b7ad6b7169203331/00f067aa0ba902b7/"
	tests := []struct {
		name string
		line string
		want model.Observation
	}{{
		name: "a server span: the key as otelhttp's middleware writes it",
		line: otlpSpan("orders", "otelhttp", 2, strings.Join([]string{post, str("url.path", "/v1/orders"), num("http.response.status_code", 201),
			strs("http.request.header.idempotency-key", "k-1")}, ","), ""),
		want: model.Observation{Tier: model.TierServer, Method: "POST", Route: "/v1/orders", Status: 201, Outcome: model.OutcomeOK, Key: "k-1",
			Duration: 250_000_000, Message: "POST /v1/orders", RequestID: "span:" + ref + "p/"},
	}, {
		name: "a client's call starts its delivery; the old names; the key in another case; a resend",
		line: otlpSpan("checkout", "@opentelemetry/instrumentation-http", 3, strings.Join([]string{str("http.method", "POST"),
			str("http.url", "https://api.example.com/v1/orders?x=1"), str("http.status_code", "201"),
			strs("http.request.header.Idempotency-Key", "k-2"), num("http.request.resend_count", 2)}, ","), ""),
		want: model.Observation{Tier: model.TierClient, Method: "POST", Route: "/v1/orders", Status: 201, Key: "k-2", Attempt: 3, Client: "checkout",
			RequestID: "span:" + ref + "o/"},
	}, {
		name: "older Node instrumentation writes _ for - in the header's name",
		line: otlpSpan("orders", "http", 2, strings.Join([]string{post, strs("http.request.header.idempotency_key", "k-3")}, ","), ""),
		want: model.Observation{Tier: model.TierServer, Key: "k-3"},
	}, {
		name: "the key from a baggage entry set as an attribute",
		line: otlpSpan("orders", "app", 1, str("baggage.idempotency_key", "k-4"), ""),
		want: model.Observation{Tier: model.TierServer, Key: "k-4"},
	}, {
		name: "an X-Request-Id the span recorded names its delivery",
		line: otlpSpan("orders", "otelhttp", 2, strings.Join([]string{post, strs("http.request.header.x-request-id", "req-9")}, ","), ""),
		want: model.Observation{RequestID: "span:" + ref + "p/req-9"},
	}, {
		name: "Envoy's span is the proxy's, whatever its kind",
		line: otlpSpan("ingress", "envoy", 3, strings.Join([]string{post, str("component", "proxy"), str("guid:x-request-id", "e-1"),
			num("http.status_code", 504)}, ","), ""),
		want: model.Observation{Tier: model.TierProxy, Status: 504, Outcome: model.OutcomeUpstreamTimeout, RequestID: "span:" + ref + "p/e-1"},
	}, {
		name: "Traefik's client span to the backend is the proxy's",
		line: otlpSpan("traefik", "github.com/traefik/traefik", 3, post, ""),
		want: model.Observation{Tier: model.TierProxy, RequestID: "span:" + ref + "p/"},
	}, {
		name: "nginx's module names its service unknown_service:nginx",
		line: otlpSpan("unknown_service:nginx", "nginx", 2, post, ""),
		want: model.Observation{Tier: model.TierProxy},
	}, {
		name: "a service named after no proxy is not one (nginxless, traefiklike)",
		line: otlpSpan("nginxless", "traefiklike", 2, post, ""),
		want: model.Observation{Tier: model.TierServer},
	}, {
		name: "a client's deadline is a timeout: status ERROR with its description",
		line: otlpSpan("checkout", "otelhttp", 3, strings.Join([]string{post, str("error.type", "context.deadlineExceededError")}, ","),
			`,"status":{"code":2,"message":"context deadline exceeded"}`),
		want: model.Observation{Tier: model.TierClient, Outcome: model.OutcomeTimeout, Detail: "context deadline exceeded"},
	}, {
		name: "status as the enum's name; the cause in an exception event",
		line: otlpSpan("checkout", "http", 3, post, `,"status":{"code":"STATUS_CODE_ERROR"},"events":[{"timeUnixNano":"1764577200250000000",`+
			`"name":"exception","attributes":[`+str("exception.type", "Error")+`,`+str("exception.message", "read ECONNRESET")+`]}]`),
		want: model.Observation{Tier: model.TierClient, Outcome: model.OutcomeReset, Detail: "read ECONNRESET"},
	}, {
		name: "an error.type alone",
		line: otlpSpan("checkout", "http", 3, strings.Join([]string{post, str("error.type", "ETIMEDOUT")}, ","), ""),
		want: model.Observation{Outcome: model.OutcomeTimeout, Detail: "ETIMEDOUT"},
	}, {
		name: "a database insert below the server is its effect",
		line: otlpSpan("orders", "pgx", 3, strings.Join([]string{str("db.system.name", "postgresql"), str("db.query.text", "INSERT INTO orders VALUES ($1)"),
			str("order.id", "ord-1")}, ","), ""),
		want: model.Observation{Tier: model.TierServer, Effect: true, ResultID: "ord-1", RequestID: "span:" + ref + "p/"},
	}, {
		name: "a database read is no effect",
		line: otlpSpan("orders", "pgx", 3, strings.Join([]string{str("db.system", "postgresql"), str("db.operation", "SELECT"),
			str("order.id", "ord-1")}, ","), ""),
		want: model.Observation{Tier: model.TierServer, ResultID: "ord-1"},
	}, {
		name: "an internal span that says nothing only links its trace",
		line: otlpSpan("orders", "app", 1, str("thread.name", "main"), ""),
		want: model.Observation{Tier: model.TierServer, RequestID: "span:" + ref + "pq/"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obs := readSpans(t, tc.line)
			if len(obs) != 1 {
				t.Fatalf("%d observations, want 1: %+v", len(obs), obs)
			}
			for _, pr := range wantFields(tc.want, obs[0]) {
				t.Error(pr)
			}
		})
	}
}

// TestSpanEventEffect: an event that says it created something is an
// effect of the span's delivery, at the event's time, with its result.
func TestSpanEventEffect(t *testing.T) {
	line := otlpSpan("orders", "otelhttp", 2, strings.Join([]string{post, num("http.response.status_code", 201), str("order.id", "ord-7")}, ","),
		`,"events":[{"timeUnixNano":"1764577200200000000","name":"order created","attributes":[`+str("order.id", "ord-7")+`]},`+
			`{"timeUnixNano":"1764577200210000000","name":"cache warmed"}]`)
	obs := readSpans(t, line)
	if len(obs) != 2 {
		t.Fatalf("%d observations, want the span and its effect: %+v", len(obs), obs)
	}
	want := model.Observation{Tier: model.TierServer, Effect: true, ResultID: "ord-7", Message: "order created",
		Time: mustTime("2025-12-01T08:20:00.2Z"), RequestID: "span:0af7651916cd43dd8448eb211c80319c/b7ad6b7169203331//l/"}
	for _, pr := range wantFields(want, obs[1]) {
		t.Error(pr)
	}
	if obs[0].Effect {
		t.Errorf("the span itself is marked as the effect too")
	}
}

// TestJaegerAndZipkinLayouts: the same facts out of the other exporters'
// layouts: Jaeger's typed tags, references, process and logs; Zipkin's
// text tags (a string array as JSON text), microseconds and annotations.
func TestJaegerAndZipkinLayouts(t *testing.T) {
	jaeger := `{"data":[{"traceID":"0af7651916cd43dd8448eb211c80319c","spans":[{"traceID":"0af7651916cd43dd8448eb211c80319c",` +
		`"spanID":"b7ad6b7169203331","operationName":"POST","references":[{"refType":"CHILD_OF","traceID":"0af7651916cd43dd8448eb211c80319c",` +
		`"spanID":"00f067aa0ba902b7"}],"startTime":1764577200000000,"duration":250000,"tags":[{"key":"span.kind","type":"string","value":"client"},` +
		`{"key":"http.request.method","type":"string","value":"POST"},{"key":"url.full","type":"string","value":"http://api/v1/orders"},` +
		`{"key":"http.request.header.idempotency-key","type":"string","value":"[\"k-j\"]"},{"key":"otel.status_code","type":"string","value":"ERROR"},` +
		`{"key":"otel.status_description","type":"string","value":"context deadline exceeded"},{"key":"error","type":"bool","value":true}],` +
		`"logs":[],"processID":"p1","warnings":null}],"processes":{"p1":{"serviceName":"checkout","tags":[]}},"warnings":null}],` +
		`"total":0,"limit":0,"offset":0,"errors":null}`
	zipkin := `{"traceId":"0af7651916cd43dd8448eb211c80319c","parentId":"00f067aa0ba902b7","id":"b7ad6b7169203331","kind":"SERVER","name":"post",` +
		`"timestamp":1764577200000000,"duration":250000,"localEndpoint":{"serviceName":"orders"},"tags":{"http.request.method":"POST",` +
		`"url.path":"/v1/orders","http.response.status_code":"201","http.request.header.idempotency-key":"[\"k-z\"]"},` +
		`"annotations":[{"timestamp":1764577200200000,"value":"order created: {\"order.id\":\"ord-z\"}"}]}`
	tests := []struct {
		name, line string
		count      int
		want       model.Observation
	}{
		{"jaeger", jaeger, 1, model.Observation{Format: "jaeger", Tier: model.TierClient, Method: "POST", Route: "/v1/orders", Key: "k-j",
			Outcome: model.OutcomeTimeout, Client: "checkout", Duration: 250_000_000, Time: mustTime("2025-12-01T08:20:00Z"),
			RequestID: "span:0af7651916cd43dd8448eb211c80319c/b7ad6b7169203331/00f067aa0ba902b7/o/"}},
		{"zipkin", zipkin, 2, model.Observation{Format: "zipkin", Tier: model.TierServer, Method: "POST", Route: "/v1/orders", Key: "k-z",
			Status: 201, Duration: 250_000_000, Time: mustTime("2025-12-01T08:20:00Z"),
			RequestID: "span:0af7651916cd43dd8448eb211c80319c/b7ad6b7169203331/00f067aa0ba902b7/p/"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obs := readSpans(t, tc.line)
			if len(obs) != tc.count {
				t.Fatalf("%d observations, want %d: %+v", len(obs), tc.count, obs)
			}
			for _, pr := range wantFields(tc.want, obs[0]) {
				t.Error(pr)
			}
			if tc.count == 2 && (!obs[1].Effect || obs[1].ResultID != "ord-z") {
				t.Errorf("the annotation's effect: %+v", obs[1])
			}
		})
	}
}

// TestSpanFormatsAreSpans: the formats of kind trace are those whose
// observations the model (and so every report) takes for spans.
func TestSpanFormatsAreSpans(t *testing.T) {
	for _, f := range all() {
		if got := model.IsSpan(&model.Observation{Format: f.Name}); got != (f.Kind == kindTrace) {
			t.Errorf("%s (kind %s): model.IsSpan says %v", f.Name, f.Kind, got)
		}
	}
}
