// Package trace reads log exports from every tier of an HTTP request's path
// and correlates them into one model:
//
//   - an Observation is what one log line says about one request at one tier
//     (client, proxy, server, worker, provider), with its source file:line;
//   - a Delivery is one trip of one request: every observation sharing one
//     request id, ordered client → proxy → server → worker → provider;
//   - an Intent is every delivery sharing one Idempotency-Key within its
//     scope: the retries of one user action;
//   - an Effect is a business change (a created order, a sent email, a
//     charge) attributed to the delivery and intent whose ids its line carries.
//
// Readers stream their inputs, recognise each line's format by its own shape,
// and extract only the fields the model needs. Nothing here prints: the
// report package renders, escapes and redacts.
package trace

import (
	"fmt"
	"strconv"
	"time"
)

// Tier is the layer of the system that wrote a log line.
type Tier uint8

// The tiers, in the order a request crosses them.
const (
	TierUnknown Tier = iota
	TierClient
	TierProxy
	TierServer
	TierWorker
	TierProvider
)

var tierNames = [...]string{"unknown", "client", "proxy", "server", "worker", "provider"}

func (t Tier) String() string {
	if int(t) < len(tierNames) {
		return tierNames[t]
	}
	return "unknown"
}

// ParseTier reads a tier name; aliases that logging pipelines commonly use are
// accepted.
func ParseTier(s string) (Tier, error) {
	switch s {
	case "client", "browser", "har":
		return TierClient, nil
	case "proxy", "ingress", "lb", "gateway-proxy":
		return TierProxy, nil
	case "server", "app", "application", "api", "backend":
		return TierServer, nil
	case "worker", "activity", "job":
		return TierWorker, nil
	case "provider", "external", "upstream-provider":
		return TierProvider, nil
	}
	return TierUnknown, fmt.Errorf("unknown tier %q (want client, proxy, server, worker or provider)", s)
}

// MarshalText makes tiers render by name in JSON.
func (t Tier) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// Outcome says how a delivery ended as seen from one tier.
type Outcome uint8

// Outcomes. Everything but OutcomeOK and OutcomeNotDelivered means "the
// response may have been lost": the effect may or may not have happened.
const (
	OutcomeUnknown         Outcome = iota
	OutcomeOK                      // a response was sent or received
	OutcomeTimeout                 // the client stopped waiting
	OutcomeReset                   // the connection dropped before a full response
	OutcomeAborted                 // the client aborted (navigation, user action)
	OutcomeClientClosed            // a proxy saw the client go away (499, DC, CH)
	OutcomeUpstreamTimeout         // a proxy gave up on the server (504, UT, sH)
	OutcomeUpstreamReset           // the server's connection dropped (502, UC, SH)
	OutcomeNotDelivered            // the request never reached a server (refused, no route)
	OutcomeError                   // some other transport error
)

var outcomeNames = [...]string{"unknown", "ok", "timeout", "reset", "aborted", "client_closed",
	"upstream_timeout", "upstream_reset", "not_delivered", "error"}

func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "unknown"
}

// MarshalText makes outcomes render by name in JSON.
func (o Outcome) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// ParseOutcome reads an outcome name as written by String.
func ParseOutcome(s string) Outcome {
	for i, n := range outcomeNames {
		if n == s {
			return Outcome(i)
		}
	}
	return OutcomeUnknown
}

// Lost reports whether this outcome means the response did not reach the
// caller although the request may have been processed.
func (o Outcome) Lost() bool {
	switch o {
	case OutcomeTimeout, OutcomeReset, OutcomeAborted, OutcomeClientClosed,
		OutcomeUpstreamTimeout, OutcomeUpstreamReset, OutcomeError:
		return true
	}
	return false
}

// Source locates a fact in the inputs.
type Source struct {
	File string
	Line int
	// Entry numbers, from 1, the HAR entry a fact was streamed out of when
	// that entry shares its line with what comes before it (a HAR written
	// on one line, as Playwright does): file:line alone would not find it.
	// It is 0 everywhere else.
	Entry int
}

// String renders file:line, and the entry's 0-based JSON path when there
// is one: client.har:1#entries[3]. Without fmt: a big report writes one
// for every piece of evidence.
func (s Source) String() string {
	var buf [128]byte
	b := strconv.AppendInt(append(append(buf[:0], s.File...), ':'), int64(s.Line), 10)
	if s.Entry > 0 {
		b = append(strconv.AppendInt(append(b, "#entries["...), int64(s.Entry-1), 10), ']')
	}
	return string(b)
}

// MarshalText renders a source as String does.
func (s Source) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Observation is what one log line says about one request at one tier.
// Empty strings and zero numbers mean "the line did not say".
type Observation struct {
	Tier     Tier
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
	Outcome        Outcome
	Detail         string // the raw signal behind the outcome: "DC", "net::ERR_TIMED_OUT", "CH--"

	RequestID   string
	Key         string // Idempotency-Key as sent (quotes of the structured-field form removed)
	KeyHash     string // a normalised identifier of the key, when the raw key is not logged
	Scope       string // extra scope values (tenant, account) from configured fields
	Decision    string // the dedup decision: new, replay, conflict, in_progress, ...
	State       string // the key record's state: in_progress, completed, ...
	Fingerprint string // fingerprint of the significant payload
	ResultID    string
	Replayed    bool // the response carried a replay marker (Idempotent-Replayed: true)
	RetryAfter  bool // the response asked the client to come back later
	Effect      bool // this line records a business effect
	Attempt     int
	Client      string // who sent it, where known (remote address)

	WorkflowID   string
	RunID        string
	ActivityID   string
	ActivityType string

	Message string
	// Labels are the log aggregator's labels around the line ("app=api,
	// namespace=prod"), when it came out of an export.
	Labels string
	Source Source
}

// End is when this tier finished with the request, where a duration is known.
func (o *Observation) End() time.Time { return o.Time.Add(o.Duration) }

// Responded reports whether this tier saw a response with a status.
func (o *Observation) Responded() bool { return o.Status > 0 && !o.Outcome.Lost() }

// Clone copies o with strings of its own, so that keeping the copy does
// not keep the reader's buffer its strings point into.
func (o *Observation) Clone() *Observation { return cloneObservation(o) }
