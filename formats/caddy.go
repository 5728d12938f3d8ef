package formats

import (
	"strings"

	"github.com/idem-cli/idem/trace"
)

// Caddy's JSON access logs (the http.log.access logger).
var caddyFormat = &Format{
	Name: "caddy", Kind: KindJSON, Tier: trace.TierProxy,
	Doc: "Caddy JSON access logs",
	match: func(r *record) bool {
		return r.has("request") && (r.has("resp_headers") || r.has("logger") && r.has("duration") && r.has("status"))
	},
	extract: extractCaddy,
}

func extractCaddy(p *Parser, r *record, o *trace.Observation) bool {
	o.Duration, _ = trace.ParseDuration(r.str("duration"), trace.Seconds)
	if t, ok := trace.ParseTime(r.str("ts")); ok {
		o.Time = t.Add(-o.Duration) // Caddy logs when the request is done
	}
	req := r.get("request")
	o.Method = strings.ToUpper(present(req.Get("method")))
	o.Route = routePath(present(req.Get("uri")))
	hs := req.Get("headers")
	o.RequestID = header(hs, "X-Request-Id")
	o.Key = trace.NormalizeKey(header(hs, "Idempotency-Key"))
	o.Client = present(req.Get("client_ip"))
	o.Status, _ = intValue(r.str("status"))
	o.Outcome = proxyOutcome(o.Status)
	if o.Status == 499 {
		o.Status = 0
	}
	resp := r.get("resp_headers")
	o.Replayed = strings.EqualFold(header(resp, "Idempotent-Replayed"), "true")
	o.RetryAfter = header(resp, "Retry-After") != ""
	if o.RequestID == "" {
		o.RequestID = header(resp, "X-Request-Id")
	}
	return o.Method != ""
}
