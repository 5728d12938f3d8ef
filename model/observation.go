package model

import (
	"strings"
	"time"
)

// Observation is what one log line says about one request at one tier.
// Empty strings and zero numbers mean "the line did not say".
type Observation struct {
	// The one-byte facts first, together: a big input's built intents
	// hold a hundred thousand observations, and apart each took a word.
	Tier       Tier
	Outcome    Outcome
	Replayed   bool // the response carried a replay marker (Idempotent-Replayed: true)
	RetryAfter bool // the response asked the client to come back later
	Effect     bool // this line records a business effect
	// EndOrStart says Time was read as the line's time less Duration (its
	// end, as nginx's $time_local and h2o write it) by a layout that does
	// not say whether it writes the end or the start (Apache's %t): the
	// correlator learns which from the other tiers' lines of the same
	// trips, and moves Time to the line's own time where it was the start.
	EndOrStart bool

	Format   string    // the recognised format, e.g. "nginx", "har", "slog"
	Time     time.Time // when this tier saw the request start
	Duration time.Duration
	Method   string
	Route    string // path without the query string
	Status   int    // HTTP status; 0 when no response was sent or received
	// UpstreamStatus is what the server answered a proxy, when the proxy
	// logged it (nginx $upstream_status): a 201 behind a 499 means the
	// server committed although the client had gone.
	UpstreamStatus int
	// UpstreamTries is how many upstream attempts the proxy logged for
	// the request when it tried more than one (nginx's $upstream_status
	// list "504, 201", HAProxy's retries, Envoy's attempt count): a
	// proxy's own retry, the
	// client having sent once. 0 when the line did not say, or said one.
	UpstreamTries int
	Detail        string // the raw signal behind the outcome: "DC", "net::ERR_TIMED_OUT", "CH--"

	RequestID string
	// AltRequestID is another request id the line carried (nginx's own
	// $request_id beside the client's X-Request-Id): the delivery's id is
	// whichever of the two the other tiers logged. The correlator keeps
	// only what joins by it: in a Set, a line that joined its trip by it
	// goes by it, with its own id here; the others have it empty.
	AltRequestID string
	Key          string // Idempotency-Key as sent (quotes of the structured-field form removed)
	KeyHash      string // a normalised identifier of the key, when the raw key is not logged
	Scope        string // extra scope values (tenant, account) from configured fields
	Decision     string // the dedup decision: new, replay, conflict, in_progress, ...
	State        string // the key record's state: in_progress, completed, ...
	Fingerprint  string // fingerprint of the significant payload
	ResultID     string
	Attempt      int
	// RetryMark is the header by which a client library numbered this
	// send past its first, as logged ("x-stainless-retry-count: 1",
	// "amz-sdk-request: attempt=2; max=3"): the library's own retry.
	// Empty on a first send, or where no such header was logged.
	RetryMark string
	// PreviousKey is another key the line names as the one this send
	// retries (previous_key, retry_of, original_idempotency_key): the
	// caller's own word that a new key carries an old action.
	PreviousKey string
	Client      string // who sent it, where known (remote address)

	// Workflow is the workflow engine's activity attempt the line is
	// about (a Temporal worker's lines), nil on every other line: behind a
	// pointer, its four strings cost the others nothing.
	Workflow *Workflow

	Message string
	// Labels are the log aggregator's labels around the line ("app=api,
	// namespace=prod"), when it came out of an export.
	Labels string
	// Process is the process that wrote the line, as the line says it
	// ("host/pid": pino's hostname and pid, ECS's host.name and
	// process.pid), where it says: an id a process minted (a framework's
	// req-1) names a trip only within it.
	Process string
	Source  Source
}

// Workflow names what a workflow engine's line is about. A line that
// names none has no Workflow at all (Observation.Workflow is nil), never
// an empty one.
type Workflow struct {
	ID           string // the workflow's id (Temporal's WorkflowID)
	RunID        string
	ActivityID   string
	ActivityType string
}

// Work is o's Workflow, made when o has none, for a reader filling it.
func (o *Observation) Work() *Workflow {
	if o.Workflow == nil {
		o.Workflow = &Workflow{}
	}
	return o.Workflow
}

// workflow is o's Workflow, the zero one when it has none.
func (o *Observation) workflow() Workflow {
	if o.Workflow == nil {
		return Workflow{}
	}
	return *o.Workflow
}

// WorkflowID is the workflow's id, "" when the line names none.
func (o *Observation) WorkflowID() string { return o.workflow().ID }

// RunID is the workflow run's id, "" when the line names none.
func (o *Observation) RunID() string { return o.workflow().RunID }

// ActivityID is the activity's id, "" when the line names none.
func (o *Observation) ActivityID() string { return o.workflow().ActivityID }

// ActivityType is the activity's type, "" when the line names none.
func (o *Observation) ActivityType() string { return o.workflow().ActivityType }

// End is when this tier finished with the request, where a duration is known.
func (o *Observation) End() time.Time { return o.Time.Add(o.Duration) }

// At is where the line stands on a timeline: a server's answer when it
// was sent (its end), so that "201" never comes before the request's own
// lines and effect; any other line when it began.
func (o *Observation) At() time.Time {
	if o.Tier == TierServer && o.Status > 0 && o.Duration > 0 {
		return o.End()
	}
	return o.Time
}

// StandsAtEnd reports whether At is the end of a span that began at Time: the
// row then shows its duration as that span.
func (o *Observation) StandsAtEnd() bool { return !o.At().Equal(o.Time) }

// Responded reports whether this tier saw a response with a status.
func (o *Observation) Responded() bool { return o.Status > 0 && !o.Outcome.Lost() }

// Clone copies o with strings of its own, so that keeping the copy does
// not keep the reader's buffer its strings point into.
func (o *Observation) Clone() *Observation {
	cp := *o
	for _, f := range []*string{&cp.Format, &cp.Method, &cp.Route, &cp.Detail, &cp.RequestID, &cp.AltRequestID, &cp.Key, &cp.KeyHash, &cp.Scope,
		&cp.Decision, &cp.State, &cp.Fingerprint, &cp.ResultID, &cp.Client,
		&cp.Message, &cp.Labels, &cp.Process, &cp.RetryMark, &cp.PreviousKey, &cp.Source.File} {
		*f = strings.Clone(*f)
	}
	if w := cp.Workflow; w != nil {
		cp.Workflow = &Workflow{ID: strings.Clone(w.ID), RunID: strings.Clone(w.RunID),
			ActivityID: strings.Clone(w.ActivityID), ActivityType: strings.Clone(w.ActivityType)}
	}
	return &cp
}

// UsualMethod reports whether m is one of the methods most lines carry,
// written in upper case as they are: the formats then return it as
// logged.
func UsualMethod(m string) bool {
	switch m {
	case "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS":
		return true
	}
	return false
}

// IsWrite reports whether a method may change state, and so may make an
// effect and needs a key: every tier asks this the same way.
func IsWrite(method string) bool {
	switch method {
	case "POST", "PUT", "PATCH", "DELETE":
		return true
	}
	return false
}
