package formats

import (
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/idem-cli/idem/trace"

	"github.com/tidwall/gjson"
)

// A format maps one family of log lines onto the model. match looks only at
// the key set so that its answer can be cached per key set; extract fills an
// Observation and says whether the line is about a request at all.
type format struct {
	name    string
	tier    trace.Tier
	match   func(r *record) bool
	extract func(p *Parser, r *record, o *trace.Observation) bool
	// expand, when set, turns one line into several records (an OTLP batch,
	// a HAR document on one line); each is then recognised on its own.
	expand func(p *Parser, r *record, src trace.Source)
}

// formats in the order they are tried: specific shapes before generic ones.
var formats []*format

func init() {
	// Envelopes (envelope.go) come first: an export's wrapper is
	// recognised before the line inside it.
	formats = append([]*format(nil), envelopeFormats...)
	formats = append(formats, []*format{
		{name: "otlp", tier: trace.TierServer, match: func(r *record) bool { return r.has("resourceLogs") }, expand: expandOTLP},
		{name: "har", tier: trace.TierClient, match: func(r *record) bool { return r.has("log") && len(r.keys) <= 2 }, expand: expandHAR},
		{name: "har", tier: trace.TierClient, match: isHAREntry, extract: extractHAREntry},
		{name: "otel", tier: trace.TierServer, match: func(r *record) bool {
			return r.hasAny("timeUnixNano", "observedTimeUnixNano") && r.has("attributes")
		}, extract: extractOTelRecord},
		{name: "envoy", tier: trace.TierProxy, match: func(r *record) bool {
			return r.has("response_flags") || r.has("response_code") && r.hasAny("upstream_host", "start_time", "upstream_cluster")
		}, extract: extractEnvoy},
		{name: "traefik", tier: trace.TierProxy, match: func(r *record) bool {
			return r.hasAny("DownstreamStatus", "OriginStatus") || r.has("RequestMethod") && r.has("StartUTC")
		}, extract: extractTraefik},
		{name: "caddy", tier: trace.TierProxy, match: func(r *record) bool {
			return r.has("request") && (r.has("resp_headers") || r.has("logger") && r.has("duration") && r.has("status"))
		}, extract: extractCaddy},
		{name: "nginx", tier: trace.TierProxy, match: func(r *record) bool {
			return r.count("request_uri", "request_method", "http_idempotency_key", "http_x_request_id", "upstream_status",
				"request_time", "msec", "time_iso8601", "time_local", "remote_addr", "body_bytes_sent", "upstream_response_time",
				"upstream_addr", "http_user_agent", "request_length") >= 2
		}, extract: extractNginx},
		{name: "pino-http", tier: trace.TierServer, match: func(r *record) bool {
			return r.has("req") && (r.has("res") || r.has("responseTime"))
		}, extract: extractPinoHTTP},
		{name: "temporal", tier: trace.TierWorker, match: func(r *record) bool {
			return r.hasAny("WorkflowID", "ActivityID", "ActivityType", "workflowId", "activityId", "activityType")
		}, extract: extractApp},
		{name: "canonical", tier: trace.TierServer, match: func(r *record) bool {
			return r.has("tier") && r.hasAny("time", "ts", "timestamp")
		}, extract: extractApp},
		{name: "pino", tier: trace.TierServer, match: func(r *record) bool { return r.has("pid") && r.has("hostname") && r.has("time") && r.has("msg") }, extract: extractApp},
		{name: "zap", tier: trace.TierServer, match: func(r *record) bool { return r.has("ts") && r.has("msg") && r.has("level") }, extract: extractApp},
		{name: "zerolog", tier: trace.TierServer, match: func(r *record) bool { return r.has("message") && r.has("level") && r.has("time") }, extract: extractApp},
		{name: "structlog", tier: trace.TierServer, match: func(r *record) bool { return r.has("event") && r.has("timestamp") }, extract: extractApp},
		{name: "slog", tier: trace.TierServer, match: func(r *record) bool { return r.has("time") && r.has("level") && r.has("msg") }, extract: extractApp},
		{name: "json", tier: trace.TierServer, match: func(r *record) bool { return true }, extract: extractApp},
	}...)
}

// formatByName finds a preset for a --format override.
func formatByName(name string) *format {
	for _, f := range formats {
		if f.name == name && f.extract != nil {
			return f
		}
	}
	return nil
}

// FormatNames lists the presets a user can name.
func FormatNames() []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range formats {
		if !seen[f.name] && f.extract != nil {
			seen[f.name] = true
			out = append(out, f.name)
		}
	}
	return out
}

// Field aliases shared by application loggers and idem's canonical schema.
var (
	timeAliases     = []string{"time", "ts", "timestamp", "@timestamp", "t", "datetime", "asctime", "date"}
	ridAliases      = []string{"request_id", "requestId", "requestID", "req_id", "reqId", "x_request_id", "rid", "http.request_id", "req.id", "request.id", "ctx.request_id"}
	keyAliases      = []string{"idempotency_key", "idempotencyKey", "IdempotencyKey", "idem_key", "Idempotency-Key", "idempotency-key", "http.idempotency_key", "req.headers.idempotency-key"}
	keyHashAliases  = []string{"key_hash", "idempotency_key_hash", "keyHash", "idempotencyKeyHash", "key_id"}
	methodAliases   = []string{"method", "http_method", "httpMethod", "request_method", "http.method", "http.request.method", "req.method", "request.method"}
	routeAliases    = []string{"route", "path", "uri", "url", "request_uri", "http.route", "url.path", "http.target", "req.url", "request.path", "request.uri"}
	statusAliases   = []string{"status", "status_code", "statusCode", "http_status", "http.status_code", "http.response.status_code", "res.statusCode", "response.status"}
	decisionAliases = []string{"decision", "dedup", "dedup_decision", "idempotency_decision", "idempotency.decision"}
	stateAliases    = []string{"state", "key_state", "idempotency_state", "idempotency.state"}
	fpAliases       = []string{"fingerprint", "payload_fingerprint", "payload_hash", "body_hash", "request_hash", "payloadHash", "fp"}
	msgAliases      = []string{"msg", "message", "event", "@message"}
	attemptAliases  = []string{"attempt", "Attempt", "retry_attempt", "retry_count", "resend_count", "http.request.resend_count"}
	clientAliases   = []string{"client", "client_ip", "remote_addr", "remote_ip", "ip", "user_id"}
	bodyAliases     = []string{"body", "request_body", "req.body", "payload", "requestBody"}
	outcomeAliases  = []string{"outcome"}
)

// Declared path sets for the extractors' hot lookups (see pathSet).
var (
	pTimeAliases     = newPaths(timeAliases...)
	pRidAliases      = newPaths(ridAliases...)
	pKeyAliases      = newPaths(keyAliases...)
	pKeyHashAliases  = newPaths(keyHashAliases...)
	pMethodAliases   = newPaths(methodAliases...)
	pRouteAliases    = newPaths(routeAliases...)
	pStatusAliases   = newPaths(statusAliases...)
	pDecisionAliases = newPaths(decisionAliases...)
	pStateAliases    = newPaths(stateAliases...)
	pFpAliases       = newPaths(fpAliases...)
	pMsgAliases      = newPaths(msgAliases...)
	pAttemptAliases  = newPaths(attemptAliases...)
	pClientAliases   = newPaths(clientAliases...)
	pOutcomeAliases  = newPaths(outcomeAliases...)
	pResultAliases   = newPaths(resultAliases...)
)

// nginx's variable names (and aliases seen in real templates), and
// durations whose key names their unit.
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
	pDurMS           = newPaths("duration_ms", "latency_ms", "elapsed_ms", "responseTime", "durationMs", "took_ms", "response_time_ms")
)

// resultAliases name fields that hold the id of what an effect created.
var resultAliases = []string{"result_id", "resultId", "receipt", "receipt_id", "receiptId", "order_id", "orderId",
	"charge_id", "chargeId", "payment_id", "paymentId", "ticket_id", "ticketId", "resource_id", "Result"}

// effectWords in a message, together with a result id, mark a business effect.
var effectWords = regexp.MustCompile(`(?i)\b(created|committed|published|charged|sent|inserted|stored|captured|booked|reserved|released|enqueued|emailed|effect)\b`)

// extractApp maps application loggers (slog, zap, zerolog, logrus, pino,
// structlog), Temporal worker lines and idem's canonical schema.
func extractApp(p *Parser, r *record, o *trace.Observation) bool {
	o.Time, _ = trace.ParseTime(r.strs(pTimeAliases))
	o.RequestID = r.strs(pRidAliases)
	o.Key = trace.NormalizeKey(r.strs(pKeyAliases))
	o.KeyHash = r.strs(pKeyHashAliases)
	o.Method = strings.ToUpper(r.strs(pMethodAliases))
	o.Route = routePath(r.strs(pRouteAliases))
	if s, ok := intValue(r.strs(pStatusAliases)); ok && s >= 100 && s < 1000 {
		o.Status = s
	}
	o.Decision = strings.ToLower(r.strs(pDecisionAliases))
	o.State = strings.ToLower(r.strs(pStateAliases))
	o.Fingerprint = r.strs(pFpAliases)
	o.ResultID = r.strs(pResultAliases)
	o.Message = r.strs(pMsgAliases)
	if a, ok := intValue(r.strs(pAttemptAliases)); ok {
		o.Attempt = a
	}
	o.Client = r.strs(pClientAliases)
	o.WorkflowID = r.str("WorkflowID", "workflowId", "workflow_id")
	o.RunID = r.str("RunID", "workflowRunId", "run_id")
	o.ActivityID = r.str("ActivityID", "activityId", "activity_id")
	o.ActivityType = r.str("ActivityType", "activityType", "activity_type")
	if t := r.str("tier"); t != "" {
		if tier, err := trace.ParseTier(strings.ToLower(t)); err == nil {
			o.Tier = tier
		}
	}
	o.Duration = appDuration(r)
	if oc := r.strs(pOutcomeAliases); oc != "" {
		o.Outcome = trace.ParseOutcome(strings.ToLower(oc))
	}
	if o.Fingerprint == "" {
		if b := r.path(firstPresent(r, bodyAliases)); b.Exists() {
			o.Fingerprint = trace.FingerprintValue(b)
		}
	}
	switch v := r.get("effect"); {
	case v.Type == gjson.True:
		o.Effect = true
	case o.Message == "effect" || strings.EqualFold(r.str("event"), "effect"):
		o.Effect = true
	case o.ResultID != "" && o.Decision != "replay" && o.Decision != "replayed" && effectWords.MatchString(o.Message):
		o.Effect = true
	}
	if o.Status > 0 && o.Outcome == trace.OutcomeUnknown {
		o.Outcome = trace.OutcomeOK
	}
	if strings.Contains(o.Message, "complete after timeout") {
		o.Detail = "completed after timeout"
	}
	if r.str("replayed", "idempotent_replayed") == "true" || o.Decision == "replay" || o.Decision == "replayed" {
		o.Replayed = true
	}
	return o.RequestID != "" || o.Key != "" || o.KeyHash != "" || o.Effect || o.WorkflowID != "" ||
		o.ActivityID != "" || (o.Method != "" && o.Status > 0)
}

func firstPresent(r *record, paths []string) string {
	for _, p := range paths {
		if r.path(p).Exists() {
			return p
		}
	}
	return "-"
}

// appDuration reads the durations application loggers write: explicit
// units in the key name, strings with units, slog's integer nanoseconds,
// zap's float seconds.
func appDuration(r *record) time.Duration {
	if s := r.strs(pDurMS); s != "" {
		d, _ := trace.ParseDuration(s, trace.Milliseconds)
		return d
	}
	v := r.get("duration")
	if !v.Exists() {
		v = r.get("latency")
	}
	switch v.Type {
	case gjson.String:
		d, _ := trace.ParseDuration(v.Str, trace.Seconds)
		return d
	case gjson.Number:
		if strings.ContainsAny(v.Raw, ".eE") {
			d, _ := trace.ParseDuration(v.Raw, trace.Seconds)
			return d
		}
		d, _ := trace.ParseDuration(v.Raw, trace.Nanoseconds)
		return d
	}
	return 0
}

// routePath keeps the path of a URI or URL and drops its query, which may
// hold tokens and does not identify the route.
func routePath(s string) string {
	if s == "" {
		return ""
	}
	if i := strings.Index(s, "://"); i >= 0 {
		if u, err := url.Parse(s); err == nil {
			return u.EscapedPath()
		}
		s = s[i+3:]
		if j := strings.IndexByte(s, '/'); j >= 0 {
			s = s[j:]
		} else {
			s = "/"
		}
	}
	// Cut at the query, then at a fragment before it (two byte searches
	// cost less than a set search on every line).
	if i := strings.IndexByte(s, '?'); i >= 0 {
		s = s[:i]
	}
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	return s
}

// splitRequestLine reads "POST /v1/x?y HTTP/1.1" into method and path.
func splitRequestLine(s string) (method, path string) {
	parts := strings.Fields(s)
	if len(parts) >= 2 {
		return strings.ToUpper(parts[0]), routePath(parts[1])
	}
	return "", ""
}

// proxyOutcome classifies the status a proxy logged.
func proxyOutcome(status int) trace.Outcome {
	switch status {
	case 0, 499, 460:
		return trace.OutcomeClientClosed
	case 504:
		return trace.OutcomeUpstreamTimeout
	case 502:
		return trace.OutcomeUpstreamReset
	}
	return trace.OutcomeOK
}

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

func extractEnvoy(p *Parser, r *record, o *trace.Observation) bool {
	o.Time, _ = trace.ParseTime(r.str("start_time", "START_TIME", "timestamp"))
	o.Duration, _ = trace.ParseDuration(r.str("duration", "DURATION"), trace.Milliseconds)
	o.Method = strings.ToUpper(r.str("method", "request_method"))
	o.Route = routePath(r.str("path", "x_envoy_original_path"))
	o.RequestID = r.str("request_id", "x_request_id")
	o.Key = trace.NormalizeKey(r.str("idempotency_key", "x_idempotency_key", "idempotency-key", "request_idempotency_key"))
	o.Client = r.str("x_forwarded_for", "downstream_remote_address")
	o.Status, _ = intValue(r.str("response_code"))
	flags := r.str("response_flags")
	o.Detail = strings.TrimSpace(flags + " " + r.str("response_code_details"))
	o.Outcome = envoyOutcome(o.Status, flags)
	if o.Outcome == trace.OutcomeClientClosed && o.Status != 0 && o.Status < 300 {
		// "200 DC": the response started, then the client went away.
		o.Outcome = trace.OutcomeClientClosed
	}
	return o.Method != "" || o.RequestID != ""
}

// envoyOutcome reads Envoy's response flags (several may be joined by ",").
func envoyOutcome(status int, flags string) trace.Outcome {
	for _, f := range strings.Split(flags, ",") {
		switch strings.TrimSpace(f) {
		case "DC", "DR", "DownstreamConnectionTermination", "DownstreamRemoteReset":
			return trace.OutcomeClientClosed
		case "UT", "UMSDR", "SI", "UpstreamRequestTimeout", "UpstreamMaxStreamDurationReached", "StreamIdleTimeout":
			return trace.OutcomeUpstreamTimeout
		case "UC", "UR", "LR", "UpstreamConnectionTermination", "UpstreamRemoteReset", "LocalReset":
			return trace.OutcomeUpstreamReset
		case "UF", "UH", "UO", "NR", "NC", "UpstreamConnectionFailure", "NoHealthyUpstream", "UpstreamOverflow", "NoRouteFound", "NoClusterFound":
			return trace.OutcomeNotDelivered
		}
	}
	if status == 0 {
		return trace.OutcomeClientClosed
	}
	return proxyOutcome(status)
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

// isHAREntry recognises one HAR entry (streamed out of a HAR document).
func isHAREntry(r *record) bool {
	return r.has("request") && r.has("response") && r.hasAny("startedDateTime", "timings")
}

func extractHAREntry(p *Parser, r *record, o *trace.Observation) bool {
	o.Time, _ = trace.ParseTime(r.str("startedDateTime"))
	o.Duration, _ = trace.ParseDuration(r.str("time"), trace.Milliseconds)
	req := r.get("request")
	o.Method = strings.ToUpper(present(req.Get("method")))
	o.Route = routePath(present(req.Get("url")))
	hs := req.Get("headers")
	o.RequestID = header(hs, "X-Request-Id")
	o.Key = trace.NormalizeKey(header(hs, "Idempotency-Key"))
	if body := req.Get("postData.text"); body.Exists() && body.Str != "" {
		o.Fingerprint = trace.Fingerprint([]byte(body.Str))
	}
	res := r.get("response")
	o.Status, _ = intValue(present(res.Get("status")))
	rh := res.Get("headers")
	if o.RequestID == "" {
		o.RequestID = header(rh, "X-Request-Id")
	}
	o.Replayed = strings.EqualFold(header(rh, "Idempotent-Replayed"), "true")
	o.RetryAfter = header(rh, "Retry-After") != ""
	errText := present(res.Get("_error"))
	if errText == "" {
		errText = r.str("_error")
	}
	o.Detail = errText
	o.Outcome = harOutcome(o.Status, errText)
	if o.Outcome.Lost() {
		o.Status = 0
	}
	if c := res.Get("content.text"); c.Str != "" && gjson.Valid(c.Str) {
		body := gjson.Parse(c.Str)
		for _, k := range append([]string{"id"}, resultAliases...) {
			if s := present(body.Get(k)); s != "" {
				o.ResultID = s
				break
			}
		}
	}
	return o.Method != ""
}

// harOutcome classifies a HAR entry: Chrome writes status 0 and an _error
// (net::ERR_…), Firefox only status 0; an _error may follow a real status
// when the body was aborted.
func harOutcome(status int, errText string) trace.Outcome {
	e := strings.TrimPrefix(errText, "net::")
	switch {
	case strings.Contains(e, "TIMED_OUT"):
		return trace.OutcomeTimeout
	case strings.Contains(e, "CONNECTION_RESET"), strings.Contains(e, "EMPTY_RESPONSE"),
		strings.Contains(e, "CONNECTION_CLOSED"), strings.Contains(e, "CONNECTION_ABORTED"):
		return trace.OutcomeReset
	case strings.Contains(e, "CONNECTION_REFUSED"), strings.Contains(e, "NAME_NOT_RESOLVED"),
		strings.Contains(e, "INTERNET_DISCONNECTED"), strings.Contains(e, "ADDRESS_UNREACHABLE"):
		return trace.OutcomeNotDelivered
	case strings.Contains(e, "ABORTED"):
		return trace.OutcomeAborted
	case e != "":
		return trace.OutcomeError
	case status <= 0:
		return trace.OutcomeAborted
	}
	return trace.OutcomeOK
}

// expandHAR handles a whole HAR document written on one line.
func expandHAR(p *Parser, r *record, src trace.Source) {
	p.observeArray(r.get("log").Get("entries"), src)
}

// expandOTLP flattens an OTLP/JSON batch as the Collector's file exporter
// writes it: resourceLogs[].scopeLogs[].logRecords[].
func expandOTLP(p *Parser, r *record, src trace.Source) {
	r.get("resourceLogs").ForEach(func(_, rl gjson.Result) bool {
		service := otelAttr(rl.Get("resource.attributes"), "service.name")
		rl.Get("scopeLogs").ForEach(func(_, sl gjson.Result) bool {
			sl.Get("logRecords").ForEach(func(_, lr gjson.Result) bool {
				var o trace.Observation
				o.Source = src
				o.Format = "otel"
				o.Tier = trace.TierServer
				if extractOTel(lr, &o) {
					o.Client = service
					p.emit(&o)
				} else {
					p.out.Ignored++
				}
				return true
			})
			return true
		})
		return true
	})
}

func extractOTelRecord(p *Parser, r *record, o *trace.Observation) bool {
	// Re-read the record as one value: the paths below are nested.
	return extractOTel(gjson.Parse(r.raw()), o)
}

// otelAttr finds an attribute in an OTLP key/value list.
func otelAttr(attrs gjson.Result, key string) string {
	var out string
	attrs.ForEach(func(_, kv gjson.Result) bool {
		if kv.Get("key").Str == key {
			v := kv.Get("value")
			switch {
			case v.Get("stringValue").Exists():
				out = v.Get("stringValue").Str
			case v.Get("intValue").Exists():
				out = present(v.Get("intValue"))
			case v.Get("arrayValue.values.0.stringValue").Exists():
				out = v.Get("arrayValue.values.0.stringValue").Str
			case v.Get("boolValue").Exists():
				out = present(v.Get("boolValue"))
			case v.Get("doubleValue").Exists():
				out = present(v.Get("doubleValue"))
			}
			return false
		}
		return true
	})
	return strings.TrimSpace(out)
}

func extractOTel(lr gjson.Result, o *trace.Observation) bool {
	o.Time, _ = trace.ParseTime(present(lr.Get("timeUnixNano")))
	if o.Time.IsZero() {
		o.Time, _ = trace.ParseTime(present(lr.Get("observedTimeUnixNano")))
	}
	o.Message = present(lr.Get("body.stringValue"))
	a := lr.Get("attributes")
	first := func(keys ...string) string {
		for _, k := range keys {
			if s := otelAttr(a, k); s != "" {
				return s
			}
		}
		return ""
	}
	o.Method = strings.ToUpper(first("http.request.method", "http.method"))
	o.Route = routePath(first("url.path", "http.route", "http.target", "url.full", "http.url"))
	o.Status, _ = intValue(first("http.response.status_code", "http.status_code"))
	o.Key = trace.NormalizeKey(first("http.request.header.idempotency-key", "idempotency_key", "idempotency.key"))
	o.RequestID = first("http.request.header.x-request-id", "request_id", "http.request_id")
	o.ResultID = first("result_id", "result.id")
	o.Decision = strings.ToLower(first("idempotency.decision", "decision"))
	o.Fingerprint = first("idempotency.fingerprint", "fingerprint")
	if n, ok := intValue(first("http.request.resend_count")); ok {
		o.Attempt = n
	}
	if e := first("error.type"); e != "" {
		o.Detail = e
		if o.Status == 0 {
			o.Outcome = trace.OutcomeError
			if strings.Contains(strings.ToLower(e), "timeout") {
				o.Outcome = trace.OutcomeTimeout
			}
		}
	}
	if o.Status > 0 && o.Outcome == trace.OutcomeUnknown {
		o.Outcome = trace.OutcomeOK
	}
	if o.ResultID != "" && effectWords.MatchString(o.Message) {
		o.Effect = true
	}
	return o.Method != "" || o.RequestID != "" || o.Key != ""
}
