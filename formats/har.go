package formats

import (
	"encoding/base64"
	"strings"

	"github.com/idem-cli/idem/formats/grammar"
	"github.com/idem-cli/idem/model"
	"github.com/tidwall/gjson"
)

// HAR 1.2 as browsers and proxies export it: a document whose entries are
// streamed one at a time by the reader, or a whole document on one line,
// or entries on their own.
var harFormat = &format{
	Name: "har", Kind: kindJSON, Tier: model.TierClient,
	Doc:   "browser HAR 1.2 (Chrome, Firefox): one entry per delivery",
	match: func(r *record) bool { return r.has("log") && len(r.keys) <= 2 || isHAREntry(r) },
	expand: func(p *Parser, r *record, src model.Source) bool {
		if !(r.has("log") && len(r.keys) <= 2) {
			return false // an entry: extracted
		}
		expandHAR(p, r, src)
		return true
	},
	extract: extractHAREntry,
	// Chrome writes status 0 and an _error for a request that got no
	// answer; the fingerprint is that of the canonical JSON body
	// {"amount":25000,"currency":"USD","memo":"invoice 2026-114","to":"acct_991"}.
	Samples: []sample{{
		Origin: "fixtures/scenarios/retry-new-key/client.har, Chrome's first entry (a timeout)",
		Line: `{"startedDateTime":"2026-11-30T14:02:11.300Z","time":5001,"request":{"method":"POST","url":"https://shop.example.com/v1/transfers",` +
			`"httpVersion":"HTTP/1.1","cookies":[],"headers":[{"name":"Content-Type","value":"application/json"},{"name":"Accept","value":"application/json"},` +
			`{"name":"X-Request-Id","value":"5a0c7e21-0b1d-4c2e-8f3a-4b5c6d7e8f90"},{"name":"Idempotency-Key","value":"c0ffee00-1111-4222-8333-444455556666"}],` +
			`"queryString":[],"headersSize":-1,"bodySize":75,"postData":{"mimeType":"application/json","text":"{\"to\":\"acct_991\",\"amount\":25000,` +
			`\"currency\":\"USD\",\"memo\":\"invoice 2026-114\"}"}},"response":{"status":0,"statusText":"","httpVersion":"unknown","cookies":[],"headers":[],` +
			`"content":{"size":0,"mimeType":"x-unknown"},"redirectURL":"","headersSize":-1,"bodySize":-1,"_transferSize":0,"_error":"net::ERR_TIMED_OUT"},` +
			`"cache":{},"timings":{"blocked":0.5,"dns":-1,"ssl":-1,"connect":-1,"send":0.1,"wait":5000.3,"receive":0.1}}`,
		Want: model.Observation{Tier: model.TierClient, Format: "har", Method: "POST", Route: "/v1/transfers",
			Outcome: model.OutcomeTimeout, Detail: "net::ERR_TIMED_OUT", RequestID: "5a0c7e21-0b1d-4c2e-8f3a-4b5c6d7e8f90",
			Key: "c0ffee00-1111-4222-8333-444455556666", Fingerprint: "sha256:45507fac511ba7331a07647a5d208d94c3dd4708d3ae6b336eb68c3744b6b332",
			Time: mustTime("2026-11-30T14:02:11.3Z"), Duration: 5_001_000_000},
	}, {
		Origin: "fixtures/scenarios/retry-new-key/client.har, the whole document on one line",
		Line: `{"log":{"version":"1.2","creator":{"name":"WebInspector","version":"537.36"},"pages":[],"entries":[{"startedDateTime":"2026-11-30T14:02:11.300Z",` +
			`"time":5001,"request":{"method":"POST","url":"https://shop.example.com/v1/transfers","httpVersion":"HTTP/1.1","cookies":[],` +
			`"headers":[{"name":"Content-Type","value":"application/json"},{"name":"Accept","value":"application/json"},{"name":"X-Request-Id",` +
			`"value":"5a0c7e21-0b1d-4c2e-8f3a-4b5c6d7e8f90"},{"name":"Idempotency-Key","value":"c0ffee00-1111-4222-8333-444455556666"}],"queryString":[],` +
			`"headersSize":-1,"bodySize":75,"postData":{"mimeType":"application/json","text":"{\"to\":\"acct_991\",\"amount\":25000,\"currency\":\"USD\",` +
			`\"memo\":\"invoice 2026-114\"}"}},"response":{"status":0,"statusText":"","httpVersion":"unknown","cookies":[],"headers":[],"content":{"size":0,` +
			`"mimeType":"x-unknown"},"redirectURL":"","headersSize":-1,"bodySize":-1,"_transferSize":0,"_error":"net::ERR_TIMED_OUT"},"cache":{},` +
			`"timings":{"blocked":0.5,"dns":-1,"ssl":-1,"connect":-1,"send":0.1,"wait":5000.3,"receive":0.1}},{"startedDateTime":"2026-11-30T14:02:19.950Z",` +
			`"time":310.5,"request":{"method":"POST","url":"https://shop.example.com/v1/transfers","httpVersion":"HTTP/1.1","cookies":[],` +
			`"headers":[{"name":"Content-Type","value":"application/json"},{"name":"Accept","value":"application/json"},{"name":"X-Request-Id",` +
			`"value":"6b1d8f32-1c2e-4d3f-9a4b-5c6d7e8f9a01"},{"name":"Idempotency-Key","value":"c0ffee00-7777-4888-9999-aaaabbbbcccc"}],"queryString":[],` +
			`"headersSize":-1,"bodySize":75,"postData":{"mimeType":"application/json","text":"{\"to\":\"acct_991\",\"amount\":25000,\"currency\":\"USD\",` +
			`\"memo\":\"invoice 2026-114\"}"}},"response":{"status":201,"statusText":"","httpVersion":"HTTP/1.1","cookies":[],"headers":[{"name":"Content-Type",` +
			`"value":"application/json"}],"content":{"size":34,"mimeType":"application/json","text":"{\"id\":\"tr_002\",\"status\":\"pending\"}"},"redirectURL":"",` +
			`"headersSize":-1,"bodySize":34,"_transferSize":300},"cache":{},"timings":{"blocked":0.5,"dns":-1,"ssl":-1,"connect":-1,"send":0.1,"wait":309.8,` +
			`"receive":0.1}}]}}`,
		Count: 2,
		Want: model.Observation{Tier: model.TierClient, Format: "har", Method: "POST", Route: "/v1/transfers",
			Outcome: model.OutcomeTimeout, Detail: "net::ERR_TIMED_OUT", RequestID: "5a0c7e21-0b1d-4c2e-8f3a-4b5c6d7e8f90",
			Key: "c0ffee00-1111-4222-8333-444455556666", Time: mustTime("2026-11-30T14:02:11.3Z"), Duration: 5_001_000_000},
	}, {
		Origin: "a Chromium 126 (Edge) HAR export quoted in a public repository: a CORS preflight through CloudFront, _error null",
		Line: `{"_initiator":{"type":"preflight","url":"https://u4ceo7qshi.execute-api.us-east-1.amazonaws.com/prod/signup","requestId":"31440.755"},` +
			`"_priority":"High","_resourceType":"preflight","cache":{},"connection":"29766","pageref":"page_7","request":{"method":"OPTIONS",` +
			`"url":"https://u4ceo7qshi.execute-api.us-east-1.amazonaws.com/prod/signup","httpVersion":"http/2.0","headers":[{"name":":authority",` +
			`"value":"u4ceo7qshi.execute-api.us-east-1.amazonaws.com"},{"name":":method","value":"OPTIONS"},{"name":":path","value":"/prod/signup"},` +
			`{"name":":scheme","value":"https"},{"name":"accept","value":"*/*"},{"name":"accept-encoding","value":"gzip, deflate, br, zstd"},` +
			`{"name":"accept-language","value":"en-US,en;q=0.9"},{"name":"access-control-request-headers","value":"content-type"},` +
			`{"name":"access-control-request-method","value":"POST"},{"name":"origin","value":"http://localhost:5173"},{"name":"priority","value":"u=1, i"},` +
			`{"name":"referer","value":"http://localhost:5173/"},{"name":"sec-fetch-dest","value":"empty"},{"name":"sec-fetch-mode","value":"cors"},` +
			`{"name":"sec-fetch-site","value":"cross-site"},{"name":"user-agent","value":"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, ` +
			`like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0"}],"queryString":[],"cookies":[],"headersSize":-1,"bodySize":0},"response":{"status":204,` +
			`"statusText":"No Content","httpVersion":"http/2.0","headers":[{"name":"access-control-allow-headers","value":"Content-Type,X-Amz-Date,Authorization,` +
			`X-Api-Key,X-Requested-With,sec-ch-ua,sec-ch-ua-mobile,sec-ch-ua-platform"},{"name":"access-control-allow-methods","value":"OPTIONS,GET,PUT,POST,` +
			`DELETE,PATCH,HEAD"},{"name":"access-control-allow-origin","value":"*"},{"name":"date","value":"Sun, 30 Jun 2024 04:14:55 GMT"},{"name":"via",` +
			`"value":"1.1 4a2d0108313826df520a9cce037691c4.cloudfront.net (CloudFront)"},{"name":"x-amz-apigw-id","value":"aKdF-FUjIAMEHFw="},` +
			`{"name":"x-amz-cf-id","value":"NADrjL_NiFBtenqG5bGpZfm5E7FFhiBRLBayfFcV9bgiUFkdIjiyhw=="},{"name":"x-amz-cf-pop","value":"LAX3-C4"},` +
			`{"name":"x-amzn-requestid","value":"70270ce2-4fb5-49ba-bb82-dc1f5879d188"},{"name":"x-cache","value":"Miss from cloudfront"}],"cookies":[],` +
			`"content":{"size":0,"mimeType":"x-unknown"},"redirectURL":"","headersSize":-1,"bodySize":-1,"_transferSize":0,"_error":null},` +
			`"serverIPAddress":"13.225.142.59","startedDateTime":"2024-06-30T04:14:55.738Z","time":302.23800000109156,"timings":{"blocked":44.876,` +
			`"dns":0.04100000000000392,"ssl":23.68,"connect":39.187000000000005,"send":0.48099999999999454,"wait":217.07000000017604,"receive":0.5830000009154901,` +
			`"_blocked_queueing":-1}}`,
		Want: model.Observation{Tier: model.TierClient, Format: "har", Method: "OPTIONS", Route: "/prod/signup", Status: 204,
			Outcome: model.OutcomeOK, Time: mustTime("2024-06-30T04:14:55.738Z"), Duration: 302_238_000},
	}},
}

// isHAREntry recognises one HAR entry (streamed out of a HAR document).
func isHAREntry(r *record) bool {
	return r.has("request") && r.has("response") && r.hasAny("startedDateTime", "timings")
}

func extractHAREntry(p *Parser, r *record, o *model.Observation) bool {
	o.Time, _ = model.ParseTime(r.str("startedDateTime"))
	o.Duration, _ = model.ParseDuration(r.str("time"), model.Milliseconds)
	req := r.get("request")
	o.Method = httpMethod(present(req.Get("method")))
	o.Route = routePath(present(req.Get("url")))
	hs := req.Get("headers")
	o.RequestID = requestHeader(hs, grammar.RequestID)
	if o.RequestID == "" {
		o.RequestID = traceDelivery(header(hs, "traceparent"))
	}
	o.Key = model.NormalizeKey(requestHeader(hs, grammar.Key))
	if body := req.Get("postData.text"); body.Exists() && body.Str != "" {
		o.Fingerprint = model.Fingerprint([]byte(body.Str))
	}
	res := r.get("response")
	o.Status, _ = intValue(present(res.Get("status")))
	rh := res.Get("headers")
	if o.RequestID == "" {
		o.RequestID = requestHeader(rh, grammar.RequestID)
	}
	o.Replayed = strings.EqualFold(header(rh, "Idempotent-Replayed"), "true")
	o.RetryAfter = header(rh, "Retry-After") != ""
	// Chrome writes _error on the response or the entry; Playwright
	// _failureText on the response, with status -1; mitmproxy its own
	// words in _error.
	errText := present(res.Get("_error"))
	for _, alt := range []string{present(res.Get("_failureText")), r.str("_error"), r.str("_failureText")} {
		if errText == "" {
			errText = alt
		}
	}
	o.Detail = errText
	o.Outcome = harOutcome(o.Status, errText)
	if o.Outcome.Lost() || o.Status < 0 {
		o.Status = 0
	}
	// Only the answer to a write names what it created: a GET's body id is
	// the id of what was read.
	if model.IsWrite(o.Method) && !o.Outcome.Lost() {
		o.ResultID = resultOf(res.Get("content"))
	}
	return o.Method != ""
}

// resultOf finds a result id in a HAR response's content, decoding a
// base64 body first.
func resultOf(content gjson.Result) string {
	text := content.Get("text").Str
	if text == "" {
		return ""
	}
	if strings.EqualFold(content.Get("encoding").Str, "base64") {
		b, err := base64.StdEncoding.DecodeString(text)
		if err != nil {
			return ""
		}
		text = string(b)
	}
	if !gjson.Valid(text) {
		return ""
	}
	body := gjson.Parse(text)
	for _, k := range append([]string{"id"}, resultAliases...) {
		if s := present(body.Get(k)); s != "" {
			return strings.Clone(s)
		}
	}
	return ""
}

// harOutcome classifies a HAR entry: Chrome writes status 0 and an _error
// (net::ERR_…), Firefox only status 0; an _error may follow a real status
// when the body was aborted.
func harOutcome(status int, errText string) model.Outcome {
	e := strings.TrimPrefix(errText, "net::")
	if !strings.HasPrefix(e, "ERR_") && e != "" {
		return proxyErrorOutcome(e)
	}
	switch {
	case strings.Contains(e, "TIMED_OUT"):
		return model.OutcomeTimeout
	case strings.Contains(e, "CONNECTION_RESET"), strings.Contains(e, "EMPTY_RESPONSE"),
		strings.Contains(e, "CONNECTION_CLOSED"), strings.Contains(e, "CONNECTION_ABORTED"):
		return model.OutcomeReset
	case strings.Contains(e, "CONNECTION_REFUSED"), strings.Contains(e, "NAME_NOT_RESOLVED"),
		strings.Contains(e, "INTERNET_DISCONNECTED"), strings.Contains(e, "ADDRESS_UNREACHABLE"):
		return model.OutcomeNotDelivered
	case strings.Contains(e, "ABORTED"):
		return model.OutcomeAborted
	case e != "":
		return model.OutcomeError
	case status <= 0:
		return model.OutcomeAborted
	}
	return model.OutcomeOK
}

// expandHAR handles a whole HAR document written on one line.
func expandHAR(p *Parser, r *record, src model.Source) {
	p.observeArray(r.get("log").Get("entries"), src)
}

// proxyErrorOutcome reads the error texts that are not Chrome's net::
// codes: mitmproxy's ("Connect call failed ('127.0.0.1', 8080)", "Server
// disconnected.") and Firefox's or Playwright's plain words.
func proxyErrorOutcome(e string) model.Outcome {
	e = strings.ToLower(e)
	switch {
	case strings.Contains(e, "timed out"), strings.Contains(e, "timeout"):
		return model.OutcomeTimeout
	case strings.Contains(e, "connect call failed"), strings.Contains(e, "refused"), strings.Contains(e, "name or service not known"),
		strings.Contains(e, "no route"), strings.Contains(e, "unreachable"), strings.Contains(e, "getaddrinfo"):
		return model.OutcomeNotDelivered
	case strings.Contains(e, "reset"), strings.Contains(e, "disconnect"), strings.Contains(e, "closed"), strings.Contains(e, "eof"):
		return model.OutcomeReset
	case strings.Contains(e, "abort"), strings.Contains(e, "cancel"):
		return model.OutcomeAborted
	}
	return model.OutcomeError
}
