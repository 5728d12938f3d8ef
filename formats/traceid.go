package formats

import (
	"strings"

	"github.com/idem-cli/idem/model"
)

// Trace ids join tiers where no request id is logged: a browser or a
// proxy that passes on a W3C traceparent, and an application that logs the
// trace id its tracing library gives it (OpenTelemetry's trace_id,
// Datadog's dd.trace_id, Google Cloud's logging.googleapis.com/trace,
// AWS's X-Amzn-Trace-Id). A delivery is then named after its trace,
// "trace:<id>". A client that retries within one trace should send an
// X-Request-Id per attempt, or the attempts join as one delivery.

// pTraceAliases are the fields that carry a trace id or a traceparent.
var pTraceAliases = newPaths(traceAliases...)

// traceDelivery names a delivery after the trace id in s, or returns "".
func traceDelivery(s string) string {
	if id := traceID(s); id != "" {
		return "trace:" + id
	}
	return ""
}

// traceID reads a trace id in the forms tracing writes it, or returns ""
// for anything else (a stack trace is not a trace id):
//
//	00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01  W3C traceparent
//	4bf92f3577b34da6a3ce929d0e0e4736                         W3C / OTel trace id
//	projects/p/traces/4bf92f3577b34da6a3ce929d0e0e4736        Google Cloud
//	Root=1-5759e988-bd862e3fe1be46a994272793;Parent=…;Sampled=1  AWS X-Ray
//	5759e988bd862e3fe1be46a994272793 or a decimal dd.trace_id  (as logged)
func traceID(s string) string {
	s = strings.TrimSpace(s)
	switch {
	case len(s) == 55 && s[2] == '-' && s[35] == '-' && s[52] == '-':
		s = s[3:35]
	case strings.HasPrefix(s, "projects/") && strings.Contains(s, "/traces/"):
		s = s[strings.LastIndex(s, "/traces/")+len("/traces/"):]
	case strings.HasPrefix(s, "Root="):
		root := strings.TrimPrefix(strings.SplitN(s, ";", 2)[0], "Root=")
		if len(root) == 35 && root[:2] == "1-" && root[10] == '-' {
			t, r := strings.ToLower(root[2:10]), strings.ToLower(root[11:])
			if isHex(t) && isHex(r) {
				return "1-" + t + "-" + r
			}
		}
		return ""
	}
	if len(s) != 32 && len(s) != 16 {
		if len(s) >= 10 && len(s) <= 20 && isUint(s) {
			return s // Datadog's 64-bit decimal trace id
		}
		return ""
	}
	s = strings.ToLower(s)
	if !isHex(s) || strings.Trim(s, "0") == "" {
		return "" // all zeros is W3C's invalid trace id
	}
	return s
}

// traceFromRecord names o's delivery after the trace id its record
// carries, when it logged no request id.
func traceFromRecord(r *record, o *model.Observation) {
	if o.RequestID != "" {
		return
	}
	o.RequestID = traceDelivery(r.strs(pTraceAliases))
}
