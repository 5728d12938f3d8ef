package spanharness

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idem-cli/idem/internal/kit/capture"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	//lint:ignore SA1019 Zipkin's JSON as OpenTelemetry's own exporter writes it is what these captures are for, until it is removed.
	"go.opentelemetry.io/otel/exporters/zipkin"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// The Go services: an order service and its client, each its own
// OpenTelemetry SDK (service.name orders-api and checkout-web) with
// otelhttp on its side of the wire, exporting over OTLP/HTTP to the
// harness's collector and through the Zipkin exporter to its Zipkin
// endpoint. otelhttp captures no request header: as the semantic
// conventions describe, each side sets http.request.header.idempotency-key
// (a string array) on its own span, the server in a middleware inside
// otelhttp's handler, the client in a transport below otelhttp's.

// provider makes a service's tracer provider, exporting to c.
func provider(ctx context.Context, t *testing.T, service string, c *collector) *sdktrace.TracerProvider {
	t.Helper()
	otlp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(c.URL+"/v1/traces"))
	if err != nil {
		t.Fatal(err)
	}
	zk, err := zipkin.New(c.URL + "/api/v2/spans")
	if err != nil {
		t.Fatal(err)
	}
	res := resource.NewSchemaless(attribute.String("service.name", service))
	return sdktrace.NewTracerProvider(sdktrace.WithResource(res), sdktrace.WithBatcher(otlp), sdktrace.WithBatcher(zk))
}

// headerAttr sets the request's Idempotency-Key and X-Request-Id on span
// as the semantic conventions name a captured header.
func headerAttr(span trace.Span, h http.Header) {
	for _, name := range []string{"Idempotency-Key", "X-Request-Id"} {
		if v := h.Values(name); len(v) > 0 {
			span.SetAttributes(attribute.StringSlice("http.request.header."+strings.ToLower(name), v))
		}
	}
}

// orders is the Go order service: POST /v1/orders creates an order, or
// replays the order of an Idempotency-Key it has seen, after the work the
// request asks for (not cut short when the client goes: the lost-response
// case is a service that finishes after the client gave up).
type orders struct {
	mu     sync.Mutex
	n      int
	byKey  map[string]string
	ledger *capture.Ledger
	log    *slog.Logger // the service's own log, slog's JSON lines
}

func (o *orders) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	span := trace.SpanFromContext(r.Context())
	headerAttr(span, r.Header)
	if ms, err := strconv.Atoi(r.Header.Get(capture.HeaderDelay)); err == nil && ms > 0 {
		time.Sleep(time.Duration(ms) * time.Millisecond)
	}
	key := r.Header.Get("Idempotency-Key")
	o.mu.Lock()
	id, replay := o.byKey[key]
	if !replay {
		o.n++
		id = fmt.Sprintf("ord_go_%d", o.n)
		o.byKey[key] = id
	}
	o.mu.Unlock()
	span.SetAttributes(attribute.String("order.id", id))
	sc := span.SpanContext()
	logged := []any{"request_id", r.Header.Get("X-Request-Id"), "idempotency_key", key, "order_id", id,
		"trace_id", sc.TraceID().String(), "span_id", sc.SpanID().String()}
	if replay {
		o.log.Info("order replayed", logged...)
	} else {
		span.AddEvent("order created", trace.WithAttributes(attribute.String("order.id", id)))
		o.log.Info("order created", logged...)
	}
	err := o.ledger.Add(capture.Effect{Step: r.Header.Get(capture.HeaderStep), RequestID: sc.TraceID().String() + "/" + sc.SpanID().String(),
		Key: key, OrderID: id, Created: !replay, Status: http.StatusCreated})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if replay {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]string{"order_id": id})
}

// keyTransport sits below otelhttp's transport, where the client span is
// the request's: it sets the key on it, and notes the traceparent otelhttp
// sent with each step.
type keyTransport struct {
	base http.RoundTripper
	mu   sync.Mutex
	sent map[string]string // step → traceparent
}

func (k *keyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	headerAttr(trace.SpanFromContext(r.Context()), r.Header)
	k.mu.Lock()
	k.sent[r.Header.Get(capture.HeaderStep)] = r.Header.Get("Traceparent")
	k.mu.Unlock()
	return k.base.RoundTrip(r)
}

// runGo runs the Go client and service through the steps, exporting to c,
// the service logging to appLog, and returns what was sent.
func runGo(t *testing.T, c *collector, ledgerPath, appLog string, steps []step) []capture.Sent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	prop := propagation.TraceContext{}
	serverTP, clientTP := provider(ctx, t, "orders-api", c), provider(ctx, t, "checkout-web", c)
	ledger, err := capture.OpenLedger(ledgerPath)
	if err != nil {
		t.Fatal(err)
	}
	defer ledger.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	logFile, err := os.Create(appLog)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	svc := &orders{byKey: map[string]string{}, ledger: ledger, log: slog.New(slog.NewJSONHandler(logFile, nil))}
	srv := &http.Server{Handler: otelhttp.NewHandler(svc, "orders",
		otelhttp.WithTracerProvider(serverTP), otelhttp.WithPropagators(prop)), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()

	kt := &keyTransport{base: &http.Transport{DisableKeepAlives: true}, sent: map[string]string{}}
	client := &http.Client{Transport: otelhttp.NewTransport(kt, otelhttp.WithTracerProvider(clientTP), otelhttp.WithPropagators(prop))}
	tracer := clientTP.Tracer("checkout-web")
	var out []capture.Sent
	var action trace.Span
	actionCtx := ctx
	for i, st := range steps {
		if i == 0 || st.Action != steps[i-1].Action {
			if action != nil {
				action.End()
			}
			actionCtx, action = tracer.Start(ctx, st.Action)
		}
		s := capture.Send(actionCtx, capture.Request{Step: st.Name, Base: "http://" + ln.Addr().String(), Path: route, Key: st.Key,
			RequestID: fmt.Sprintf("req-go-%d", i+1), Body: st.Body, Delay: st.Delay, Timeout: st.Timeout, Client: client})
		if s.Ended != capture.EndedResponse && s.Ended != capture.EndedTimeout {
			t.Fatalf("step %s: %s", st.Name, s.Error)
		}
		if _, err := capture.WaitLedger(ctx, ledgerPath, st.Name); err != nil {
			t.Fatal(err) // the retry that follows finds the first attempt's order
		}
		kt.mu.Lock()
		s.TraceParent = kt.sent[st.Name]
		kt.mu.Unlock()
		out = append(out, s)
	}
	action.End()
	_ = srv.Shutdown(ctx)
	for _, tp := range []*sdktrace.TracerProvider{clientTP, serverTP} {
		if err := tp.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// goSoftware names the Go modules that wrote the spans, at the versions
// go.mod requires (a test binary carries no module list of its own).
func goSoftware(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && slices.Contains([]string{"go.opentelemetry.io/otel/sdk", "go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp",
			"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp", "go.opentelemetry.io/otel/exporters/zipkin",
			"go.opentelemetry.io/collector/pdata"}, f[0]) {
			out = append(out, f[0]+" "+f[1])
		}
	}
	return out
}
