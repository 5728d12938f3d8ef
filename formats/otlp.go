package formats

import (
	"strings"

	"github.com/idem-cli/idem/model"
	"github.com/tidwall/gjson"
)

// OpenTelemetry logs as JSON: the Collector's file exporter writes one
// OTLP batch per line (resourceLogs[].scopeLogs[].logRecords[]); other
// pipelines write one flat log record per line.
var otlpFormat = &format{
	Name: "otlp", Kind: kindEnvelope, Tier: model.TierServer,
	Doc:   "OpenTelemetry OTLP/JSON batches (the Collector's file exporter), flattened",
	match: func(r *record) bool { return r.has("resourceLogs") },
	expand: func(p *Parser, r *record, src model.Source) bool {
		expandOTLP(p, r, src)
		return true
	},
	Samples: []sample{{
		Origin: "fixtures/formats/otlp.jsonl: opentelemetry-proto's examples/logs.json with HTTP attributes",
		Line: `{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"orders"}}]},"scopeLogs":[{"scope":{"name":"http",` +
			`"version":"1.0.0"},"logRecords":[{"timeUnixNano":"1544712660300000000","observedTimeUnixNano":"1544712660300000000","severityText":"Information",` +
			`"traceId":"5B8EFFF798038103D269B633813FC60C","spanId":"EEE19B7EC3C1B174","body":{"stringValue":"request"},"attributes":[{"key":"http.request.method",` +
			`"value":{"stringValue":"POST"}},{"key":"url.path","value":{"stringValue":"/v1/orders"}},{"key":"http.response.status_code",` +
			`"value":{"intValue":"201"}},{"key":"http.request.header.idempotency-key","value":{"arrayValue":{"values":[{"stringValue":"k-otel-1"}]}}},` +
			`{"key":"http.request.header.x-request-id","value":{"arrayValue":{"values":[{"stringValue":"o-1"}]}}}]}]}]}]}`,
		Count: 1,
		Want: model.Observation{Tier: model.TierServer, Format: "otel", Method: "POST", Route: "/v1/orders", Status: 201,
			Outcome: model.OutcomeOK, RequestID: "o-1", Key: "k-otel-1", Message: "request",
			Time: mustTime("2018-12-13T14:51:00.3Z")},
	}},
}

var otelFormat = &format{
	Name: "otel", Kind: kindJSON, Tier: model.TierServer,
	Doc: "OpenTelemetry log records, one flat record per line",
	match: func(r *record) bool {
		return r.hasAny("timeUnixNano", "observedTimeUnixNano") && r.has("attributes")
	},
	extract: extractOTelRecord,
	Samples: []sample{{
		Origin: "the log record of fixtures/formats/otlp.jsonl on its own line",
		Line: `{"timeUnixNano":"1544712660300000000","observedTimeUnixNano":"1544712660300000000","severityText":"Information",` +
			`"traceId":"5B8EFFF798038103D269B633813FC60C","spanId":"EEE19B7EC3C1B174","body":{"stringValue":"request"},"attributes":[{"key":"http.request.method",` +
			`"value":{"stringValue":"POST"}},{"key":"url.path","value":{"stringValue":"/v1/orders"}},{"key":"http.response.status_code",` +
			`"value":{"intValue":"201"}},{"key":"http.request.header.idempotency-key","value":{"arrayValue":{"values":[{"stringValue":"k-otel-1"}]}}},` +
			`{"key":"http.request.header.x-request-id","value":{"arrayValue":{"values":[{"stringValue":"o-1"}]}}}]}`,
		Want: model.Observation{Tier: model.TierServer, Format: "otel", Method: "POST", Route: "/v1/orders", Status: 201,
			Outcome: model.OutcomeOK, RequestID: "o-1", Key: "k-otel-1", Message: "request",
			Time: mustTime("2018-12-13T14:51:00.3Z")},
	}},
}

// expandOTLP flattens an OTLP/JSON batch as the Collector's file exporter
// writes it: resourceLogs[].scopeLogs[].logRecords[].
func expandOTLP(p *Parser, r *record, src model.Source) {
	r.get("resourceLogs").ForEach(func(_, rl gjson.Result) bool {
		service := otelAttr(rl.Get("resource.attributes"), "service.name")
		rl.Get("scopeLogs").ForEach(func(_, sl gjson.Result) bool {
			sl.Get("logRecords").ForEach(func(_, lr gjson.Result) bool {
				var o model.Observation
				o.Source = src
				o.Format = "otel"
				o.Tier = model.TierServer
				if extractOTel(lr, &o) {
					o.Client = service
					p.emit(&o)
				} else {
					p.out.Ignored++
				}
				return true
			})
			return true
		})
		return true
	})
}

func extractOTelRecord(p *Parser, r *record, o *model.Observation) bool {
	// Re-read the record as one value: the paths below are nested.
	return extractOTel(gjson.Parse(r.raw()), o)
}

// otelAttr finds an attribute in an OTLP key/value list.
func otelAttr(attrs gjson.Result, key string) string {
	var out string
	attrs.ForEach(func(_, kv gjson.Result) bool {
		if kv.Get("key").Str == key {
			v := kv.Get("value")
			switch {
			case v.Get("stringValue").Exists():
				out = v.Get("stringValue").Str
			case v.Get("intValue").Exists():
				out = present(v.Get("intValue"))
			case v.Get("arrayValue.values.0.stringValue").Exists():
				out = v.Get("arrayValue.values.0.stringValue").Str
			case v.Get("boolValue").Exists():
				out = present(v.Get("boolValue"))
			case v.Get("doubleValue").Exists():
				out = present(v.Get("doubleValue"))
			}
			return false
		}
		return true
	})
	return strings.TrimSpace(out)
}

func extractOTel(lr gjson.Result, o *model.Observation) bool {
	o.Time, _ = model.ParseTime(present(lr.Get("timeUnixNano")))
	if o.Time.IsZero() {
		o.Time, _ = model.ParseTime(present(lr.Get("observedTimeUnixNano")))
	}
	o.Message = present(lr.Get("body.stringValue"))
	a := lr.Get("attributes")
	first := func(keys ...string) string {
		for _, k := range keys {
			if s := otelAttr(a, k); s != "" {
				return s
			}
		}
		return ""
	}
	o.Method = httpMethod(first("http.request.method", "http.method"))
	o.Route = routePath(first("url.path", "http.route", "http.target", "url.full", "http.url"))
	o.Status, _ = intValue(first("http.response.status_code", "http.status_code"))
	o.Key = model.NormalizeKey(first("http.request.header.idempotency-key", "idempotency_key", "idempotency.key"))
	o.RequestID = first("http.request.header.x-request-id", "request_id", "http.request_id")
	named := o.RequestID != ""
	if o.RequestID == "" {
		o.RequestID = traceDelivery(present(lr.Get("traceId")))
		if trace, span := traceID(present(lr.Get("traceId"))), spanID(present(lr.Get("spanId"))); trace != "" && span != "" {
			// The span's delivery, once the trace's spans are read (span.go).
			o.RequestID = model.SpanRef{Trace: trace, Span: span, Join: model.SpanLine}.String()
		}
	}
	o.ResultID = first(append(resultAliases, "result.id", "order.id")...)
	o.Decision = strings.ToLower(first("idempotency.decision", "decision"))
	o.Fingerprint = first("idempotency.fingerprint", "fingerprint")
	if n, ok := intValue(first("http.request.resend_count")); ok {
		o.Attempt = n
	}
	if e := first("error.type"); e != "" {
		o.Detail = e
		if o.Status == 0 {
			o.Outcome = model.OutcomeError
			if strings.Contains(strings.ToLower(e), "timeout") {
				o.Outcome = model.OutcomeTimeout
			}
		}
	}
	if o.Status > 0 && o.Outcome == model.OutcomeUnknown {
		o.Outcome = model.OutcomeOK
	}
	if o.ResultID != "" && effectWords.MatchString(o.Message) {
		o.Effect = true
	}
	// A trace id names the delivery of a record that says something of
	// a request; alone it says nothing (a log line inside a trace).
	return o.Method != "" || o.Route != "" || o.Status > 0 || o.Key != "" || named ||
		o.ResultID != "" || o.Decision != "" || o.Fingerprint != ""
}
