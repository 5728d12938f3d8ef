package formats

import (
	"github.com/idem-cli/idem/model"
	"github.com/tidwall/gjson"
)

// Jaeger's own JSON: the query API's answer and the UI's "Download JSON"
// ({"data": [trace, …]}, each trace its spans and the processes they name
// by processID), streamed a trace at a time by the reader; a trace on its
// own; or spans one per line with their process inline, as Jaeger's
// Elasticsearch and Kafka JSON hold them. Times and durations are in
// microseconds; the kind is the span.kind tag; the parent the first
// CHILD_OF reference in the trace (else any reference); an OpenTelemetry
// span's status is the otel.status_code and otel.status_description tags,
// its events are logs whose "event" field is their name, and a string
// array attribute is JSON text. What a span means is span.go's.
var jaegerFormat = &format{
	Name: "jaeger", Kind: kindTrace, Tier: model.TierServer,
	Doc: "Jaeger JSON: the query API's answer and the UI's Download JSON, or spans with their process",
	match: func(r *record) bool {
		return r.has("data") && r.hasAny("total", "limit", "errors") || r.has("traceID") && (r.has("spans") || r.has("spanID") && r.has("operationName"))
	},
	expand: func(p *Parser, r *record, src model.Source) bool {
		expandJaeger(p, r.raw(), src, r.loaded != nil)
		return true
	},
	Samples: []sample{{
		Origin: "jaegertracing/jaeger's model/converter/json/fixtures/ui_01.json: the trace's processes and five spans, none of them HTTP (linking only)",
		Line: `{"traceID":"0000000000000001","spans":[{"traceID":"0000000000000001","spanID":"2","operationName":"test-general-conversion",` +
			`"references":[],"startTime":1485467191639875,"duration":5,"tags":[],"logs":[{"timestamp":1485467191639875,"fields":[{"key":"event",` +
			`"type":"string","value":"some-event"}]},{"timestamp":1485467191639875,"fields":[{"key":"x","type":"string","value":"y"}]}],` +
			`"processID":"p1","warnings":null},{"traceID":"0000000000000001","spanID":"2","operationName":"some-operation","references":[],` +
			`"startTime":1485467191639875,"duration":5,"tags":[{"key":"peer.service","type":"string","value":"service-y"},{"key":"peer.ipv4",` +
			`"type":"int64","value":23456},{"key":"error","type":"bool","value":true},{"key":"temperature","type":"float64","value":72.5},` +
			`{"key":"blob","type":"binary","value":"AAAwOQ=="}],"logs":[],"processID":"p1","warnings":null},{"traceID":"0000000000000001",` +
			`"spanID":"3","operationName":"some-operation","references":[{"refType":"CHILD_OF","traceID":"0000000000000001","spanID":"2"}],` +
			`"startTime":1485467191639875,"duration":5,"tags":[],"logs":[],"processID":"p2","warnings":null},{"traceID":"0000000000000001",` +
			`"spanID":"4","operationName":"reference-test","references":[{"refType":"CHILD_OF","traceID":"00000000000000ff","spanID":"ff"},` +
			`{"refType":"CHILD_OF","traceID":"0000000000000001","spanID":"2"},{"refType":"FOLLOWS_FROM","traceID":"0000000000000001","spanID":"2"}],` +
			`"startTime":1485467191639875,"duration":5,"tags":[],"logs":[],"processID":"p2","warnings":["some span warning"]},` +
			`{"traceID":"0000000000000001","spanID":"5","operationName":"preserveParentID-test","references":[{"refType":"CHILD_OF",` +
			`"traceID":"0000000000000001","spanID":"4"}],"startTime":1485467191639875,"duration":4,"tags":[],"logs":[],"processID":"p2",` +
			`"warnings":["some span warning"]}],"processes":{"p1":{"serviceName":"service-x","tags":[]},"p2":{"serviceName":"service-y",` +
			`"tags":[]}},"warnings":["some trace warning"]}`,
		Count: 5,
		Want: model.Observation{Tier: model.TierServer, Format: "jaeger",
			RequestID: "span:0000000000000001/0000000000000002//pq/"},
	}, {
		Origin: "fixtures/real/spans-go-otelhttp/jaeger.json: Jaeger v1.76.0's query API answer (/api/traces/{id}) for a trace of otelhttp's " +
			"spans it received over OTLP; the header's string array is JSON text",
		Line: `{"data":[{"traceID":"c4a0e57b62a8af0edefed5285d46fb0f","spans":[{"traceID":"c4a0e57b62a8af0edefed5285d46fb0f","spanID":"2c394c224820aedc","o` +
			`perationName":"POST","references":[{"refType":"CHILD_OF","traceID":"c4a0e57b62a8af0edefed5285d46fb0f","spanID":"97ac3042c3b4239c"}],"startTi` +
			`me":1796189998771899,"duration":102062,"tags":[{"key":"client.address","type":"string","value":"127.0.0.1"},{"key":"http.request.header.idem` +
			`potency-key","type":"string","value":"[\"key-go-otelhttp-clean\"]"},{"key":"http.request.header.x-request-id","type":"string","value":"[\"re` +
			`q-go-1\"]"},{"key":"http.request.method","type":"string","value":"POST"},{"key":"http.response.body.size","type":"int64","value":24},{"key":` +
			`"http.response.status_code","type":"int64","value":201},{"key":"network.peer.address","type":"string","value":"127.0.0.1"},{"key":"network.p` +
			`eer.port","type":"int64","value":38516},{"key":"network.protocol.version","type":"string","value":"1.1"},{"key":"order.id","type":"string","` +
			`value":"ord_go_1"},{"key":"otel.scope.name","type":"string","value":"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"},{"key":` +
			`"otel.scope.version","type":"string","value":"0.72.0"},{"key":"server.address","type":"string","value":"127.0.0.1"},{"key":"server.port","ty` +
			`pe":"int64","value":38947},{"key":"span.kind","type":"string","value":"server"},{"key":"url.path","type":"string","value":"/v1/orders"},{"ke` +
			`y":"url.scheme","type":"string","value":"http"},{"key":"user_agent.original","type":"string","value":"Go-http-client/1.1"}],"logs":[{"timest` +
			`amp":1796189998872731,"fields":[{"key":"event","type":"string","value":"order created"},{"key":"order.id","type":"string","value":"ord_go_1"` +
			`}]}],"processID":"p1","warnings":null},{"traceID":"c4a0e57b62a8af0edefed5285d46fb0f","spanID":"97ac3042c3b4239c","operationName":"HTTP POST"` +
			`,"references":[{"refType":"CHILD_OF","traceID":"c4a0e57b62a8af0edefed5285d46fb0f","spanID":"166d5768dbd72c77"}],"startTime":1796189998770059` +
			`,"duration":104422,"tags":[{"key":"http.request.header.idempotency-key","type":"string","value":"[\"key-go-otelhttp-clean\"]"},{"key":"http.` +
			`request.header.x-request-id","type":"string","value":"[\"req-go-1\"]"},{"key":"http.request.method","type":"string","value":"POST"},{"key":"` +
			`http.response.status_code","type":"int64","value":201},{"key":"network.protocol.version","type":"string","value":"1.1"},{"key":"otel.scope.n` +
			`ame","type":"string","value":"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"},{"key":"otel.scope.version","type":"string","v` +
			`alue":"0.72.0"},{"key":"server.address","type":"string","value":"127.0.0.1"},{"key":"server.port","type":"int64","value":38947},{"key":"span` +
			`.kind","type":"string","value":"client"},{"key":"url.full","type":"string","value":"http://127.0.0.1:38947/v1/orders"}],"logs":[],"processID` +
			`":"p2","warnings":null},{"traceID":"c4a0e57b62a8af0edefed5285d46fb0f","spanID":"166d5768dbd72c77","operationName":"first","references":[],"s` +
			`tartTime":1796189998769970,"duration":104673,"tags":[{"key":"otel.scope.name","type":"string","value":"checkout-web"},{"key":"span.kind","ty` +
			`pe":"string","value":"internal"}],"logs":[],"processID":"p2","warnings":null}],"processes":{"p1":{"serviceName":"orders-api","tags":[]},"p2"` +
			`:{"serviceName":"checkout-web","tags":[]}},"warnings":null}],"total":0,"limit":0,"offset":0,"errors":null}`,
		Count: 4,
		Want: model.Observation{Tier: model.TierServer, Format: "jaeger", Method: "POST", Route: "/v1/orders", Status: 201,
			Outcome: model.OutcomeOK, Key: "key-go-otelhttp-clean", Client: "127.0.0.1", Message: "POST", ResultID: "ord_go_1",
			Time: mustTime("2026-12-02T05:39:58.771899Z"), Duration: 102_062_000,
			RequestID: "span:c4a0e57b62a8af0edefed5285d46fb0f/2c394c224820aedc/97ac3042c3b4239c/p/req-go-1"},
	}},
}

// expandJaeger reads a Jaeger answer, one trace, or one span.
func expandJaeger(p *Parser, text string, src model.Source, streamed bool) {
	root := gjson.Parse(text)
	lines := newLineCounter(text, src.Line, streamed)
	sp := &span{}
	trace := func(t gjson.Result) {
		processes := t.Get("processes")
		t.Get("spans").ForEach(func(_, v gjson.Result) bool {
			sp.reset()
			process := v.Get("process")
			if !process.Exists() {
				process = processes.Get(gjson.Escape(v.Get("processID").Str))
			}
			readJaegerSpan(sp, v, process)
			sp.line = lines.at(v.Index)
			readSpan(p, sp, "jaeger", src)
			return true
		})
	}
	switch {
	case root.Get("data").IsArray():
		root.Get("data").ForEach(func(_, t gjson.Result) bool {
			trace(t)
			return true
		})
	case root.Get("spans").Exists():
		trace(root)
	default:
		sp.reset()
		readJaegerSpan(sp, root, root.Get("process"))
		readSpan(p, sp, "jaeger", src)
	}
}

// readJaegerSpan reads one Jaeger span and its process into sp.
func readJaegerSpan(sp *span, v, process gjson.Result) {
	sp.trace, sp.id = v.Get("traceID").Str, v.Get("spanID").Str
	sp.parent = v.Get("parentSpanID").Str
	var follows string
	v.Get("references").ForEach(func(_, ref gjson.Result) bool {
		if ref.Get("traceID").Str != sp.trace {
			return true
		}
		if ref.Get("refType").Str == "CHILD_OF" {
			sp.parent = ref.Get("spanID").Str
			return false
		}
		if follows == "" {
			follows = ref.Get("spanID").Str
		}
		return true
	})
	if sp.parent == "" {
		sp.parent = follows
	}
	sp.name = v.Get("operationName").Str
	sp.service = process.Get("serviceName").Str
	sp.start = microsTime(v.Get("startTime"))
	sp.dur, _ = model.ParseDuration(present(v.Get("duration")), model.Microseconds)
	sp.attrs = jaegerTags(sp.attrs, v.Get("tags"))
	sp.kind = spanKindOf(sp.attr("span.kind"))
	sp.scope = sp.attr("otel.scope.name", "otel.library.name")
	status := sp.attr("otel.status_code")
	sp.failed = status == "ERROR" || status == "" && sp.attr("error") == "true"
	sp.status = sp.attr("otel.status_description")
	v.Get("logs").ForEach(func(_, l gjson.Result) bool {
		e := spanEvent{time: microsTime(l.Get("timestamp"))}
		e.attrs = jaegerTags(nil, l.Get("fields"))
		for _, a := range e.attrs {
			if a.key == "event" {
				e.name = a.value
			}
		}
		sp.events = append(sp.events, e)
		return true
	})
}

// jaegerTags appends Jaeger's typed key/values to attrs as text.
func jaegerTags(attrs []spanAttr, tags gjson.Result) []spanAttr {
	tags.ForEach(func(_, kv gjson.Result) bool {
		attrs = append(attrs, spanAttr{key: kv.Get("key").Str, value: present(kv.Get("value"))})
		return true
	})
	return attrs
}
