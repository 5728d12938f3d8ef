package formats

import (
	"strings"

	"github.com/idem-cli/idem/model"
	"github.com/tidwall/gjson"
)

// OpenTelemetry traces as OTLP/JSON: the Collector's file exporter writes
// one batch per line (resourceSpans[].scopeSpans[].spans[]); Grafana
// Tempo's and Jaeger's OTLP downloads are one document, often
// pretty-printed, which the reader streams a ResourceSpans at a time
// (Tempo's older answers call the list "batches", and its scopes
// "instrumentationLibrarySpans"). What a span means is span.go's.
var otlpTracesFormat = &format{
	Name: "otlp-traces", Aliases: []string{"otlp-spans", "tempo"}, Kind: kindTrace, Tier: model.TierServer,
	Doc: "OpenTelemetry traces as OTLP/JSON: the Collector's file exporter, Tempo's and Jaeger's OTLP downloads",
	match: func(r *record) bool {
		return r.has("resourceSpans") || r.has("scopeSpans") || r.has("instrumentationLibrarySpans") || len(r.keys) == 1 && r.has("batches")
	},
	expand: func(p *Parser, r *record, src model.Source) bool {
		expandOTLPTraces(p, r.raw(), src, r.loaded != nil)
		return true
	},
	Samples: []sample{{
		Origin: "opentelemetry-proto's examples/trace.json, on one line: a server span of my.service with no HTTP attribute (linking only)",
		Line: `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"my.service"}}]},"scopeSpans":[{"scope":` +
			`{"name":"my.library","version":"1.0.0","attributes":[{"key":"my.scope.attribute","value":{"stringValue":"some scope attribute"}}]},` +
			`"spans":[{"traceId":"5B8EFFF798038103D269B633813FC60C","spanId":"EEE19B7EC3C1B174","parentSpanId":"EEE19B7EC3C1B173",` +
			`"name":"I'm a server span","startTimeUnixNano":1544712660000000000,"endTimeUnixNano":1544712661000000000,"kind":2,` +
			`"attributes":[{"key":"my.span.attr","value":{"stringValue":"some value"}}]}]}]}]}`,
		Count: 1,
		Want: model.Observation{Tier: model.TierServer, Format: "otlp-traces",
			RequestID: "span:5b8efff798038103d269b633813fc60c/eee19b7ec3c1b174/eee19b7ec3c1b173/pq/"},
	}, {
		Origin: "fixtures/real/spans-go-otelhttp/traces.jsonl: the client's batch as the Collector's file exporter writes it (pdata's JSON " +
			"marshaler), otelhttp's spans with the key and X-Request-Id headers captured",
		Line: `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"checkout-web"}}]},"scopeSpans":[{"scope":{"name":` +
			`"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp","version":"0.72.0"},"spans":[{"traceId":"c4a0e57b62a8af0edefed5285d46fb0f","` +
			`spanId":"97ac3042c3b4239c","parentSpanId":"166d5768dbd72c77","flags":257,"name":"HTTP POST","kind":3,"startTimeUnixNano":"179618999877005992` +
			`5","endTimeUnixNano":"1796189998874482651","attributes":[{"key":"http.request.method","value":{"stringValue":"POST"}},{"key":"url.full","val` +
			`ue":{"stringValue":"http://127.0.0.1:38947/v1/orders"}},{"key":"server.address","value":{"stringValue":"127.0.0.1"}},{"key":"server.port","v` +
			`alue":{"intValue":"38947"}},{"key":"network.protocol.version","value":{"stringValue":"1.1"}},{"key":"http.request.header.idempotency-key","v` +
			`alue":{"arrayValue":{"values":[{"stringValue":"key-go-otelhttp-clean"}]}}},{"key":"http.request.header.x-request-id","value":{"arrayValue":{` +
			`"values":[{"stringValue":"req-go-1"}]}}},{"key":"http.response.status_code","value":{"intValue":"201"}}],"status":{}},{"traceId":"23dbe6c795` +
			`a54180abdc50361c3b2fb4","spanId":"acecdd21d5a442f1","parentSpanId":"3b41fbb48737c74b","flags":257,"name":"HTTP POST","kind":3,"startTimeUnix` +
			`Nano":"1796189998874704992","endTimeUnixNano":"1796189999275623421","attributes":[{"key":"http.request.method","value":{"stringValue":"POST"` +
			`}},{"key":"url.full","value":{"stringValue":"http://127.0.0.1:38947/v1/orders"}},{"key":"server.address","value":{"stringValue":"127.0.0.1"}` +
			`},{"key":"server.port","value":{"intValue":"38947"}},{"key":"network.protocol.version","value":{"stringValue":"1.1"}},{"key":"http.request.h` +
			`eader.idempotency-key","value":{"arrayValue":{"values":[{"stringValue":"key-go-otelhttp-1"}]}}},{"key":"http.request.header.x-request-id","v` +
			`alue":{"arrayValue":{"values":[{"stringValue":"req-go-2"}]}}},{"key":"error.type","value":{"stringValue":"context.deadlineExceededError"}}],` +
			`"status":{"message":"context deadline exceeded","code":2}},{"traceId":"23dbe6c795a54180abdc50361c3b2fb4","spanId":"b19afca86bc000ee","parent` +
			`SpanId":"3b41fbb48737c74b","flags":257,"name":"HTTP POST","kind":3,"startTimeUnixNano":"1796190000085937316","endTimeUnixNano":"179619000018` +
			`8378092","attributes":[{"key":"http.request.method","value":{"stringValue":"POST"}},{"key":"url.full","value":{"stringValue":"http://127.0.0` +
			`.1:38947/v1/orders"}},{"key":"server.address","value":{"stringValue":"127.0.0.1"}},{"key":"server.port","value":{"intValue":"38947"}},{"key"` +
			`:"network.protocol.version","value":{"stringValue":"1.1"}},{"key":"http.request.header.idempotency-key","value":{"arrayValue":{"values":[{"s` +
			`tringValue":"key-go-otelhttp-1"}]}}},{"key":"http.request.header.x-request-id","value":{"arrayValue":{"values":[{"stringValue":"req-go-3"}]}` +
			`}},{"key":"http.response.status_code","value":{"intValue":"201"}}],"status":{}},{"traceId":"23dbe6c795a54180abdc50361c3b2fb4","spanId":"437b` +
			`a32eb387df64","parentSpanId":"3b41fbb48737c74b","flags":257,"name":"HTTP POST","kind":3,"startTimeUnixNano":"1796190000188569585","endTimeUn` +
			`ixNano":"1796190000292167726","attributes":[{"key":"http.request.method","value":{"stringValue":"POST"}},{"key":"url.full","value":{"stringV` +
			`alue":"http://127.0.0.1:38947/v1/orders"}},{"key":"server.address","value":{"stringValue":"127.0.0.1"}},{"key":"server.port","value":{"intVa` +
			`lue":"38947"}},{"key":"network.protocol.version","value":{"stringValue":"1.1"}},{"key":"http.request.header.idempotency-key","value":{"array` +
			`Value":{"values":[{"stringValue":"key-go-otelhttp-2"}]}}},{"key":"http.request.header.x-request-id","value":{"arrayValue":{"values":[{"strin` +
			`gValue":"req-go-4"}]}}},{"key":"http.response.status_code","value":{"intValue":"201"}}],"status":{}}]},{"scope":{"name":"checkout-web"},"spa` +
			`ns":[{"traceId":"c4a0e57b62a8af0edefed5285d46fb0f","spanId":"166d5768dbd72c77","flags":257,"name":"first","kind":1,"startTimeUnixNano":"1796` +
			`189998769970876","endTimeUnixNano":"1796189998874644716","status":{}},{"traceId":"23dbe6c795a54180abdc50361c3b2fb4","spanId":"3b41fbb48737c7` +
			`4b","flags":257,"name":"checkout","kind":1,"startTimeUnixNano":"1796189998874677249","endTimeUnixNano":"1796190000292430013","status":{}}]}]` +
			`}]}`,
		Count: 6,
		Want: model.Observation{Tier: model.TierClient, Format: "otlp-traces", Method: "POST", Route: "/v1/orders", Status: 201,
			Outcome: model.OutcomeOK, Key: "key-go-otelhttp-clean", Client: "checkout-web", Message: "HTTP POST",
			Time: mustTime("2026-12-02T05:39:58.770059925Z"), Duration: 104_422_726,
			RequestID: "span:c4a0e57b62a8af0edefed5285d46fb0f/97ac3042c3b4239c/166d5768dbd72c77/o/req-go-1"},
	}},
}

// expandOTLPTraces reads an OTLP/JSON batch, or one ResourceSpans of a
// streamed document, span by span; streamed says the text came out of a
// document, where each span is cited by the line it starts on.
func expandOTLPTraces(p *Parser, text string, src model.Source, streamed bool) {
	root := gjson.Parse(text)
	lines := newLineCounter(text, src.Line, streamed)
	sp := &span{}
	each := func(rs gjson.Result) {
		service := otelAttr(rs.Get("resource.attributes"), "service.name")
		for _, scopes := range []string{"scopeSpans", "instrumentationLibrarySpans"} {
			rs.Get(scopes).ForEach(func(_, ss gjson.Result) bool {
				scope := ss.Get("scope.name").Str
				if scope == "" {
					scope = ss.Get("instrumentationLibrary.name").Str
				}
				ss.Get("spans").ForEach(func(_, v gjson.Result) bool {
					sp.reset()
					sp.service, sp.scope = service, scope
					readOTLPSpan(sp, v)
					sp.line = lines.at(v.Index)
					readSpan(p, sp, "otlp-traces", src)
					return true
				})
				return true
			})
		}
	}
	list := root.Get("resourceSpans")
	if !list.Exists() {
		list = root.Get("batches")
	}
	if list.Exists() {
		list.ForEach(func(_, rs gjson.Result) bool {
			each(rs)
			return true
		})
		return
	}
	each(root) // a ResourceSpans streamed out of a document
}

// readOTLPSpan reads one OTLP/JSON span into sp.
func readOTLPSpan(sp *span, v gjson.Result) {
	sp.trace, sp.id, sp.parent = v.Get("traceId").Str, v.Get("spanId").Str, v.Get("parentSpanId").Str
	sp.name = v.Get("name").Str
	sp.kind = spanKindOf(present(v.Get("kind")))
	sp.start, _ = model.ParseTime(present(v.Get("startTimeUnixNano")))
	sp.end, _ = model.ParseTime(present(v.Get("endTimeUnixNano")))
	code := present(v.Get("status.code"))
	sp.failed = code == "2" || strings.EqualFold(code, "STATUS_CODE_ERROR")
	sp.status = v.Get("status.message").Str
	sp.attrs = otlpAttrs(sp.attrs, v.Get("attributes"))
	v.Get("events").ForEach(func(_, e gjson.Result) bool {
		at, _ := model.ParseTime(present(e.Get("timeUnixNano")))
		sp.events = append(sp.events, spanEvent{name: e.Get("name").Str, time: at, attrs: otlpAttrs(nil, e.Get("attributes"))})
		return true
	})
}

// otlpAttrs appends an OTLP key/value list to attrs as text.
func otlpAttrs(attrs []spanAttr, list gjson.Result) []spanAttr {
	list.ForEach(func(_, kv gjson.Result) bool {
		attrs = append(attrs, spanAttr{key: kv.Get("key").Str, value: otlpValue(kv.Get("value"))})
		return true
	})
	return attrs
}

// otlpValue is an OTLP AnyValue as text; an array, its first element
// (a captured header's value); anything deeper, nothing.
func otlpValue(v gjson.Result) string {
	if s := otlpScalar(v); s != "" {
		return s
	}
	return otlpScalar(v.Get("arrayValue.values.0"))
}

func otlpScalar(v gjson.Result) string {
	for _, k := range []string{"stringValue", "intValue", "boolValue", "doubleValue"} {
		if x := v.Get(k); x.Exists() {
			return present(x)
		}
	}
	return ""
}

// lineCounter turns offsets into a pretty-printed record's text into line
// numbers, counting forward from the last offset asked about.
type lineCounter struct {
	text       string
	line, last int
	flat       bool
}

// newLineCounter counts the lines of a value streamed out of a document
// (a line of JSON lines is one line, whatever its bytes).
func newLineCounter(text string, line int, streamed bool) *lineCounter {
	return &lineCounter{text: text, line: line, flat: !streamed || !strings.Contains(text, "\n")}
}

// at returns the line of offset off (0 when the record is on one line,
// where its own line is every span's).
func (c *lineCounter) at(off int) int {
	if c.flat || off < c.last || off > len(c.text) {
		return 0
	}
	c.line += strings.Count(c.text[c.last:off], "\n")
	c.last = off
	return c.line
}
