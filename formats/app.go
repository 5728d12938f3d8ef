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

// effectWords in a message, together with a result id, mark a business effect.
var effectWords = regexp.MustCompile(`(?i)\b(` + effectList + `)\b`)

// effectList are the verbs of effectWords.
const effectList = `created|committed|published|charged|sent|inserted|stored|captured|booked|reserved|released|enqueued|emailed|effect|placed|opened|issued|refunded|dispatched|shipped|scheduled|submitted|transferred|paid`

// replayWords in a message say the line answers from what an earlier
// request made ("replaying stored response", "returning cached result",
// "idempotent replay", "order already exists"): the result id it names is
// the old one, and the line is a replay, never a new effect, whatever
// effect word it also holds ("stored").
var replayWords = regexp.MustCompile(`(?i)\breplay(ing|ed|s)?\b|\b(cached|stored|saved|previous|original|existing) (response|result|answer|order|record)|` +
	`\bfrom (the )?(cache|store|key record|idempotency (store|record|cache))\b|\balready (exists|processed|created|completed|handled|done|charged|paid)\b|\bidempoten(t|cy) hit\b|\bduplicate (request|key) (ignored|answered)\b`)

// unwrittenWords are what servers log when a response could not be
// written: the peer closed the connection (Go's "write: broken pipe" and
// "connection reset by peer", Node's EPIPE, ECONNRESET and
// ERR_STREAM_PREMATURE_CLOSE, Python's BrokenPipeError and
// ConnectionResetError), or the client went away before the write (Go's
// "context canceled", Node's "aborted" or "close" before "finish").
var unwrittenWords = regexp.MustCompile(`(?i)broken ?pipe|\bepipe\b|\beconnreset\b|connection reset by peer|connection(reset|aborted)error|` +
	`client (has )?(disconnected|closed|went away|gone)|err_stream_premature_close|premature close|` +
	`(response|reply) (could not be|was not|not|never) (written|sent)|failed to (write|send) (the )?response|` +
	`(request|client) aborted|aborted before (the )?(finish|response)|closed? before (the )?(finish|response)|` +
	`context canceled`)

// unwrittenGate holds a word of each of unwrittenWords' forms: a message
// holding none is not matched (most are not, and the expression costs).
var unwrittenGate = []string{"pipe", "reset", "client", "premature", "written", "sent", "write", "abort", "close", "cancel"}

// responseUnwritten reports whether a server's message says its response
// was not written.
func responseUnwritten(s string) bool {
	if len(s) < 4 {
		return false
	}
	for _, w := range unwrittenGate {
		if containsFold(s, w) {
			return unwrittenWords.MatchString(s)
		}
	}
	return false
}

// containsFold reports whether s holds the lower-case ASCII word w in any
// case.
func containsFold(s, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		j := 0
		for j < len(w) && (s[i+j] == w[j] || s[i+j]+'a'-'A' == w[j]) {
			j++
		}
		if j == len(w) {
			return true
		}
	}
	return false
}

// extractApp maps application loggers (slog, zap, zerolog, logrus, pino,
// structlog), Temporal worker lines and idem's canonical schema.
func extractApp(p *Parser, r *record, o *model.Observation) bool {
	o.Time, _ = model.ParseTime(r.strs(pTimeAliases))
	o.RequestID = r.strs(pRidAliases)
	o.Key = model.NormalizeKey(r.strs(pKeyAliases))
	o.KeyHash = r.strs(pKeyHashAliases)
	o.Method = httpMethod(r.strs(pMethodAliases))
	target := r.strs(pRouteAliases)
	o.Route = routePath(target)
	if s, ok := intValue(r.strs(pStatusAliases)); ok && s >= 100 && s < 1000 {
		o.Status = s
	}
	o.Decision = strings.ToLower(r.strs(pDecisionAliases))
	o.State = strings.ToLower(r.strs(pStateAliases))
	o.Fingerprint = r.strs(pFpAliases)
	o.ResultID = r.strs(pResultAliases)
	o.Message = r.strs(pMsgAliases)
	if o.Message != "" && mayNameID(r) && (effectWords.MatchString(o.Message) || replayWords.MatchString(o.Message)) {
		// What the line says it made (or answers again) is named for
		// itself, whatever the domain calls it (created.go).
		if id := madeID(r, o.Message); id != "" {
			o.ResultID = id
		}
	}
	if a, ok := intValue(r.strs(pAttemptAliases)); ok {
		o.Attempt = a
	}
	o.Client = r.strs(pClientAliases)
	if w := (model.Workflow{ID: r.str("WorkflowID", "workflowId", "workflow_id"), RunID: r.str("RunID", "workflowRunId", "run_id"),
		ActivityID: r.str("ActivityID", "activityId", "activity_id"), ActivityType: r.str("ActivityType", "activityType", "activity_type")}); w != (model.Workflow{}) {
		o.Workflow = &w
	}
	tierSaid := false
	if t := r.str("tier"); t != "" {
		if tier, err := model.ParseTier(strings.ToLower(t)); err == nil {
			o.Tier, tierSaid = tier, true
		}
	} else if o.Tier == model.TierServer && outbound(target, o) {
		o.Tier = model.TierClient
	}
	o.Process = processOf(r)
	vr := p.readVocabulary(r)
	if vr != nil {
		vr.apply(r, o)
	}
	unit := model.Unit(0)
	if p.cur != nil {
		unit = p.cur.durations
	}
	o.Duration = appDuration(r, unit)
	if o.Duration == 0 && vr != nil {
		o.Duration = vr.duration(unit)
	}
	o.RequestID = processScoped(o.Process, o.RequestID, o.Source)
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
	case o.ResultID != "" && o.Decision != "replay" && o.Decision != "replayed" && effectWords.MatchString(o.Message) && !replayWords.MatchString(o.Message):
		o.Effect = true
	}
	if o.ResultID != "" && !o.Effect && o.Decision == "" && replayWords.MatchString(o.Message) {
		// A replay's own line names the old result: the answer came
		// from the key record.
		o.Replayed = true
	}
	if o.Tier == model.TierServer && !o.Outcome.Lost() && (responseUnwritten(o.Message) || responseUnwritten(o.Detail)) {
		// The server says its response could not be written: the
		// client (or the proxy) was gone, whatever status it meant.
		o.Outcome = model.OutcomeReset
		if o.Detail == "" {
			o.Detail = o.Message
		}
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
	ok := o.RequestID != "" || o.Key != "" || o.KeyHash != "" || o.Effect || o.WorkflowID() != "" ||
		o.ActivityID() != "" || (o.Method != "" && o.Status > 0)
	if ok && !tierSaid && o.Workflow == nil && (o.Tier == model.TierServer || o.Tier == model.TierClient) {
		// Whose line it is, the process's lines together decide
		// (caller.go).
		if target == "" {
			target = o.Route // read by the vocabulary, below a wrapper
		}
		v, why := callerVote(target, r, o)
		p.vote(o, v, why)
	}
	return ok
}

// outbound reports whether a logger's request line is a call it made
// rather than one it handled: an absolute URL (a server logs the path it
// was asked for) with the number of this send or a retry's words (a
// server cannot know which send it got). Such a line is the caller's:
// a client library's, a script's, a service's outbound call.
func outbound(target string, o *model.Observation) bool {
	if o.Workflow != nil || !strings.Contains(target, "://") {
		return false
	}
	return o.Attempt > 0 || retryWords.MatchString(o.Message)
}

// retryWords are a caller's words for sending again.
var retryWords = regexp.MustCompile(`(?i)\b(retrying|retry(ing)? in|will retry|retry attempt|attempt \d+ (of|/) ?\d+)\b`)

func firstPresent(r *record, paths []string) string {
	for _, p := range paths {
		if r.path(p).Exists() {
			return p
		}
	}
	return "-"
}

// pDurMS names durations whose key says they are milliseconds.
var pDurMS = newPaths(durMSAliases...)

// appDuration reads the durations application loggers write at the top
// level: explicit units in the key name, then a bare duration or latency
// in the format's documented unit (zerolog's and lograge's milliseconds),
// else by how it is written (see durationValue).
func appDuration(r *record, unit model.Unit) time.Duration {
	if s := r.strs(pDurMS); s != "" {
		d, _ := model.ParseDuration(s, model.Milliseconds)
		return d
	}
	v := r.get("duration")
	if !v.Exists() {
		v = r.get("latency")
	}
	return durationValue(v, unit)
}

// durationValue reads a duration in unit, or, when the unit is not known
// (0), as Go's loggers write one: a string with its unit ("815ms", bare
// seconds), slog's integer nanoseconds, zap's float seconds.
func durationValue(v gjson.Result, unit model.Unit) time.Duration {
	switch v.Type {
	case gjson.String:
		if unit == 0 {
			unit = model.Seconds
		}
		d, _ := model.ParseDuration(v.Str, unit)
		return d
	case gjson.Number:
		if unit == 0 {
			unit = model.Nanoseconds
			if strings.ContainsAny(v.Raw, ".eE") {
				unit = model.Seconds
			}
		}
		d, _ := model.ParseDuration(v.Raw, unit)
		return d
	}
	return 0
}

// processOf is the process that wrote a line, where the line says:
// its host and pid (pino's and bunyan's hostname and pid, ECS's and
// OpenTelemetry's host.name and process.pid), "host/pid".
func processOf(r *record) string {
	host := r.str("hostname", "host.name", "host.hostname")
	if host == "" {
		host = present(r.path("host.name"))
	}
	pid := r.str("pid", "process.pid")
	if pid == "" {
		pid = present(r.path("process.pid"))
	}
	if host == "" && pid == "" {
		return ""
	}
	return host + "/" + pid
}

// processScoped makes a small integer request id, such as pino-http's
// default per-process counter (1, 2, …), unique to the process that
// logged it (its hostname and pid, where the line has them, else its
// file): the same counter value from two pods or two restarts is not one
// request. Other ids stay as logged, and the correlator tells processes
// apart by Observation.Process where an id repeats.
func processScoped(process, id string, src model.Source) string {
	if id == "" || len(id) > 9 {
		return id
	}
	if _, ok := smallUint(id); !ok {
		return id
	}
	if process != "" {
		return process + "#" + id
	}
	return src.File + "#" + id
}
