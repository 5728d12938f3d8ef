package formats

import (
	"slices"
	"strings"

	"github.com/idem-cli/idem/model"
)

// nginx's JSON access logs: a log_format with escape=json whose keys are
// nginx's own variable names.
var nginxFormat = &format{
	Name: "nginx", Kind: kindJSON, Tier: model.TierProxy,
	Doc: "nginx JSON access logs keyed by nginx variable names (log_format escape=json)",
	// The recipe's config is in backquotes: a capture runs exactly that
	// (internal/kit/harness's TestSetupRecipes).
	Setup: "`log_format idem escape=json '{\"time_iso8601\":\"$time_iso8601\",\"msec\":\"$msec\",\"request_time\":\"$request_time\",\"remote_addr\":\"$remote_addr\",\"request_id\":\"$request_id\",\"http_x_request_id\":\"$http_x_request_id\",\"http_idempotency_key\":\"$http_idempotency_key\",\"request_method\":\"$request_method\",\"request_uri\":\"$request_uri\",\"status\":\"$status\",\"upstream_status\":\"$upstream_status\"}';` and, where it proxies, `proxy_set_header X-Request-Id $request_id;` so the server logs nginx's own id (a client's X-Request-Id is logged beside it).",
	match: func(r *record) bool {
		return r.count("request_uri", "request_method", "http_idempotency_key", "http_x_request_id", "upstream_status",
			"request_time", "msec", "time_iso8601", "time_local", "remote_addr", "body_bytes_sent", "upstream_response_time",
			"upstream_addr", "http_user_agent", "request_length") >= 2
	},
	extract: extractNginx,
	// msec is taken when the log is written, at the end of the request:
	// the start is msec - request_time. A 499 sent no response.
	Samples: []sample{{
		Origin: "Grafana Loki documentation, Query (the nginx JSON line of Grafana's play site)",
		Line: `{"msec": "1733828027.704", "connection": "81290341", "connection_requests": "1", "pid": "24", "request_id": "7a98025445386b1feef1402bb13362e5", ` +
			`"request_length": "559", "remote_addr": "52.167.144.255", "remote_user": "", "remote_port": "", "time_local": "10/Dec/2024:10:53:47 +0000", ` +
			`"time_iso8601": "2024-12-10T10:53:47+00:00", "request": "GET /a/1080936380/alternative-to-refaid-refugee-aid-app.html HTTP/1.1", "request_uri": ` +
			`"/a/1080936380/alternative-to-refaid-refugee-aid-app.html", "args": "", "status": "200", "body_bytes_sent": "11497", "bytes_sent": "11676", ` +
			`"http_referer": "", "http_user_agent": "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) ` +
			`Chrome/116.0.1938.76 Safari/537.36", "http_x_forwarded_for": "52.167.144.255", "http_host": "nl.appfelstrudel.com", "server_name": ` +
			`"ns565366.ip-54-39-133.net", "request_time": "0.105", "upstream": "172.19.0.255:3006", "upstream_connect_time": "0.000", "upstream_header_time": ` +
			`"0.100", "upstream_response_time": "0.100", "upstream_response_length": "72787", "upstream_cache_status": "MISS", "ssl_protocol": "", "ssl_cipher": ` +
			`"", "scheme": "http", "request_method": "GET", "server_protocol": "HTTP/1.1", "pipe": ".", "gzip_ratio": "6.34", "http_cf_ray": ` +
			`"8efcb173cc760648-IAD","geoip_country_code": "US"}`,
		Want: model.Observation{Tier: model.TierProxy, Format: "nginx", Method: "GET", Route: "/a/1080936380/alternative-to-refaid-refugee-aid-app.html",
			Status: 200, Outcome: model.OutcomeOK, RequestID: "7a98025445386b1feef1402bb13362e5", Client: "52.167.144.255",
			Time: mustTime("2024-12-10T10:53:47.599Z"), Duration: 105_000_000},
	}, {
		Origin: "fixtures/formats/nginx.jsonl: a 499 whose upstream answered 201, the key in its structured-field form",
		Line: `{"time_iso8601":"2026-11-30T09:14:04+00:00","msec":"1796030044.512","request_id":"14fe277217966d99b9a47cbebced2b9c",` +
			`"http_x_request_id":"c9b2decb-ebc7-4a9b-99d6-69712772ef41","http_idempotency_key":"\"0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41\"","request_method":"POST",` +
			`"request_uri":"/v1/orders","status":"499","request_time":"2.398","upstream_addr":"10.0.2.15:8080","upstream_status":"201",` +
			`"upstream_response_time":"2.390"}`,
		Want: model.Observation{Tier: model.TierProxy, Format: "nginx", Method: "POST", Route: "/v1/orders", UpstreamStatus: 201,
			Outcome: model.OutcomeClientClosed, RequestID: "c9b2decb-ebc7-4a9b-99d6-69712772ef41", AltRequestID: "14fe277217966d99b9a47cbebced2b9c",
			Key:  "0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41",
			Time: mustTime("2026-11-30T09:14:02.114Z"), Duration: 2_398_000_000},
	}},
}

// nginx's variable names (and aliases seen in real templates).
var (
	// The client's X-Request-Id first, then nginx's own id: a line with
	// both goes by the first and keeps the second as its other id, and
	// the correlator takes the one the other tiers logged.
	pNginxRID        = newPaths("http_x_request_id", "x_request_id", "request_id", "req_id")
	pNginxOwnRID     = newPaths("request_id", "req_id")
	pNginxKey        = newPaths("http_idempotency_key", "idempotency_key", "http_x_idempotency_key", "idem_key")
	pNginxMethod     = newPaths("request_method", "method")
	pNginxURI        = newPaths("request_uri", "uri", "path")
	pNginxRequest    = newPaths("request")
	pNginxStatus     = newPaths("status", "response")
	pNginxRT         = newPaths("request_time", "rt")
	pNginxMsec       = newPaths("msec")
	pNginxTime       = newPaths("time_iso8601", "time_local", "time", "@timestamp", "timestamp", "ts")
	pNginxClient     = newPaths("http_x_forwarded_for", "remote_addr", "client_ip")
	pNginxUpstream   = newPaths("upstream_status")
	pNginxReplayed   = newPaths("sent_http_idempotent_replayed", "upstream_http_idempotent_replayed")
	pNginxRetryAfter = newPaths("sent_http_retry_after", "upstream_http_retry_after")
	pNginxResult     = newPaths("upstream_http_x_result_id", "sent_http_x_result_id")
	// pNginxReply is every alias of the three above: most logs have none.
	pNginxReply = newPaths(slices.Concat(pNginxReplayed.paths, pNginxRetryAfter.paths, pNginxResult.paths)...)
)

func extractNginx(p *Parser, r *record, o *model.Observation) bool {
	o.RequestID = r.strs(pNginxRID)
	if own := r.strs(pNginxOwnRID); own != "" && own != o.RequestID {
		o.AltRequestID = own
	}
	o.Key = model.NormalizeKey(r.strs(pNginxKey))
	o.Method = httpMethod(r.strs(pNginxMethod))
	o.Route = routePath(r.strs(pNginxURI))
	if o.Method == "" || o.Route == "" {
		m, path := splitRequestLine(r.strs(pNginxRequest))
		if !methodToken(m) { // "-" or raw bytes: no request line was read
			m, path = "", ""
		}
		if o.Method == "" {
			o.Method = m
		}
		if o.Route == "" {
			o.Route = path
		}
	}
	status, ok := intValue(r.strs(pNginxStatus))
	if ok {
		o.Status = status
	}
	o.Duration, _ = model.ParseDuration(r.strs(pNginxRT), model.Seconds)
	// $msec and the $time_* variables are taken when the log is written,
	// at the end of the request: the start is msec - request_time.
	if t, ok := model.ParseTime(r.strs(pNginxMsec)); ok {
		o.Time = t.Add(-o.Duration)
	} else if t, ok := model.ParseTime(r.strs(pNginxTime)); ok {
		o.Time = t.Add(-o.Duration)
	}
	o.Client = r.strs(pNginxClient)
	o.Outcome = proxyOutcome(o.Status)
	up := r.strs(pNginxUpstream)
	o.UpstreamStatus, _ = intValue(up)
	if listsStatuses(up) {
		o.Detail = "upstream_status " + up
		o.UpstreamTries = upstreamTries(up)
	} else if o.Status == 499 {
		o.Detail = "499 client closed request"
	}
	if o.Status == 499 {
		o.Status = 0 // no response reached the client
	}
	for _, h := range nginxRetryPaths {
		if v := r.strs(h.paths); v != "" {
			markRetry(o, h.header, v)
			break
		}
	}
	if r.holdsAny(pNginxReply) {
		o.Replayed = strings.EqualFold(r.strs(pNginxReplayed), "true")
		o.RetryAfter = r.strs(pNginxRetryAfter) != ""
		o.ResultID = r.strs(pNginxResult)
	}
	// A status logged without a request (408, 400) is still a request
	// the proxy saw.
	return o.Method != "" || o.RequestID != "" || o.Key != "" || ok
}

// upstreamTries counts the upstreams $upstream_status lists in one pass
// of the request: "504, 201" is two. A " : " starts another pass, after
// an internal redirect (X-Accel-Redirect, error_page), a request of its
// own: the largest pass counts. 0 for one upstream.
func upstreamTries(up string) int {
	most := 0
	for pass := range strings.SplitSeq(up, ":") {
		most = max(most, strings.Count(pass, ",")+1)
	}
	if most < 2 {
		return 0
	}
	return most
}

// listsStatuses reports whether $upstream_status lists several upstreams'
// statuses ("504, 201", "502 : 201"): strings.ContainsAny(up, ",:"),
// without its set search on the three bytes of the usual one.
func listsStatuses(up string) bool {
	for i := 0; i < len(up); i++ {
		if up[i] == ',' || up[i] == ':' {
			return true
		}
	}
	return false
}
