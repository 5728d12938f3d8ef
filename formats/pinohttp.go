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
	// time is when the response finished (ms), responseTime milliseconds.
	Samples: []Sample{{
		Origin: "fixtures/formats/pino-http.jsonl, after pino-http's README example",
		Line: `{"level":30,"time":1531171074631,"pid":657,"hostname":"box","req":{"id":1,"method":"POST","url":"/v1/orders","headers":{"host":"localhost:3000",` +
			`"idempotency-key":"k-pino-1","x-request-id":"p-1"},"remoteAddress":"::1","remotePort":64386},"res":{"statusCode":201,` +
			`"headers":{"content-type":"application/json"}},"responseTime":31,"msg":"request completed"}`,
		Want: trace.Observation{Tier: trace.TierServer, Format: "pino-http", Method: "POST", Route: "/v1/orders", Status: 201,
			Outcome: trace.OutcomeOK, RequestID: "1", Key: "k-pino-1", Client: "::1", Message: "request completed",
			Time: mustTime("2018-07-09T21:17:54.6Z"), Duration: 31_000_000},
	}},
}

func extractPinoHTTP(p *Parser, r *record, o *trace.Observation) bool {
	o.Time, _ = trace.ParseTime(r.str("time"))
	o.Duration, _ = trace.ParseDuration(r.str("responseTime"), trace.Milliseconds)
	o.Time = o.Time.Add(-o.Duration)
	o.Message = r.str("msg")
	req := r.get("req")
	o.RequestID = present(req.Get("id"))
	o.Method = strings.ToUpper(present(req.Get("method")))
	o.Route = routePath(present(req.Get("url")))
	hs := req.Get("headers")
	o.Key = trace.NormalizeKey(header(hs, "idempotency-key"))
	if o.RequestID == "" {
		o.RequestID = header(hs, "x-request-id")
	}
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
