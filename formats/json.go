package formats

import (
	"github.com/idem-cli/idem/model"
)

// Any other JSON object: the application aliases are tried on it. It
// comes last and takes every object.
var jsonFormat = &format{
	vocabulary: true,
	Name:       "json", Kind: kindJSON, Tier: model.TierServer,
	Doc:     "any other JSON object, read with the application aliases",
	match:   func(r *record) bool { return true },
	extract: extractApp,
	Samples: jsonSamples,
}

// jsonSamples are lines of loggers idem has no format for, read by the
// vocabulary alone.
var jsonSamples = []sample{{
	Origin: "winston 3 with express-winston 4 (meta: true, requestWhitelist with body), captured on this machine",
	Line: `{"level":"info","message":"HTTP POST /v1/orders","meta":{"req":{"url":"/v1/orders","headers":{"host":"127.0.0.1:8080",` +
		`"x-request-id":"w-1","idempotency-key":"k-w-1","authorization":"Bearer t0k","content-type":"application/json"},"method":"POST",` +
		`"httpVersion":"1.1","originalUrl":"/v1/orders","query":{},"body":{"sku":"A-1","qty":1}},"res":{"statusCode":201},"responseTime":12},` +
		`"timestamp":"2026-12-02T03:50:00.012Z"}`,
	Want: model.Observation{Tier: model.TierServer, Format: "json", Method: "POST", Route: "/v1/orders", Status: 201, Outcome: model.OutcomeOK,
		RequestID: "w-1", Key: "k-w-1", Message: "HTTP POST /v1/orders", Fingerprint: "sha256:1fd6538928af32ecd155215988f57f6b208bae8b8af60c8f9adc40a89e811ebc",
		Time: mustTime("2026-12-02T03:50:00Z"), Duration: 12_000_000},
}, {
	Origin: "OpenTelemetry semantic conventions (docs/registry/attributes/http.md, url.md) as flat dotted keys",
	Line: `{"timestamp":"2026-12-02T03:50:01Z","http.request.method":"POST","url.path":"/v1/orders","http.response.status_code":201,` +
		`"http.request.header.idempotency-key":["k-o-1"],"http.request.header.x-request-id":["o-1"],"message":"request"}`,
	Want: model.Observation{Tier: model.TierServer, Format: "json", Method: "POST", Route: "/v1/orders", Status: 201, Outcome: model.OutcomeOK,
		RequestID: "o-1", Key: "k-o-1", Message: "request", Time: mustTime("2026-12-02T03:50:01Z")},
}, {
	Origin: "Elastic Common Schema field reference (http.*, url.*, event.duration in nanoseconds, trace.id), nested",
	Line: `{"@timestamp":"2026-12-02T03:50:02.500Z","log.level":"info","message":"handled","http":{"request":{"method":"POST","id":"e-1"},` +
		`"response":{"status_code":201}},"url":{"original":"/v1/orders?x=1"},"event":{"duration":500000000},"trace":{"id":"4bf92f3577b34da6a3ce929d0e0e4736"}}`,
	Want: model.Observation{Tier: model.TierServer, Format: "json", Method: "POST", Route: "/v1/orders", Status: 201, Outcome: model.OutcomeOK,
		RequestID: "e-1", Message: "handled", Time: mustTime("2026-12-02T03:50:02Z"), Duration: 500_000_000},
}, {
	Origin: "Serilog.AspNetCore's request completion event (its README's message template and properties, https://github.com/serilog/serilog-aspnetcore) " +
		"in the compact JSON of https://github.com/serilog/serilog-formatting-compact (@t, @mt, the properties at the top level)",
	Line: `{"@t":"2026-12-02T03:50:03.2500000Z","@mt":"HTTP {RequestMethod} {RequestPath} responded {StatusCode} in {Elapsed:0.0000} ms",` +
		`"RequestMethod":"POST","RequestPath":"/v1/orders","StatusCode":201,"Elapsed":250.0,"RequestId":"0HN8:00000001",` +
		`"SourceContext":"Serilog.AspNetCore.RequestLoggingMiddleware"}`,
	Want: model.Observation{Tier: model.TierServer, Format: "json", Method: "POST", Route: "/v1/orders", Status: 201, Outcome: model.OutcomeOK,
		RequestID: "0HN8:00000001", Message: "HTTP {RequestMethod} {RequestPath} responded {StatusCode} in {Elapsed:0.0000} ms",
		Time: mustTime("2026-12-02T03:50:03Z"), Duration: 250_000_000},
}, {
	Origin: "Monolog 2's JsonFormatter (php-monolog): the application's context under context",
	Line: `{"message":"order created","context":{"request_id":"m-1","idempotency_key":"k-m-1","order_id":"ord_7"},"level":200,` +
		`"level_name":"INFO","channel":"orders","datetime":"2026-12-02T03:50:04.000000+00:00","extra":{}}`,
	Want: model.Observation{Tier: model.TierServer, Format: "json", RequestID: "m-1", Key: "k-m-1", ResultID: "ord_7", Effect: true,
		Message: "order created", Time: mustTime("2026-12-02T03:50:04Z")},
}, {
	Origin: "python-json-logger's JsonFormatter with %(asctime)s %(levelname)s %(name)s %(message)s and extra fields",
	Line:   `{"asctime": "2026-12-02 03:50:05,250", "levelname": "INFO", "name": "orders", "message": "order created", "request_id": "py-1", "order_id": "ord_8"}`,
	Want: model.Observation{Tier: model.TierServer, Format: "json", RequestID: "py-1", ResultID: "ord_8", Effect: true, Message: "order created",
		Time: mustTime("2026-12-02T03:50:05.25Z")},
}, {
	Origin: "logstash-logback-encoder's LogstashEncoder (its README's field names), the MDC's fields beside them",
	Line: `{"@timestamp":"2026-12-02T03:50:06.123Z","@version":"1","message":"order created","logger_name":"shop.Orders","thread_name":"http-nio-8080-exec-1",` +
		`"level":"INFO","level_value":20000,"requestId":"lb-1","idempotencyKey":"k-lb-1","orderId":"ord_9"}`,
	Want: model.Observation{Tier: model.TierServer, Format: "json", RequestID: "lb-1", Key: "k-lb-1", ResultID: "ord_9", Effect: true,
		Message: "order created", Time: mustTime("2026-12-02T03:50:06.123Z")},
}, {
	Origin: "ASP.NET Core's request finished event (HostingRequestFinishedLog's names in dotnet/aspnetcore) as Microsoft.Extensions.Logging's " +
		"JsonConsoleFormatter writes it with IncludeScopes (https://learn.microsoft.com/dotnet/core/extensions/console-log-formatter)",
	Line: `{"Timestamp":"2026-12-02T03:50:07.0120000Z","EventId":2,"LogLevel":"Information","Category":"Microsoft.AspNetCore.Hosting.Diagnostics",` +
		`"Message":"Request finished HTTP/1.1 POST http://localhost:5000/v1/orders - 201 - application/json 12.0000ms","State":{"Message":"Request finished ` +
		`HTTP/1.1 POST http://localhost:5000/v1/orders - 201 - application/json 12.0000ms","ElapsedMilliseconds":12.0,"StatusCode":201,` +
		`"ContentType":"application/json","ContentLength":null,"Protocol":"HTTP/1.1","Method":"POST","Scheme":"http","Host":"localhost:5000",` +
		`"PathBase":"","Path":"/v1/orders","QueryString":""},"Scopes":[{"Message":"SpanId:7e1d4d8f5b6a2c31, TraceId:4bf92f3577b34da6a3ce929d0e0e4736, ` +
		`ParentId:0000000000000000","SpanId":"7e1d4d8f5b6a2c31","TraceId":"4bf92f3577b34da6a3ce929d0e0e4736","ParentId":"0000000000000000"},` +
		`{"Message":"RequestPath:/v1/orders RequestId:0HN8AB:00000002","RequestId":"0HN8AB:00000002","RequestPath":"/v1/orders"}]}`,
	Want: model.Observation{Tier: model.TierServer, Format: "json", Method: "POST", Route: "/v1/orders", Status: 201, Outcome: model.OutcomeOK,
		RequestID: "0HN8AB:00000002", Time: mustTime("2026-12-02T03:50:07Z"), Duration: 12_000_000},
}}
