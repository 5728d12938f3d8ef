package model

import "strings"

// A span of a distributed trace cannot name its delivery on its own: the
// delivery is the client's call and every proxy and server span below it,
// and which spans those are is known only once the whole trace has been
// read (an exporter writes a server's span before its client's, and the
// two may be in different files). So the formats that read traces give a
// span a provisional request id, a SpanRef written by String, saying where
// the span sits in its trace; the correlator resolves every SpanRef once
// reading is over and names each delivery then.

// spanRefPrefix starts every provisional request id SpanRef writes.
const spanRefPrefix = "span:"

// SpanJoin says how a span or a line joins its trace's deliveries.
type SpanJoin byte

// The ways a SpanRef joins.
const (
	// SpanOwn is a span that starts a delivery of its own: a client's
	// call (several may share one parent, each one attempt), or the
	// server's half of a span id the client shared (Zipkin's "shared").
	SpanOwn SpanJoin = 'o'
	// SpanPart is a proxy's or a server's span, or one below them: it is
	// part of its parent's delivery.
	SpanPart SpanJoin = 'p'
	// SpanLine is a log line (or a span's event) that names a trace and
	// perhaps a span: it joins that span's delivery, and is no span
	// itself.
	SpanLine SpanJoin = 'l'
)

// SpanRef is where a span sits in its trace, as a provisional request id.
// Trace and Span are lower-case hex; Parent is empty for a root span.
type SpanRef struct {
	Trace, Span, Parent string
	Join                SpanJoin
	// Quiet says the span says nothing of a request (an internal span, a
	// router's step inside a proxy): it only links the spans below it to
	// its parent, and is not kept once its trace is resolved.
	Quiet bool
	// RequestID is an X-Request-Id the span recorded: the delivery is
	// named after it, so that access logs that log it join.
	RequestID string
}

// String writes r as a provisional request id:
// span:<trace>/<span>/<parent>/<join>[q]/<request id>.
func (r SpanRef) String() string {
	join := string(r.Join)
	if r.Quiet {
		join += "q"
	}
	return spanRefPrefix + r.Trace + "/" + r.Span + "/" + r.Parent + "/" + join + "/" + r.RequestID
}

// IsSpanRef reports whether a request id is a SpanRef's: one test, for
// the correlator's every line.
func IsSpanRef(id string) bool {
	return len(id) > len(spanRefPrefix) && id[:len(spanRefPrefix)] == spanRefPrefix
}

// ParseSpanRef reads what String wrote; false for any other id.
func ParseSpanRef(id string) (SpanRef, bool) {
	if !IsSpanRef(id) {
		return SpanRef{}, false
	}
	parts := strings.SplitN(id[len(spanRefPrefix):], "/", 5)
	if len(parts) != 5 || parts[0] == "" || parts[3] == "" || len(parts[3]) > 2 {
		return SpanRef{}, false
	}
	r := SpanRef{Trace: parts[0], Span: parts[1], Parent: parts[2], Join: SpanJoin(parts[3][0]), RequestID: parts[4]}
	if len(parts[3]) == 2 {
		if parts[3][1] != 'q' {
			return SpanRef{}, false
		}
		r.Quiet = true
	}
	switch r.Join {
	case SpanOwn, SpanPart:
		if r.Span == "" {
			return SpanRef{}, false
		}
	case SpanLine:
		if r.Quiet {
			return SpanRef{}, false
		}
	default:
		return SpanRef{}, false
	}
	return r, true
}

// spanFormats are the formats whose observations are spans (formats'
// otlp_traces.go, jaeger.go, zipkin.go; a test holds the list to them).
var spanFormats = []string{"otlp-traces", "jaeger", "zipkin"}

// IsSpan reports whether o is a span of a trace, whose Message is the
// span's name: reports name each span by it.
func IsSpan(o *Observation) bool {
	for _, f := range spanFormats {
		if o.Format == f {
			return true
		}
	}
	return false
}
