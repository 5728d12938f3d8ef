package formats

import (
	"regexp"
	"strings"
	"time"

	"github.com/idem-cli/idem/model"
	"github.com/tidwall/gjson"
)

// What application loggers have in common: the aliases they use for
// each field of the model, how they write durations, and what a business
// effect looks like in their messages. Each logger's own file says how
// its lines are recognised.

// Field aliases shared by application loggers and idem's canonical schema.
var (
	timeAliases     = []string{"time", "ts", "timestamp", "@timestamp", "t", "datetime", "asctime", "date"}
	ridAliases      = []string{"request_id", "requestId", "requestID", "req_id", "reqId", "x_request_id", "rid", "http.request_id", "req.headers.x-request-id", "req.id", "request.id", "ctx.request_id"}
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
	clientAliases   = []string{"client", "client_ip", "remote_addr", "remote_ip", "ip", "user_id", "req.remoteAddress"}
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

// resultAliases name fields that hold the id of what an effect created.
var resultAliases = []string{"result_id", "resultId", "receipt", "receipt_id", "receiptId", "order_id", "orderId",
	"charge_id", "chargeId", "payment_id", "paymentId", "ticket_id", "ticketId", "reservation_id", "reservationId", "booking_id",
	"bookingId", "resource_id", "Result"}

// effectWords in a message, together with a result id, mark a business effect.
var effectWords = regexp.MustCompile(`(?i)\b(created|committed|published|charged|sent|inserted|stored|captured|booked|reserved|released|enqueued|emailed|effect|placed|opened|issued|refunded|dispatched|shipped|scheduled|submitted|transferred|paid)\b`)

// extractApp maps application loggers (slog, zap, zerolog, logrus, pino,
// structlog), Temporal worker lines and idem's canonical schema.
func extractApp(p *Parser, r *record, o *model.Observation) bool {
	o.Time, _ = model.ParseTime(r.strs(pTimeAliases))
	o.RequestID = r.strs(pRidAliases)
	o.Key = model.NormalizeKey(r.strs(pKeyAliases))
	o.KeyHash = r.strs(pKeyHashAliases)
	o.Method = httpMethod(r.strs(pMethodAliases))
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
		if tier, err := model.ParseTier(strings.ToLower(t)); err == nil {
			o.Tier = tier
		}
	}
	o.Duration = appDuration(r, o.Format == "zerolog")
	o.RequestID = processScoped(r, o.RequestID, o.Source)
	if oc := r.strs(pOutcomeAliases); oc != "" {
		o.Outcome = model.ParseOutcome(strings.ToLower(oc))
	}
	if o.Fingerprint == "" {
		if b := r.path(firstPresent(r, bodyAliases)); b.Exists() {
			o.Fingerprint = model.FingerprintValue(b)
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
	if o.Status > 0 && o.Outcome == model.OutcomeUnknown {
		o.Outcome = model.OutcomeOK
	}
	// A line with a status and a duration is an access line, written when
	// the response was: the request began a duration earlier. Fiber's
	// logger is the exception: its time is taken when the request starts,
	// and its latency is Go's %13v, padded with spaces.
	if o.Status > 0 && o.Duration > 0 && !o.Time.IsZero() && !strings.HasPrefix(r.get("latency").Str, " ") {
		o.Time = o.Time.Add(-o.Duration)
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

// pDurMS names durations whose key says they are milliseconds.
var pDurMS = newPaths("duration_ms", "latency_ms", "elapsed_ms", "responseTime", "durationMs", "took_ms", "response_time_ms")

// appDuration reads the durations application loggers write: explicit
// units in the key name, strings with units, slog's integer nanoseconds,
// zap's float seconds, zerolog's milliseconds (millis).
func appDuration(r *record, millis bool) time.Duration {
	if s := r.strs(pDurMS); s != "" {
		d, _ := model.ParseDuration(s, model.Milliseconds)
		return d
	}
	v := r.get("duration")
	if !v.Exists() {
		v = r.get("latency")
	}
	switch v.Type {
	case gjson.String:
		d, _ := model.ParseDuration(v.Str, model.Seconds)
		return d
	case gjson.Number:
		if millis {
			// zerolog's Dur fields and hlog.AccessHandler's duration are
			// milliseconds unless zerolog.DurationFieldUnit says otherwise.
			d, _ := model.ParseDuration(v.Raw, model.Milliseconds)
			return d
		}
		if strings.ContainsAny(v.Raw, ".eE") {
			d, _ := model.ParseDuration(v.Raw, model.Seconds)
			return d
		}
		d, _ := model.ParseDuration(v.Raw, model.Nanoseconds)
		return d
	}
	return 0
}

// processScoped makes a small integer request id, such as pino-http's
// default per-process counter (1, 2, …), unique to the process that
// logged it (its hostname and pid, where the line has them, else its
// file): the same counter value from two pods or two restarts is not one
// request.
func processScoped(r *record, id string, src model.Source) string {
	if id == "" || len(id) > 9 {
		return id
	}
	if _, ok := smallUint(id); !ok {
		return id
	}
	host, pid := r.str("hostname"), r.str("pid")
	if host != "" || pid != "" {
		return host + "/" + pid + "#" + id
	}
	return src.File + "#" + id
}
