package formats

import (
	"strings"

	"github.com/idem-cli/idem/trace"
)

// Traefik's JSON access logs.
var traefikFormat = &Format{
	Name: "traefik", Kind: KindJSON, Tier: trace.TierProxy,
	Doc: "Traefik JSON access logs (headers kept with accessLog.fields.headers)",
	match: func(r *record) bool {
		return r.hasAny("DownstreamStatus", "OriginStatus") || r.has("RequestMethod") && r.has("StartUTC")
	},
	extract: extractTraefik,
}

// keyFold returns the value of the first member whose name equals one of
// names ignoring case (Traefik writes Go-canonical header names).
func (r *record) keyFold(names ...string) string {
	for _, n := range names {
		for i, k := range r.keys {
			if strings.EqualFold(k, n) {
				if s := present(r.vals[i]); s != "" {
					return s
				}
			}
		}
	}
	return ""
}

func extractTraefik(p *Parser, r *record, o *trace.Observation) bool {
	o.Time, _ = trace.ParseTime(r.str("StartUTC", "StartLocal", "time"))
	o.Duration, _ = trace.ParseDuration(r.str("Duration"), trace.Nanoseconds)
	o.Method = strings.ToUpper(r.str("RequestMethod"))
	o.Route = routePath(r.str("RequestPath"))
	o.RequestID = r.keyFold("request_X-Request-Id")
	o.Key = trace.NormalizeKey(r.keyFold("request_Idempotency-Key"))
	o.Client = r.str("ClientHost")
	o.Status, _ = intValue(r.str("DownstreamStatus"))
	origin, _ := intValue(r.str("OriginStatus"))
	o.Outcome = proxyOutcome(o.Status)
	if o.Status == 499 {
		o.Status = 0
	}
	if n, _ := intValue(r.str("RetryAttempts")); n > 0 {
		o.Detail = "RetryAttempts " + r.str("RetryAttempts")
	}
	if origin > 0 && origin != o.Status {
		o.Detail = strings.TrimSpace(o.Detail + " origin " + r.str("OriginStatus"))
	}
	o.Replayed = strings.EqualFold(r.keyFold("downstream_Idempotent-Replayed", "origin_Idempotent-Replayed"), "true")
	return o.Method != ""
}
