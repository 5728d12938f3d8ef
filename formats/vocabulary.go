package formats

import (
	"strings"

	"github.com/idem-cli/idem/model"
)

// The shared vocabulary: the names real software gives what a line says
// about a request, with their units. A field means what this table says
// its name means, wherever it sits in a record: at the top level, or
// nested under a wrapper (meta, req, res, http, context, attributes, …),
// written as nested objects or as dotted keys. The vocabularies are
// OpenTelemetry's semantic conventions, Elastic's ECS and the loggers' own
// (pino-http's and express-winston's req/res, bunyan's req_id, Serilog's
// compact JSON, logstash-logback-encoder, python-json-logger, Monolog,
// lograge). A logger's name or a value's shape says nothing here.
//
// Terms marked top are also the application formats' top-level aliases,
// read exactly and cached per key set (the fast path); every term is
// matched at any depth, case- and separator-insensitively (requestId,
// request_id and RequestId are one name), by the deep reading
// (vocabulary_walk.go) for records no specific format claims.

// meaning is what a field says about a request.
type meaning uint8

// The meanings, in the model's terms.
const (
	mNone meaning = iota
	mTime
	mRequestID
	mTraceID
	mKey
	mKeyHash
	mMethod
	mRoute
	mStatus
	mDuration
	mBody    // the request's body, fingerprinted
	mResBody // the response's body, where a created resource's id is
	mResultID
	mMessage
	mFingerprint
	mDecision
	mState
	mAttempt
	mClient
	mOutcome
	mReplayed   // the Idempotent-Replayed response header, or a flag
	mRetryAfter // the Retry-After response header
	mError      // an error the server logged (how a response was lost)
	mRetryMark  // a client library's number of its send (retrymark.go)
	mPrevKey    // another key, named as the one this send retries
	numMeanings
)

// meaningNames are the config's names of the meanings (docs/config.md's
// mappable fields, where there is one).
var meaningNames = [numMeanings]string{"", "time", "request_id", "trace_id", "key", "key_hash", "method", "route", "status",
	"duration", "body", "response_body", "result_id", "message", "fingerprint", "decision", "state", "attempt", "client",
	"outcome", "replayed", "retry_after", "detail", "retry_mark", "previous_key"}

func (m meaning) String() string { return meaningNames[m] }

// term is one name of the vocabulary.
type term struct {
	path  string // as software writes it; dots separate nested names
	means meaning
	unit  model.Unit // a duration's unit; 0: by how it is written
	top   bool       // an application format's top-level alias
	from  string     // whose vocabulary, for what idem says it understood
}

// Vocabulary names, shortened in the table.
const (
	vOTel    = "OpenTelemetry"
	vECS     = "Elastic ECS"
	vLoggers = "loggers"
	vNode    = "pino-http, express-winston, bunyan"
	vCLEF    = "Serilog compact JSON"
	vLogback = "logstash-logback-encoder"
	vIdem    = "idem's schema"
)

const (
	uMS = model.Milliseconds
	uUS = model.Microseconds
	uNS = model.Nanoseconds
	uS  = model.Seconds
)

// vocabulary is every term, in the order of preference within a meaning:
// the first present wins (for nested finds, the first in this order).
var vocabulary = append([]term{
	{"time", mTime, 0, true, vLoggers}, {"ts", mTime, 0, true, vLoggers}, {"timestamp", mTime, 0, true, vLoggers},
	{"@timestamp", mTime, 0, true, vECS}, {"t", mTime, 0, true, vLoggers}, {"datetime", mTime, 0, true, "Monolog"},
	{"asctime", mTime, 0, true, "python-json-logger"}, {"date", mTime, 0, true, vLoggers}, {"@t", mTime, 0, false, vCLEF},
	{"startTime", mTime, 0, false, "log4js"},

	{"request_id", mRequestID, 0, true, vLoggers}, {"requestId", mRequestID, 0, true, vLoggers}, {"requestID", mRequestID, 0, true, vLoggers},
	{"req_id", mRequestID, 0, true, "bunyan"}, {"reqId", mRequestID, 0, true, "pino"}, {"x_request_id", mRequestID, 0, true, vLoggers},
	{"rid", mRequestID, 0, true, vLoggers}, {"http.request_id", mRequestID, 0, true, vLoggers},
	{"req.headers.x-request-id", mRequestID, 0, true, vNode}, {"req.id", mRequestID, 0, true, "pino-http"},
	{"request.id", mRequestID, 0, true, vLoggers}, {"ctx.request_id", mRequestID, 0, true, vLoggers},
	{"headers.x-request-id", mRequestID, 0, false, vLoggers}, {"header.x-request-id", mRequestID, 0, false, vOTel},
	{"headers.request-id", mRequestID, 0, false, vLoggers}, {"headers.x-correlation-id", mRequestID, 0, false, vLoggers},
	{"correlationId", mRequestID, 0, false, vLoggers}, {"http.request.id", mRequestID, 0, false, vECS},
	{"transaction.id", mRequestID, 0, false, vECS},

	{"traceparent", mTraceID, 0, true, "W3C"}, {"trace_id", mTraceID, 0, true, vOTel}, {"traceId", mTraceID, 0, true, vOTel},
	{"traceID", mTraceID, 0, true, vOTel}, {"otelTraceID", mTraceID, 0, true, vOTel}, {"trace.id", mTraceID, 0, true, vECS},
	{"dd.trace_id", mTraceID, 0, true, "Datadog"}, {"logging.googleapis.com/trace", mTraceID, 0, true, "Google Cloud"},
	{"logging\\.googleapis\\.com/trace", mTraceID, 0, true, "Google Cloud"}, {"trace", mTraceID, 0, true, vLoggers},
	{"http_traceparent", mTraceID, 0, true, "nginx"}, {"http_x_amzn_trace_id", mTraceID, 0, true, "nginx"},
	{"x_amzn_trace_id", mTraceID, 0, true, "AWS"}, {"x-b3-traceid", mTraceID, 0, true, "Zipkin"},
	{"http_x_b3_traceid", mTraceID, 0, true, "nginx"}, {"headers.traceparent", mTraceID, 0, false, "W3C"},
	{"header.traceparent", mTraceID, 0, false, vOTel}, {"@tr", mTraceID, 0, false, vCLEF},

	{"idempotency_key", mKey, 0, true, vIdem}, {"idempotencyKey", mKey, 0, true, vLoggers}, {"IdempotencyKey", mKey, 0, true, vLoggers},
	{"idem_key", mKey, 0, true, vLoggers}, {"Idempotency-Key", mKey, 0, true, vLoggers}, {"idempotency-key", mKey, 0, true, vLoggers},
	{"http.idempotency_key", mKey, 0, true, vLoggers}, {"req.headers.idempotency-key", mKey, 0, true, vNode},
	{"headers.idempotency-key", mKey, 0, false, vLoggers}, {"header.idempotency-key", mKey, 0, false, vOTel},
	{"headers.x-idempotency-key", mKey, 0, false, vLoggers}, {"header.x-idempotency-key", mKey, 0, false, vOTel},

	{"key_hash", mKeyHash, 0, true, vIdem}, {"idempotency_key_hash", mKeyHash, 0, true, vLoggers}, {"keyHash", mKeyHash, 0, true, vLoggers},
	{"idempotencyKeyHash", mKeyHash, 0, true, vLoggers}, {"key_id", mKeyHash, 0, true, vLoggers},

	{"method", mMethod, 0, true, vLoggers}, {"http_method", mMethod, 0, true, vLoggers}, {"httpMethod", mMethod, 0, true, vLoggers},
	{"request_method", mMethod, 0, true, vLoggers}, {"http.method", mMethod, 0, true, vOTel}, {"http.request.method", mMethod, 0, true, vOTel + ", " + vECS},
	{"req.method", mMethod, 0, true, vNode}, {"request.method", mMethod, 0, true, vLoggers},
	{"RequestMethod", mMethod, 0, false, vCLEF},

	{"route", mRoute, 0, true, vLoggers}, {"path", mRoute, 0, true, vLoggers}, {"uri", mRoute, 0, true, vLoggers}, {"url", mRoute, 0, true, vLoggers},
	{"request_uri", mRoute, 0, true, vLoggers}, {"http.route", mRoute, 0, true, vOTel}, {"url.path", mRoute, 0, true, vOTel + ", " + vECS},
	{"http.target", mRoute, 0, true, vOTel}, {"req.url", mRoute, 0, true, vNode}, {"request.path", mRoute, 0, true, vLoggers},
	{"request.uri", mRoute, 0, true, vLoggers}, {"url.original", mRoute, 0, false, vECS}, {"url.full", mRoute, 0, false, vOTel},
	{"http.url", mRoute, 0, false, vOTel}, {"req.originalUrl", mRoute, 0, false, "express-winston"}, {"RequestPath", mRoute, 0, false, vCLEF},
	{"requested_uri", mRoute, 0, false, vLogback},

	{"status", mStatus, 0, true, vLoggers}, {"status_code", mStatus, 0, true, vLoggers}, {"statusCode", mStatus, 0, true, vLoggers},
	{"http_status", mStatus, 0, true, vLoggers}, {"http.status_code", mStatus, 0, true, vOTel}, {"http.response.status_code", mStatus, 0, true, vOTel + ", " + vECS},
	{"res.statusCode", mStatus, 0, true, vNode}, {"response.status", mStatus, 0, true, vLoggers},
	{"response.statusCode", mStatus, 0, false, vLoggers}, {"response.status_code", mStatus, 0, false, vLoggers},

	// Durations whose name says their unit, then those whose vocabulary
	// does, then the bare names, read by how they are written (or in the
	// unit the format documents, Format.durations).
	{"duration_ms", mDuration, uMS, true, vLoggers}, {"latency_ms", mDuration, uMS, true, vLoggers}, {"elapsed_ms", mDuration, uMS, true, vLoggers},
	{"responseTime", mDuration, uMS, true, vNode}, {"durationMs", mDuration, uMS, true, vLoggers}, {"took_ms", mDuration, uMS, true, vLoggers},
	{"response_time_ms", mDuration, uMS, true, vLoggers}, {"response_time", mDuration, uMS, false, vLoggers}, {"elapsedMs", mDuration, uMS, false, vLoggers},
	{"latencyMs", mDuration, uMS, false, vLoggers}, {"tookMs", mDuration, uMS, false, vLoggers}, {"ElapsedMilliseconds", mDuration, uMS, false, "ASP.NET Core"},
	{"Elapsed", mDuration, uMS, false, vCLEF}, {"elapsed_time", mDuration, uMS, false, vLogback},
	{"duration_us", mDuration, uUS, false, vLoggers}, {"elapsed_us", mDuration, uUS, false, vLoggers}, {"latency_us", mDuration, uUS, false, vLoggers},
	{"durationUs", mDuration, uUS, false, vLoggers}, {"duration_ns", mDuration, uNS, false, vLoggers}, {"latency_ns", mDuration, uNS, false, vLoggers},
	{"event.duration", mDuration, uNS, false, vECS}, {"duration_s", mDuration, uS, false, vLoggers}, {"duration_seconds", mDuration, uS, false, vLoggers},
	{"elapsed_s", mDuration, uS, false, vLoggers}, {"took_s", mDuration, uS, false, vLoggers},
	{"duration", mDuration, 0, false, vLoggers}, {"latency", mDuration, 0, false, vLoggers}, {"elapsed", mDuration, 0, false, vLoggers},
	{"took", mDuration, 0, false, vLoggers},

	{"body", mBody, 0, true, vLoggers}, {"request_body", mBody, 0, true, vLoggers}, {"req.body", mBody, 0, true, vNode},
	{"payload", mBody, 0, true, vLoggers}, {"requestBody", mBody, 0, true, vLoggers}, {"request.body", mBody, 0, false, vLoggers},
	{"http.request.body.content", mBody, 0, false, vECS},
	{"res.body", mResBody, 0, false, vNode}, {"response.body", mResBody, 0, false, vLoggers}, {"responseBody", mResBody, 0, false, vLoggers},
	{"response_body", mResBody, 0, false, vLoggers}, {"http.response.body.content", mResBody, 0, false, vECS},

	{"result_id", mResultID, 0, true, vIdem}, {"resultId", mResultID, 0, true, vLoggers}, {"receipt", mResultID, 0, true, vLoggers},
	{"receipt_id", mResultID, 0, true, vLoggers}, {"receiptId", mResultID, 0, true, vLoggers}, {"order_id", mResultID, 0, true, vLoggers},
	{"orderId", mResultID, 0, true, vLoggers}, {"charge_id", mResultID, 0, true, vLoggers}, {"chargeId", mResultID, 0, true, vLoggers},
	{"payment_id", mResultID, 0, true, vLoggers}, {"paymentId", mResultID, 0, true, vLoggers}, {"ticket_id", mResultID, 0, true, vLoggers},
	{"ticketId", mResultID, 0, true, vLoggers}, {"reservation_id", mResultID, 0, true, vLoggers}, {"reservationId", mResultID, 0, true, vLoggers},
	{"booking_id", mResultID, 0, true, vLoggers}, {"bookingId", mResultID, 0, true, vLoggers}, {"resource_id", mResultID, 0, true, vLoggers},
	{"Result", mResultID, 0, true, "Temporal"},

	{"msg", mMessage, 0, true, vLoggers}, {"message", mMessage, 0, true, vLoggers}, {"event", mMessage, 0, true, "structlog"},
	{"@message", mMessage, 0, true, vLoggers}, {"@m", mMessage, 0, false, vCLEF}, {"@mt", mMessage, 0, false, vCLEF},
	{"RenderedMessage", mMessage, 0, false, "Serilog"}, {"MessageTemplate", mMessage, 0, false, "Serilog"},
	{"data", mMessage, 0, false, "log4js"}, // the logged arguments, the message first

	{"fingerprint", mFingerprint, 0, true, vIdem}, {"payload_fingerprint", mFingerprint, 0, true, vLoggers},
	{"payload_hash", mFingerprint, 0, true, vLoggers}, {"body_hash", mFingerprint, 0, true, vLoggers},
	{"request_hash", mFingerprint, 0, true, vLoggers}, {"payloadHash", mFingerprint, 0, true, vLoggers}, {"fp", mFingerprint, 0, true, vLoggers},

	{"decision", mDecision, 0, true, vIdem}, {"dedup", mDecision, 0, true, vLoggers}, {"dedup_decision", mDecision, 0, true, vLoggers},
	{"idempotency_decision", mDecision, 0, true, vLoggers}, {"idempotency.decision", mDecision, 0, true, vLoggers},
	{"state", mState, 0, true, vIdem}, {"key_state", mState, 0, true, vLoggers}, {"idempotency_state", mState, 0, true, vLoggers},
	{"idempotency.state", mState, 0, true, vLoggers},

	{"attempt", mAttempt, 0, true, vLoggers}, {"Attempt", mAttempt, 0, true, "Temporal"}, {"retry_attempt", mAttempt, 0, true, vLoggers},
	{"retry_count", mAttempt, 0, true, vLoggers}, {"resend_count", mAttempt, 0, true, vLoggers},
	{"http.request.resend_count", mAttempt, 0, true, vOTel},

	{"client", mClient, 0, true, vLoggers}, {"client_ip", mClient, 0, true, vLoggers}, {"remote_addr", mClient, 0, true, vLoggers},
	{"remote_ip", mClient, 0, true, vLoggers}, {"ip", mClient, 0, true, vLoggers}, {"user_id", mClient, 0, true, vLoggers},
	{"req.remoteAddress", mClient, 0, true, vNode}, {"remoteAddress", mClient, 0, false, "bunyan"}, {"client.ip", mClient, 0, false, vECS},
	{"client.address", mClient, 0, false, vOTel}, {"source.ip", mClient, 0, false, vECS},
	// Who the caller is, where no address is logged: a customer or user
	// id, then a token's hash (never a token).
	{"customer_id", mClient, 0, true, vLoggers}, {"customerId", mClient, 0, true, vLoggers}, {"account_id", mClient, 0, true, vLoggers},
	{"userId", mClient, 0, true, vLoggers}, {"user.id", mClient, 0, false, vECS}, {"enduser.id", mClient, 0, false, vOTel},
	{"token_hash", mClient, 0, true, vLoggers},

	{"outcome", mOutcome, 0, true, vIdem},

	{"replayed", mReplayed, 0, false, vIdem}, {"idempotent_replayed", mReplayed, 0, false, vIdem},
	{"res.headers.idempotent-replayed", mReplayed, 0, false, vNode}, {"response.headers.idempotent-replayed", mReplayed, 0, false, vLoggers},
	{"header.idempotent-replayed", mReplayed, 0, false, vOTel},
	{"res.headers.retry-after", mRetryAfter, 0, false, vNode}, {"response.headers.retry-after", mRetryAfter, 0, false, vLoggers},

	{"write_error", mError, 0, false, vLoggers}, {"exc_type", mError, 0, false, "python logging"}, {"error_type", mError, 0, false, vLoggers},
	{"err.message", mError, 0, false, vNode}, {"error.message", mError, 0, false, vECS}, {"err.code", mError, 0, false, "Node"},
	{"error.type", mError, 0, false, vOTel}, {"exception.type", mError, 0, false, vOTel}, {"exception.message", mError, 0, false, vOTel},
	{"@x", mError, 0, false, vCLEF}, {"exc_info", mError, 0, false, "python-json-logger"}, {"error", mError, 0, false, vLoggers},
	{"err", mError, 0, false, vLoggers}, {"exception", mError, 0, false, vLoggers},

	{"previous_key", mPrevKey, 0, false, vLoggers}, {"previous_idempotency_key", mPrevKey, 0, false, vLoggers},
	{"original_idempotency_key", mPrevKey, 0, false, vLoggers}, {"retry_of", mPrevKey, 0, false, vLoggers},
}, retryTerms()...)

// wrappers are the names under which loggers nest what a line says:
// a term is found below any number of them.
var wrappers = map[string]bool{}

func init() {
	for _, w := range []string{"meta", "metadata", "req", "res", "request", "response", "http", "context", "ctx", "fields",
		"data", "attributes", "attrs", "@fields", "properties", "extra", "mdc", "contextMap", "State", "Scopes"} {
		wrappers[normName(w)] = true
	}
}

// topAliases lists the top-level aliases of a meaning, in order.
func topAliases(m meaning) []string {
	var out []string
	for _, t := range vocabulary {
		if t.means == m && t.top {
			out = append(out, t.path)
		}
	}
	return out
}

// Field aliases shared by application loggers and idem's canonical schema:
// the vocabulary's top-level names.
var (
	timeAliases     = topAliases(mTime)
	ridAliases      = topAliases(mRequestID)
	keyAliases      = topAliases(mKey)
	keyHashAliases  = topAliases(mKeyHash)
	methodAliases   = topAliases(mMethod)
	routeAliases    = topAliases(mRoute)
	statusAliases   = topAliases(mStatus)
	decisionAliases = topAliases(mDecision)
	stateAliases    = topAliases(mState)
	fpAliases       = topAliases(mFingerprint)
	msgAliases      = topAliases(mMessage)
	attemptAliases  = topAliases(mAttempt)
	clientAliases   = topAliases(mClient)
	bodyAliases     = topAliases(mBody)
	outcomeAliases  = topAliases(mOutcome)
	resultAliases   = topAliases(mResultID)
	traceAliases    = topAliases(mTraceID)
	durMSAliases    = topAliases(mDuration)
)

// normName is a name as the vocabulary compares it: lower case, without
// '-' and '_' (requestId, request_id and Request-Id are one name).
func normName(s string) string {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '-' || c == '_' || c >= 'A' && c <= 'Z' {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '-' || c == '_':
		case c >= 'A' && c <= 'Z':
			b = append(b, c+'a'-'A')
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

// splitPath splits a term's path at its dots (a "\." is a dot in a name).
func splitPath(p string) []string {
	if !strings.Contains(p, `\`) {
		return strings.Split(p, ".")
	}
	var out []string
	var cur strings.Builder
	for i := 0; i < len(p); i++ {
		switch {
		case p[i] == '\\' && i+1 < len(p):
			i++
			cur.WriteByte(p[i])
		case p[i] == '.':
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(p[i])
		}
	}
	return append(out, cur.String())
}

// termIndex finds a term by its normalised path (names joined by dots);
// termPrefixes holds every proper prefix of those paths, so that the deep
// reading enters only objects that can lead to a term; maxTermNames is
// the longest term in names.
var (
	termIndex    = map[string]int{}
	termPrefixes = map[string]bool{}
	maxTermNames int
)

func init() {
	for i, t := range vocabulary {
		names := splitPath(t.path)
		for j := range names {
			names[j] = normName(names[j])
		}
		maxTermNames = max(maxTermNames, len(names))
		key := strings.Join(names, ".")
		if _, dup := termIndex[key]; !dup {
			termIndex[key] = i
		}
		for j := 1; j < len(names); j++ {
			termPrefixes[strings.Join(names[:j], ".")] = true
		}
	}
}
