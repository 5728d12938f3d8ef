package capture

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// Sent is one request a harness sent: what went out, how it ended for
// the client, and what the harness knows of it beyond the client. It is
// what the tests' expectations are derived from, never idem's reading of
// the logs; captures keep it in their record (run.json, harness.json).
type Sent struct {
	// Step names the request in the harness's scenario; steps sharing a
	// key are attempts of one intent.
	Step string `json:"step"`
	// Layer is what sent it: "client" (a harness's HTTP client), "browser"
	// (a page's fetch); empty in captures recorded before it was kept.
	Layer string `json:"layer,omitempty"`
	// Client is the address it came from, where a harness sends as
	// several users.
	Client string `json:"client,omitempty"`

	Method      string            `json:"method,omitempty"` // POST when empty
	Path        string            `json:"path,omitempty"`   // with its query
	RequestID   string            `json:"request_id,omitempty"`
	TraceParent string            `json:"traceparent,omitempty"`
	Key         string            `json:"key,omitempty"` // the Idempotency-Key; empty: none sent
	Body        string            `json:"body,omitempty"`
	Headers     map[string]string `json:"headers,omitempty"` // sent besides the kit's own
	// Delay is how long the backend was asked to work before its effect
	// (X-Harness-Delay-Ms); Timeout how long the client waited.
	Delay   time.Duration `json:"-"`
	Timeout time.Duration `json:"-"`
	// Meant is how the harness made it end, in the harness's own words
	// (created, client_timeout...), where it decides that.
	Meant string `json:"meant,omitempty"`

	Start time.Time `json:"start"` // when the client sent it
	End   time.Time `json:"end"`   // when it got the answer or gave up
	Ended ended     `json:"ended"`
	// Status is the response's, 0 when none arrived; Error the client's
	// error when none did.
	Status            int    `json:"status,omitempty"`
	Error             string `json:"error,omitempty"`
	Response          string `json:"response,omitempty"`            // the response body, cut short
	ResultID          string `json:"result_id,omitempty"`           // the id the response named
	Replayed          bool   `json:"replayed,omitempty"`            // the response said Idempotent-Replayed: true
	ResponseRequestID string `json:"response_request_id,omitempty"` // the X-Request-Id (or Request-Id) it carried

	// Reached says the backend received it.
	Reached bool `json:"reached_backend,omitempty"`
	// Effect is what the backend's ledger recorded it made (an order id).
	Effect string `json:"effect,omitempty"`
	// ProviderCalls is how many calls a provider behind the backend
	// received with its request id.
	ProviderCalls int `json:"provider_calls,omitempty"`
}

// ended is how a request ended for the client.
type ended string

// The ways a request ends for the client.
const (
	EndedResponse ended = "response" // a response arrived (any status)
	EndedTimeout  ended = "timeout"  // the client gave up waiting
	EndedAborted  ended = "aborted"  // the client closed the connection
	endedRefused  ended = "refused"  // nothing listened where it was sent
	endedError    ended = "error"    // another error: the capture is broken
)

// HTTPMethod is the request's method: POST unless set.
func (s Sent) HTTPMethod() string {
	if s.Method == "" {
		return http.MethodPost
	}
	return s.Method
}

// Route is the path without its query, as logs should name it.
func (s Sent) Route() string {
	p, _, _ := strings.Cut(s.Path, "?")
	return p
}

// Elapsed is how long the client waited.
func (s Sent) Elapsed() time.Duration { return s.End.Sub(s.Start) }

// Fingerprint is the payload's (Fingerprint): two requests carry one
// command when theirs agree.
func (s Sent) Fingerprint() string { return Fingerprint([]byte(s.Body)) }

// Answered reports whether a 2xx response reached the client.
func (s Sent) Answered() bool { return s.Ended == EndedResponse && s.Status >= 200 && s.Status <= 299 }

// RequestIDs are the request ids of sent, in order.
func RequestIDs(sent []Sent) []string {
	out := make([]string, 0, len(sent))
	for _, s := range sent {
		out = append(out, s.RequestID)
	}
	return out
}

// sentJSON is Sent as a record holds it, durations in milliseconds.
type sentJSON struct {
	plainSent
	DelayMS   int64 `json:"delay_ms,omitempty"`
	TimeoutMS int64 `json:"timeout_ms,omitempty"`
}

type plainSent Sent // Sent without its methods

// MarshalJSON writes the durations in milliseconds.
func (s Sent) MarshalJSON() ([]byte, error) {
	return json.Marshal(sentJSON{plainSent: plainSent(s), DelayMS: s.Delay.Milliseconds(), TimeoutMS: s.Timeout.Milliseconds()})
}

// UnmarshalJSON reads a Sent as MarshalJSON writes it, and as the captures
// recorded before it kept theirs, which fixtures/real/ still holds:
// internal/kit/harness's run.json ("name", "end" for how the harness made it
// end, "finish" for when it did, the timeout in nanoseconds) and
// internal/kit/appharness's harness.json ("name", "delay" and "timeout" in
// nanoseconds, "timed_out").
func (s *Sent) UnmarshalJSON(b []byte) error {
	var r struct {
		sentJSON
		End      json.RawMessage `json:"end"`
		Name     string          `json:"name"`
		Finish   time.Time       `json:"finish"`
		Delay    time.Duration   `json:"delay"`
		Timeout  time.Duration   `json:"timeout"`
		TimedOut bool            `json:"timed_out"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return err
	}
	*s = Sent(r.plainSent)
	s.Delay = time.Duration(r.DelayMS)*time.Millisecond + r.Delay
	s.Timeout = time.Duration(r.TimeoutMS)*time.Millisecond + r.Timeout
	if s.Step == "" {
		s.Step = r.Name
	}
	if len(r.End) > 0 {
		if err := json.Unmarshal(r.End, &s.End); err != nil {
			// run.json's "end" is how the harness made it end.
			if err := json.Unmarshal(r.End, &s.Meant); err != nil {
				return err
			}
		}
	}
	if s.End.IsZero() {
		s.End = r.Finish
	}
	switch {
	case s.Ended != "":
	case r.TimedOut:
		s.Ended = EndedTimeout
	default:
		s.Ended = EndedOf(s.Status, s.Error)
	}
	return nil
}

// EndedOf is how a request ended, from the status that arrived or the
// client's error: the kinds Send records (timeout, aborted, refused), or
// the DOMException a browser's fetch throws (TimeoutError for
// AbortSignal.timeout, AbortError for an abort).
func EndedOf(status int, err string) ended {
	switch {
	case err == string(EndedTimeout) || strings.HasPrefix(err, "TimeoutError"):
		return EndedTimeout
	case err == string(EndedAborted) || strings.HasPrefix(err, "AbortError"):
		return EndedAborted
	case err == string(endedRefused):
		return endedRefused
	case err != "":
		return endedError
	case status > 0:
		return EndedResponse
	}
	return endedError
}
