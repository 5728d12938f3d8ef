package formats

import (
	"strings"

	"github.com/idem-cli/idem/trace"
	"github.com/tidwall/gjson"
)

// Datadog's log exports: the Logs API's answer (data[]) or one log per
// line.
var datadogFormat = &Format{
	Name: "datadog", Kind: KindEnvelope,
	Doc:   "Datadog log exports (Logs API answers, logs per line)",
	match: func(r *record) bool { return isDatadogLog(r) || isDatadogPage(r) },
	expand: func(p *Parser, r *record, src trace.Source) bool {
		if isDatadogLog(r) {
			whole((*Parser).datadogLog)(p, r, src)
		} else {
			entries("data", (*Parser).datadogLog)(p, r, src)
		}
		return true
	},
}

func isDatadogLog(r *record) bool {
	return r.has("attributes") && (r.hasAny("service", "host") || r.has("type") && r.has("id")) ||
		r.has("content") && r.has("id") && len(r.keys) <= 3
}

func isDatadogPage(r *record) bool {
	return r.has("data") && r.hasAny("meta", "links") && len(r.keys) <= 3
}

func (p *Parser) datadogLog(e gjson.Result, src trace.Source) {
	switch {
	case e.Get("content").IsObject():
		e = e.Get("content") // v1 API: {id, content}
	case e.Get("type").Str == "log" && e.Get("attributes").IsObject():
		e = e.Get("attributes") // v2 API: {id, type, attributes}
	}
	labels := stringLabels(e, "service", "host", "source")
	e.Get("tags").ForEach(func(_, t gjson.Result) bool {
		if k, v, ok := strings.Cut(t.Str, ":"); ok && len(labels) < 64 {
			labels[k] = capLen(v)
		}
		return true
	})
	attrs := e.Get("attributes")
	if a := attrs.Get("attributes"); a.IsObject() {
		attrs = a
	}
	msg := e.Get("message")
	if !msg.Exists() {
		msg = attrs.Get("message")
	}
	if s := strings.TrimSpace(msg.Str); strings.HasPrefix(s, "{") {
		p.unwrap(msg, labels, src, "datadog")
		return
	}
	if attrs.IsObject() {
		p.unwrap(attrs, labels, src, "datadog")
		return
	}
	p.unwrap(msg, labels, src, "datadog")
}
