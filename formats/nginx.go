package formats

import (
	"strings"

	"github.com/idem-cli/idem/trace"
)

// nginx's JSON access logs: a log_format with escape=json whose keys are
// nginx's own variable names.
var nginxFormat = &Format{
	Name: "nginx", Kind: KindJSON, Tier: trace.TierProxy,
	Doc: "nginx JSON access logs keyed by nginx variable names (log_format escape=json)",
	match: func(r *record) bool {
		return r.count("request_uri", "request_method", "http_idempotency_key", "http_x_request_id", "upstream_status",
			"request_time", "msec", "time_iso8601", "time_local", "remote_addr", "body_bytes_sent", "upstream_response_time",
			"upstream_addr", "http_user_agent", "request_length") >= 2
	},
	extract: extractNginx,
}

// nginx's variable names (and aliases seen in real templates).
var (
	pNginxRID        = newPaths("http_x_request_id", "x_request_id", "request_id", "req_id")
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
)

func extractNginx(p *Parser, r *record, o *trace.Observation) bool {
	o.RequestID = r.strs(pNginxRID)
	o.Key = trace.NormalizeKey(r.strs(pNginxKey))
	o.Method = strings.ToUpper(r.strs(pNginxMethod))
	o.Route = routePath(r.strs(pNginxURI))
	if o.Method == "" || o.Route == "" {
		m, path := splitRequestLine(r.strs(pNginxRequest))
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
	o.Duration, _ = trace.ParseDuration(r.strs(pNginxRT), trace.Seconds)
	// $msec and the $time_* variables are taken when the log is written,
	// at the end of the request: the start is msec - request_time.
	if t, ok := trace.ParseTime(r.strs(pNginxMsec)); ok {
		o.Time = t.Add(-o.Duration)
	} else if t, ok := trace.ParseTime(r.strs(pNginxTime)); ok {
		o.Time = t.Add(-o.Duration)
	}
	o.Client = r.strs(pNginxClient)
	o.Outcome = proxyOutcome(o.Status)
	up := r.strs(pNginxUpstream)
	o.UpstreamStatus, _ = intValue(up)
	if strings.ContainsAny(up, ",:") {
		o.Detail = "upstream_status " + up
	} else if o.Status == 499 {
		o.Detail = "499 client closed request"
	}
	if o.Status == 499 {
		o.Status = 0 // no response reached the client
	}
	o.Replayed = strings.EqualFold(r.strs(pNginxReplayed), "true")
	o.RetryAfter = r.strs(pNginxRetryAfter) != ""
	o.ResultID = r.strs(pNginxResult)
	return o.Method != "" || o.RequestID != "" || o.Key != ""
}
