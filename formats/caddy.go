package formats

import (
	"strings"

	"github.com/idem-cli/idem/formats/grammar"
	"github.com/idem-cli/idem/model"
)

// Caddy's JSON access logs (the http.log.access logger).
var caddyFormat = &format{
	Name: "caddy", Kind: kindJSON, Tier: model.TierProxy,
	Doc: "Caddy JSON access logs",
	// The recipe's config is in backquotes: a capture runs exactly that
	// (internal/kit/harness's TestSetupRecipes).
	Setup: "`format json` in the site's log block logs the request headers, X-Request-Id and Idempotency-Key among them; `request_header X-Request-Id {http.request.uuid}` before reverse_proxy gives the server an id for every request (Caddy logs the headers as they came, so its lines join the server's by key, method, route and time).",
	match: func(r *record) bool {
		return r.has("request") && (r.has("resp_headers") || r.has("logger") && r.has("duration") && r.has("status"))
	},
	extract: extractCaddy,
	// ts is when the request was done, duration float seconds.
	Samples: []sample{{
		Origin: "Caddy documentation, Logging (structured access log example)",
		Line: `{"level":"info","ts":1646861401.5241024,"logger":"http.log.access","msg":"handled request","request":{"remote_ip":"127.0.0.1","remote_port":"41342",` +
			`"client_ip":"127.0.0.1","proto":"HTTP/2.0","method":"GET","host":"localhost","uri":"/","headers":{"User-Agent":["curl/7.82.0"],"Accept":["*/*"],` +
			`"Accept-Encoding":["gzip, deflate, br"]},"tls":{"resumed":false,"version":772,"cipher_suite":4865,"proto":"h2","server_name":"example.com"}},` +
			`"bytes_read":0,"user_id":"","duration":0.000929675,"size":10900,"status":200,"resp_headers":{"Server":["Caddy"],"Content-Encoding":["gzip"],` +
			`"Content-Type":["text/html; charset=utf-8"],"Vary":["Accept-Encoding"]}}`,
		Want: model.Observation{Tier: model.TierProxy, Format: "caddy", Method: "GET", Route: "/", Status: 200,
			Outcome: model.OutcomeOK, Client: "127.0.0.1", Time: mustTime("2022-03-09T21:30:01.523172725Z"), Duration: 929_675},
	}, {
		Origin: "a reverse_proxy 502 quoted in a public log viewer's tests (its error line says the dial was refused; the access line cannot tell)",
		Line: `{"level":"error","ts":1790515619.0385482,"logger":"http.log.access","msg":"handled request","request":{"remote_ip":"127.0.0.1","remote_port":"43862",` +
			`"client_ip":"127.0.0.1","proto":"HTTP/1.1","method":"GET","host":"127.0.0.1:18281","uri":"/refused","headers":{"User-Agent":["curl/8.12.1"],` +
			`"Accept":["*/*"]}},"bytes_read":0,"user_id":"","duration":0.000656591,"size":0,"status":502,"resp_headers":{"Server":["Caddy"]}}`,
		Want: model.Observation{Tier: model.TierProxy, Format: "caddy", Method: "GET", Route: "/refused", Status: 502,
			Outcome: model.OutcomeUpstreamReset, Client: "127.0.0.1", Time: mustTime("2026-09-27T13:26:59.037891609Z"), Duration: 656_591},
	}, {
		Origin: "Debian 12's Caddy 2.6.2 in front of Go Fiber's idempotency middleware (fixtures/real/fiber): remote_ip only, X-Idempotency-Key",
		Line:   `{"level":"info","ts":1796129097.0997727,"logger":"http.log.access.log0","msg":"handled request","request":{"remote_ip":"127.0.0.10","remote_port":"54861","proto":"HTTP/1.1","method":"POST","host":"127.0.0.1:44017","uri":"/v1/orders","headers":{"User-Agent":["Go-http-client/1.1"],"Connection":["close"],"Content-Length":["29"],"Content-Type":["application/json"],"X-Harness-Step":["clean"],"X-Idempotency-Key":["ef2b4332-3889-413f-b7d5-951dd8c36aaa"],"X-Request-Id":["98ac5f05-9ab3-4491-85d6-0245b3b960a2"],"Accept-Encoding":["gzip"]}},"user_id":"","duration":0.00085925,"size":40,"status":201,"resp_headers":{"Server":["Caddy"],"Content-Length":["40"],"X-Request-Id":["98ac5f05-9ab3-4491-85d6-0245b3b960a2"],"Date":["Tue, 01 Dec 2026 12:44:57 GMT"],"Content-Type":["application/json"]}}`,
		Want: model.Observation{Tier: model.TierProxy, Format: "caddy", Method: "POST", Route: "/v1/orders", Status: 201,
			Outcome: model.OutcomeOK, Client: "127.0.0.10", RequestID: "98ac5f05-9ab3-4491-85d6-0245b3b960a2",
			Key: "ef2b4332-3889-413f-b7d5-951dd8c36aaa", Time: mustTime("2026-12-01T12:44:57.09891345Z"), Duration: 859_250},
	}},
}

func extractCaddy(p *Parser, r *record, o *model.Observation) bool {
	o.Duration, _ = model.ParseDuration(r.str("duration"), model.Seconds)
	if t, ok := model.ParseTime(r.str("ts")); ok {
		o.Time = t.Add(-o.Duration) // Caddy logs when the request is done
	}
	req := r.get("request")
	o.Method = httpMethod(present(req.Get("method")))
	o.Route = routePath(present(req.Get("uri")))
	hs := req.Get("headers")
	o.RequestID = requestHeader(hs, grammar.RequestID)
	o.Key = model.NormalizeKey(requestHeader(hs, grammar.Key))
	// client_ip (Caddy 2.7 on) honours trusted proxies; older releases log remote_ip only.
	if o.Client = present(req.Get("client_ip")); o.Client == "" {
		o.Client = present(req.Get("remote_ip"))
	}
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
	if o.RequestID == "" {
		o.RequestID = traceDelivery(header(hs, "Traceparent"))
	}
	return o.Method != ""
}
