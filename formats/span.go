package formats

import (
	"strings"
	"time"

	"github.com/idem-cli/idem/model"
	"github.com/tidwall/gjson"
)

// What a span of a distributed trace says, whichever exporter wrote it
// (otlp_traces.go, jaeger.go and zipkin.go each read their own layout into
// a span): a trace is the cross-tier timeline idem builds from logs, with
// the client's call, the proxy and the server's handler as spans of one
// trace id.
//
//   - The tier is the span's kind: a CLIENT or PRODUCER span is the
//     client's call, a SERVER or CONSUMER span the server's; a span of a
//     proxy (Envoy, nginx's OpenTelemetry module, Traefik, HAProxy,
//     Caddy, Kong, by the service name or instrumentation scope the proxy
//     sets, or Envoy's component=proxy) is the proxy's, whatever its kind;
//     a database client span below a server is the server's.
//   - The time is the span's start, the duration its own.
//   - The delivery is worked out once every span is read (model.SpanRef):
//     a client's span starts one, a proxy's or server's joins its
//     parent's.
//   - Attributes follow OpenTelemetry's semantic conventions, old and new
//     names; the Idempotency-Key is the captured request header
//     (http.request.header.idempotency-key, a string array, any case, "_"
//     for "-" as older Node instrumentation writes it) or any attribute or
//     baggage entry named after it. Exporters that flatten attributes to
//     text (Zipkin, Jaeger) write a string array as JSON text, ["k-1"]:
//     its first element is the value.

// spanKind is a span's kind, as OTLP numbers it.
type spanKind uint8

const (
	kindUnspecified spanKind = iota
	kindInternal
	kindServer
	kindClient
	kindProducer
	kindConsumer
)

// spanKindOf reads a kind as OTLP/JSON (1 to 5, "SPAN_KIND_SERVER"),
// Jaeger ("server") or Zipkin ("SERVER") writes it.
func spanKindOf(s string) spanKind {
	s = strings.TrimPrefix(strings.ToLower(strings.TrimSpace(s)), "span_kind_")
	switch s {
	case "1", "internal":
		return kindInternal
	case "2", "server":
		return kindServer
	case "3", "client":
		return kindClient
	case "4", "producer":
		return kindProducer
	case "5", "consumer":
		return kindConsumer
	}
	return kindUnspecified
}

// span is one span as its format read it, in common terms. Its strings
// point into the record being read.
type span struct {
	trace, id, parent string
	kind              spanKind
	name              string
	service, scope    string
	start, end        time.Time
	dur               time.Duration // when the format gives a duration rather than an end
	// shared says the span is the server's half of an id the client
	// made (Zipkin's B3 single-host spans).
	shared bool
	// failed says the span's status is an error; status is its
	// description.
	failed bool
	status string
	attrs  []spanAttr
	events []spanEvent
	// line is where the span starts, when the format knows it.
	line int
}

// spanAttr is one attribute (a tag) as text.
type spanAttr struct{ key, value string }

// spanEvent is a span's event (an OTLP event, a Jaeger log, a Zipkin
// annotation); its attributes are attrs[from:to] of its span's events'
// own list.
type spanEvent struct {
	name  string
	time  time.Time
	attrs []spanAttr
}

// reset empties s, keeping its buffers.
func (s *span) reset() {
	attrs, events := s.attrs[:0], s.events[:0]
	*s = span{attrs: attrs, events: events}
}

// attrText is an attribute's value as text: the first element of a
// string array written as JSON text (["k-1"]), as Zipkin and Jaeger write
// OpenTelemetry's arrays; the value itself otherwise.
func attrText(v string) string {
	v = strings.TrimSpace(v)
	if len(v) > 1 && v[0] == '[' && v[len(v)-1] == ']' && gjson.Valid(v) {
		return present(gjson.Parse(v).Get("0"))
	}
	return v
}

// attr returns the first of keys the span has, as text.
func (s *span) attr(keys ...string) string {
	for _, k := range keys {
		for _, a := range s.attrs {
			if a.key == k {
				if v := attrText(a.value); v != "" {
					return v
				}
			}
		}
	}
	return ""
}

// named returns the value of the first attribute whose name, in lower
// case with "_" and "." read as "-", is one of names or ends in "-" and
// one of them: a captured header (http.request.header.Idempotency-Key),
// a baggage entry or an attribute named after it.
func named(attrs []spanAttr, names ...string) string {
	for _, a := range attrs {
		k := normalName(a.key)
		for _, n := range names {
			if k == n || strings.HasSuffix(k, n) && k[len(k)-len(n)-1] == '-' {
				if v := attrText(a.value); v != "" {
					return v
				}
			}
		}
	}
	return ""
}

// normalName is an attribute's name in lower case with "_" and "." as "-".
func normalName(k string) string {
	b := []byte(strings.ToLower(k))
	for i, c := range b {
		if c == '_' || c == '.' {
			b[i] = '-'
		}
	}
	return string(b)
}

// proxyNames are the services and instrumentation scopes proxies name
// their own spans by.
var proxyNames = []string{"envoy", "istio-proxy", "nginx", "traefik", "haproxy", "caddy", "kong", "apisix", "ingress"}

// isProxy reports whether the span is a proxy's: by its service or scope
// name, or Envoy's component=proxy.
func (s *span) isProxy() bool {
	if strings.EqualFold(s.attr("component"), "proxy") {
		return true
	}
	for _, name := range []string{strings.ToLower(s.service), strings.ToLower(s.scope)} {
		for _, p := range proxyNames {
			if name == p || strings.Contains(name, p) && proxyWord(name, p) {
				return true
			}
		}
	}
	return false
}

// proxyWord reports whether p stands as a word of name (unknown_service:nginx,
// github.com/traefik/traefik, ingress-nginx), not inside another word.
func proxyWord(name, p string) bool {
	for i := strings.Index(name, p); i >= 0; {
		before := i == 0 || !isWordByte(name[i-1])
		after := i+len(p) == len(name) || !isWordByte(name[i+len(p)])
		if before && after {
			return true
		}
		j := strings.Index(name[i+1:], p)
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

func isWordByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// isDatabase reports whether the span is a database call.
func (s *span) isDatabase() bool { return s.attr("db.system.name", "db.system") != "" }

// tierJoin is the span's tier and how it joins its trace's deliveries.
func (s *span) tierJoin() (model.Tier, model.SpanJoin) {
	switch {
	case s.isProxy():
		return model.TierProxy, model.SpanPart
	case s.isDatabase():
		return model.TierServer, model.SpanPart
	case s.kind == kindClient || s.kind == kindProducer:
		return model.TierClient, model.SpanOwn
	case s.shared:
		return model.TierServer, model.SpanOwn
	}
	return model.TierServer, model.SpanPart
}

// spanResultKeys name what a span created, besides the loggers' aliases.
var spanResultKeys = []string{"order.id", "result.id", "payment.id", "charge.id", "ticket.id", "booking.id", "reservation.id", "receipt.id"}

// readSpan maps a span onto an observation, and the events that say they
// created something onto effects of its delivery. A span that says
// nothing of a request (an internal span with no key, no effect and no
// HTTP attribute) is counted as ignored.
func readSpan(p *Parser, s *span, format string, src model.Source) {
	trace, id := traceID(s.trace), spanID(s.id)
	if s.line > 0 {
		src.Line = s.line
	}
	var o model.Observation
	o.Source, o.Format = src, format
	var join model.SpanJoin
	o.Tier, join = s.tierJoin()
	o.Time = s.start
	switch {
	case !s.end.IsZero() && !s.start.IsZero() && !s.end.Before(s.start):
		o.Duration = s.end.Sub(s.start)
	case s.dur > 0:
		o.Duration = s.dur
	}
	o.Message = s.name
	o.Method = httpMethod(s.attr("http.request.method", "http.method"))
	o.Route = routePath(s.attr("url.path", "http.target", "http.path", "url.full", "http.url", "http.route"))
	o.Status, _ = intValue(s.attr("http.response.status_code", "http.status_code"))
	o.Key = model.NormalizeKey(named(s.attrs, "idempotency-key", "idempotencykey"))
	requestID := named(s.attrs, "x-request-id", "request-id", "requestid", "guid:x-request-id")
	if n, ok := intValue(s.attr("http.request.resend_count")); ok && n >= 0 {
		o.Attempt = n + 1 // resend_count counts the resends: the first retry is the second attempt
	}
	if o.Tier == model.TierClient {
		o.Client = s.service
	} else {
		o.Client = s.attr("client.address", "http.client_ip")
	}
	o.ResultID = s.attr(spanResultKeys...)
	if o.ResultID == "" {
		o.ResultID = s.attr(resultAliases...)
	}
	spanOutcome(s, &o)
	o.Effect = o.ResultID != "" && effectWords.MatchString(o.Message) || s.isDatabase() && isInsert(s)
	if p.cfg != nil {
		p.cfg.applyEffect(&o)
	}
	said := o.Method != "" || o.Key != "" || o.Effect || o.Status > 0 || o.ResultID != "" || requestID != ""
	full := o
	switch {
	case trace != "" && id != "":
		ref := model.SpanRef{Trace: trace, Span: id, Parent: spanID(s.parent), Join: join, Quiet: !said, RequestID: requestID}
		if !said {
			// Only its place in the trace: the spans below it join
			// through it.
			o = model.Observation{Source: src, Format: format, Tier: o.Tier}
		}
		o.RequestID = ref.String()
		p.emit(&o)
	case said:
		o.RequestID = requestID
		p.emit(&o)
	default:
		p.out.Ignored++
	}
	full.RequestID = requestID
	for i := range s.events {
		readSpanEvent(p, &s.events[i], &full, trace, id, format)
	}
}

// readSpanEvent keeps an event that says it created something (a result
// id in its attributes or its span's, and words that say so in its name)
// as an effect of the span's delivery, at the event's time.
func readSpanEvent(p *Parser, e *spanEvent, of *model.Observation, trace, id, format string) {
	result := ""
	for _, k := range spanResultKeys {
		if result = eventAttr(e, k); result != "" {
			break
		}
	}
	for _, k := range resultAliases {
		if result != "" {
			break
		}
		result = eventAttr(e, k)
	}
	if result == "" {
		result = of.ResultID
	}
	if result == "" || !effectWords.MatchString(e.name) || of.Effect && result == of.ResultID {
		return
	}
	o := model.Observation{Source: of.Source, Format: format, Tier: of.Tier, Time: e.time, Message: e.name, ResultID: result,
		Effect: true, Key: of.Key, Method: of.Method, Route: of.Route}
	if o.Time.IsZero() {
		o.Time = of.Time
	}
	if trace != "" && id != "" {
		o.RequestID = model.SpanRef{Trace: trace, Span: id, Join: model.SpanLine}.String()
	} else {
		o.RequestID = of.RequestID
	}
	p.emit(&o)
}

func eventAttr(e *spanEvent, key string) string {
	for _, a := range e.attrs {
		if a.key == key {
			return attrText(a.value)
		}
	}
	return ""
}

// isInsert reports whether a database span inserted a row.
func isInsert(s *span) bool {
	op := s.attr("db.operation.name", "db.operation")
	if op == "" {
		op = s.attr("db.query.text", "db.statement")
		if op == "" {
			op = s.name
		}
		op, _, _ = strings.Cut(strings.TrimSpace(op), " ")
	}
	return strings.EqualFold(op, "INSERT")
}

// spanOutcome reads how the request ended for the span's tier: its status
// code, or the error its status, error.type or exception events say (a
// client's deadline is a timeout).
func spanOutcome(s *span, o *model.Observation) {
	why := s.attr("error.type")
	if s.failed && s.status != "" {
		why = s.status
	}
	for _, e := range s.events {
		if why != "" {
			break
		}
		if e.name == "exception" || e.name == "error" {
			why = eventAttr(&e, "exception.message")
			if why == "" {
				why = eventAttr(&e, "exception.type")
			}
			if why == "" {
				why = eventAttr(&e, "message")
			}
		}
	}
	if why == "" && s.failed {
		why = "error"
	}
	switch {
	case o.Status > 0 && o.Tier == model.TierProxy:
		o.Outcome = proxyOutcome(o.Status)
	case o.Status > 0:
		o.Outcome = model.OutcomeOK
	case why != "":
		o.Outcome = errorOutcome(why)
	}
	if why != "" && (o.Status == 0 || o.Status >= 500 || o.Outcome != model.OutcomeOK) {
		o.Detail = why
	}
}

// errorOutcome reads an error's words: Go's "context deadline exceeded",
// Node's ETIMEDOUT and ECONNRESET, and what proxies and browsers say.
func errorOutcome(why string) model.Outcome {
	w := strings.ToLower(why)
	switch {
	case strings.Contains(w, "deadline exceeded"), strings.Contains(w, "etimedout"), strings.Contains(w, "deadlineexceeded"):
		return model.OutcomeTimeout
	case strings.Contains(w, "econnreset"), strings.Contains(w, "socket hang up"):
		return model.OutcomeReset
	case strings.Contains(w, "econnrefused"):
		return model.OutcomeNotDelivered
	}
	return proxyErrorOutcome(why)
}

// spanID reads a span id as tracing writes it: 16 hex digits (8 bytes),
// in any case; "" for anything else, and for W3C's invalid all-zero id.
func spanID(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	switch {
	case len(s) == 0 || len(s) > 16 || !isHex(s):
		return ""
	case len(s) < 16:
		s = strings.Repeat("0", 16-len(s)) + s // Jaeger's and Zipkin's short ids
	}
	if strings.Trim(s, "0") == "" {
		return ""
	}
	return s
}
