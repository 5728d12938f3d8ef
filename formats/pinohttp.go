package formats

import (
	"strings"

	"github.com/idem-cli/idem/formats/grammar"
	"github.com/idem-cli/idem/model"
)

// pino-http's request logs (Node.js).
var pinoHTTPFormat = &format{
	Name: "pino-http", Kind: kindJSON, Tier: model.TierServer,
	Doc: "pino-http request logs (Node.js)",
	match: func(r *record) bool {
		return r.has("req") && (r.has("res") || r.has("responseTime"))
	},
	extract: extractPinoHTTP,
	// time is when the response finished (ms), responseTime milliseconds.
	Samples: []sample{{
		Origin: "fixtures/formats/pino-http.jsonl, after pino-http's README example",
		Line: `{"level":30,"time":1531171074631,"pid":657,"hostname":"box","req":{"id":1,"method":"POST","url":"/v1/orders","headers":{"host":"localhost:3000",` +
			`"idempotency-key":"k-pino-1","x-request-id":"p-1"},"remoteAddress":"::1","remotePort":64386},"res":{"statusCode":201,` +
			`"headers":{"content-type":"application/json"}},"responseTime":31,"msg":"request completed"}`,
		Want: model.Observation{Tier: model.TierServer, Format: "pino-http", Method: "POST", Route: "/v1/orders", Status: 201,
			Outcome: model.OutcomeOK, RequestID: "p-1", Key: "k-pino-1", Client: "::1", Message: "request completed",
			Time: mustTime("2018-07-09T21:17:54.6Z"), Duration: 31_000_000},
	}, {
		Origin: "pino-http-print's test/fixtures/http-log.json (an early pino-http line: res.header as raw text, v 1)",
		Line: `{"pid":13961,"hostname":"MacBook-Pro-4","level":30,"time":1469122492244,"msg":"request completed","res":{"statusCode":200,"header":"HTTP/1.1 200 ` +
			`OK\\r\\ncontent-type: application/json; charset=utf-8\\r\\ncache-control: no-cache\\r\\nvary: accept-encoding\\r\\ncontent-encoding: gzip\\r\\ndate: ` +
			`Thu, 21 Jul 2016 17:34:52 GMT\\r\\nconnection: close\\r\\ntransfer-encoding: chunked\\r\\n\\r\\n"},"responseTime":17,"req":{"id":8,"method":"GET",` +
			`"url":"/api/activity/component","headers":{"host":"localhost:20000","connection":"keep-alive","cache-control":"max-age=0","accept":"application/json",` +
			`"user-agent":"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/51.0.2704.103 Safari/537.36",` +
			`"referer":"http://localhost:20000/","accept-encoding":"gzip, deflate, sdch","accept-language":"en-US,en;q=0.8,de;q=0.6",` +
			`"cookie":"_ga=GA1.1.204420087.1444842476"},"remoteAddress":"127.0.0.1","remotePort":61543},"v":1}`,
		Want: model.Observation{Tier: model.TierServer, Format: "pino-http", Method: "GET", Route: "/api/activity/component", Status: 200,
			Outcome: model.OutcomeOK, RequestID: "MacBook-Pro-4/13961#8", Client: "127.0.0.1", Message: "request completed",
			Time: mustTime("2016-07-21T17:34:52.227Z"), Duration: 17_000_000},
	}},
}

func extractPinoHTTP(p *Parser, r *record, o *model.Observation) bool {
	o.Time, _ = model.ParseTime(r.str("time"))
	o.Duration, _ = model.ParseDuration(r.str("responseTime"), model.Milliseconds)
	o.Time = o.Time.Add(-o.Duration)
	o.Message = r.str("msg")
	req := r.get("req")
	// The propagated X-Request-Id joins the tiers; pino-http's own req.id
	// is by default a per-process counter.
	o.RequestID = requestHeader(req.Get("headers"), grammar.RequestID)
	if o.RequestID == "" {
		o.RequestID = traceDelivery(header(req.Get("headers"), "traceparent"))
	}
	o.Process = processOf(r)
	if o.RequestID == "" {
		o.RequestID = processScoped(o.Process, present(req.Get("id")), o.Source)
	}
	o.Method = httpMethod(present(req.Get("method")))
	o.Route = routePath(present(req.Get("url")))
	hs := req.Get("headers")
	o.Key = model.NormalizeKey(requestHeader(hs, grammar.Key))
	markRetryIn(o, hs)
	o.Client = present(req.Get("remoteAddress"))
	res := r.get("res")
	o.Status, _ = intValue(present(res.Get("statusCode")))
	rh := res.Get("headers")
	o.Replayed = strings.EqualFold(header(rh, "idempotent-replayed"), "true")
	o.RetryAfter = header(rh, "retry-after") != ""
	switch {
	case strings.Contains(o.Message, "aborted"):
		o.Outcome, o.Status = model.OutcomeClientClosed, 0
		o.Detail = o.Message
	case o.Status > 0:
		o.Outcome = model.OutcomeOK
	}
	o.ResultID = r.strs(pResultAliases)
	o.Decision = strings.ToLower(r.strs(pDecisionAliases))
	o.Fingerprint = r.strs(pFpAliases)
	return true
}
