package formats

import (
	"strings"

	"github.com/idem-cli/idem/trace"
)

// pino-http's request logs (Node.js).
var pinoHTTPFormat = &Format{
	Name: "pino-http", Kind: KindJSON, Tier: trace.TierServer,
	Doc: "pino-http request logs (Node.js)",
	match: func(r *record) bool {
		return r.has("req") && (r.has("res") || r.has("responseTime"))
	},
	extract: extractPinoHTTP,
}

func extractPinoHTTP(p *Parser, r *record, o *trace.Observation) bool {
	o.Time, _ = trace.ParseTime(r.str("time"))
	o.Duration, _ = trace.ParseDuration(r.str("responseTime"), trace.Milliseconds)
	o.Time = o.Time.Add(-o.Duration)
	o.Message = r.str("msg")
	req := r.get("req")
	// The propagated X-Request-Id joins the tiers; pino-http's own req.id
	// is by default a per-process counter.
	o.RequestID = header(req.Get("headers"), "x-request-id")
	if o.RequestID == "" {
		o.RequestID = processScoped(r, present(req.Get("id")), o.Source)
	}
	o.Method = strings.ToUpper(present(req.Get("method")))
	o.Route = routePath(present(req.Get("url")))
	hs := req.Get("headers")
	o.Key = trace.NormalizeKey(header(hs, "idempotency-key"))
	o.Client = present(req.Get("remoteAddress"))
	res := r.get("res")
	o.Status, _ = intValue(present(res.Get("statusCode")))
	rh := res.Get("headers")
	o.Replayed = strings.EqualFold(header(rh, "idempotent-replayed"), "true")
	o.RetryAfter = header(rh, "retry-after") != ""
	switch {
	case strings.Contains(o.Message, "aborted"):
		o.Outcome, o.Status = trace.OutcomeClientClosed, 0
		o.Detail = o.Message
	case o.Status > 0:
		o.Outcome = trace.OutcomeOK
	}
	o.ResultID = r.strs(pResultAliases)
	o.Decision = strings.ToLower(r.strs(pDecisionAliases))
	o.Fingerprint = r.strs(pFpAliases)
	return true
}
