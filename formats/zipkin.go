package formats

import (
	"strconv"
	"strings"
	"time"

	"github.com/idem-cli/idem/model"
	"github.com/tidwall/gjson"
)

// Zipkin v2 JSON: a JSON array of spans, as Zipkin's API answers
// (/api/v2/trace/{id}) and as exporters POST to /api/v2/spans; the reader
// streams the array a span at a time. Timestamps and durations are in
// microseconds; tags are text (OpenTelemetry's exporter writes a string
// array as JSON text, its status as otel.status_code with the
// description in "error", and an event as an annotation "name: {attrs}").
// A span marked "shared" is the server's half of the client's own span id
// (B3's single-host spans, as Brave writes them). What a span means is
// span.go's.
var zipkinFormat = &format{
	Name: "zipkin", Kind: kindTrace, Tier: model.TierServer,
	Doc: "Zipkin v2 JSON spans: an array, as Zipkin's API answers and exporters send",
	match: func(r *record) bool {
		return r.has("traceId") && r.has("id") && r.hasAny("localEndpoint", "timestamp", "kind", "shared", "remoteEndpoint")
	},
	expand: func(p *Parser, r *record, src model.Source) bool {
		readZipkin(p, gjson.Parse(r.raw()), src)
		return true
	},
	Samples: []sample{{
		Origin: "openzipkin/zipkin's zipkin-lens/testdata/skew.json: servicea's client span, whose id serviceb's server shares",
		Line: `{"traceId":"1e223ff1f80f1c69","parentId":"bf396325699c84bf","id":"74280ae0c10d8062","kind":"CLIENT","name":"post",` +
			`"timestamp":1470150004074202,"duration":94539,"localEndpoint":{"serviceName":"servicea","ipv4":"127.0.0.0"}}`,
		Count: 1,
		Want: model.Observation{Tier: model.TierClient, Format: "zipkin",
			RequestID: "span:1e223ff1f80f1c69/74280ae0c10d8062/bf396325699c84bf/oq/"},
	}, {
		Origin: "openzipkin/zipkin's zipkin-lens/testdata/skew.json: serviceb's shared server span",
		Line: `{"traceId":"1e223ff1f80f1c69","parentId":"bf396325699c84bf","id":"74280ae0c10d8062","kind":"SERVER","name":"post",` +
			`"timestamp":1470150004008761,"duration":93577,"localEndpoint":{"serviceName":"serviceb","ipv4":"192.0.0.0"},"shared":true}`,
		Count: 1,
		Want: model.Observation{Tier: model.TierServer, Format: "zipkin",
			RequestID: "span:1e223ff1f80f1c69/74280ae0c10d8062/bf396325699c84bf/oq/"},
	}, {
		Origin: "openzipkin/zipkin-gcp's README (a span the Stackdriver translator logged): frontend's GET /api, a client's call",
		Line: `{"traceId":"d42316227862f939","parentId":"d42316227862f939","id":"dfbb21f9cf4c52b3","kind":"CLIENT","name":"get",` +
			`"timestamp":1523253523054380,"duration":4536,"localEndpoint":{"serviceName":"frontend","ipv4":"192.168.1.113"},` +
			`"tags":{"http.method":"GET","http.path":"/api"}}`,
		Count: 1,
		Want: model.Observation{Tier: model.TierClient, Format: "zipkin", Method: "GET", Route: "/api", Message: "get", Client: "frontend",
			Time: mustTime("2018-04-09T05:58:43.05438Z"), Duration: 4_536_000,
			RequestID: "span:d42316227862f939/dfbb21f9cf4c52b3/d42316227862f939/o/"},
	}, {
		Origin: "fixtures/real/spans-go-otelhttp/zipkin.json: OpenTelemetry's Zipkin exporter, otelhttp's client span of a request whose client gave up",
		Line: `{"timestamp":1796189998874705,"duration":400918,"traceId":"23dbe6c795a54180abdc50361c3b2fb4","id":"acecdd21d5a442f1","parentId":"3b41fbb4873` +
			`7c74b","name":"http post","kind":"CLIENT","localEndpoint":{"serviceName":"checkout-web"},"remoteEndpoint":{"serviceName":"127.0.0.1"},"tags"` +
			`:{"error":"context deadline exceeded","error.type":"context.deadlineExceededError","http.request.header.idempotency-key":"[\"key-go-otelhttp` +
			`-1\"]","http.request.header.x-request-id":"[\"req-go-2\"]","http.request.method":"POST","network.protocol.version":"1.1","otel.scope.name":"` +
			`go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp","otel.scope.version":"0.72.0","otel.status_code":"ERROR","server.address":"12` +
			`7.0.0.1","server.port":"38947","service.name":"checkout-web","url.full":"http://127.0.0.1:38947/v1/orders"}}`,
		Count: 1,
		Want: model.Observation{Tier: model.TierClient, Format: "zipkin", Method: "POST", Route: "/v1/orders", Outcome: model.OutcomeTimeout,
			Detail: "context deadline exceeded", Key: "key-go-otelhttp-1", Client: "checkout-web", Message: "http post",
			Time: mustTime("2026-12-02T05:39:58.874705Z"), Duration: 400_918_000,
			RequestID: "span:23dbe6c795a54180abdc50361c3b2fb4/acecdd21d5a442f1/3b41fbb48737c74b/o/req-go-2"},
	}},
}

// readZipkin reads one Zipkin v2 span.
func readZipkin(p *Parser, v gjson.Result, src model.Source) {
	sp := &span{}
	sp.trace, sp.id, sp.parent = v.Get("traceId").Str, v.Get("id").Str, v.Get("parentId").Str
	sp.name = v.Get("name").Str
	sp.kind = spanKindOf(v.Get("kind").Str)
	sp.shared = v.Get("shared").Bool()
	sp.service = v.Get("localEndpoint.serviceName").Str
	sp.start = microsTime(v.Get("timestamp"))
	sp.dur, _ = model.ParseDuration(present(v.Get("duration")), model.Microseconds)
	v.Get("tags").ForEach(func(k, t gjson.Result) bool {
		sp.attrs = append(sp.attrs, spanAttr{key: k.Str, value: present(t)})
		return true
	})
	sp.scope = sp.attr("otel.scope.name", "otel.library.name")
	if sp.service == "" {
		sp.service = sp.attr("service.name")
	}
	status := sp.attr("otel.status_code")
	if e, ok := zipkinError(v.Get("tags")); ok || strings.EqualFold(status, "ERROR") {
		sp.failed, sp.status = true, e
	}
	v.Get("annotations").ForEach(func(_, a gjson.Result) bool {
		at := microsTime(a.Get("timestamp"))
		name, attrs, _ := strings.Cut(a.Get("value").Str, ": {")
		e := spanEvent{name: name, time: at}
		if attrs != "" && gjson.Valid("{"+attrs) {
			gjson.Parse("{" + attrs).ForEach(func(k, t gjson.Result) bool {
				e.attrs = append(e.attrs, spanAttr{key: k.Str, value: present(t)})
				return true
			})
		}
		sp.events = append(sp.events, e)
		return true
	})
	readSpan(p, sp, "zipkin", src)
}

// zipkinError is the "error" tag, which says the span failed even when
// empty.
func zipkinError(tags gjson.Result) (string, bool) {
	e := tags.Get("error")
	return e.Str, e.Exists()
}

// microsTime reads epoch microseconds, as Zipkin and Jaeger write times.
func microsTime(v gjson.Result) time.Time {
	n, err := strconv.ParseInt(present(v), 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}
	}
	return time.UnixMicro(n).UTC()
}
