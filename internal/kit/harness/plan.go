package harness

import (
	"context"
	"fmt"
	"time"

	"github.com/idem-cli/idem/internal/kit/capture"
)

// end is how the harness makes a request end (recorded as its
// capture.Sent's Meant): what the tests' expectations are derived from.
type end string

// The ways the harness makes a request end.
const (
	EndCreated         end = "created"          // the backend answered 201
	EndServerError     end = "server_error"     // the backend answered a 5xx
	EndClientTimeout   end = "client_timeout"   // the client gave up before the backend answered
	endClientAbort     end = "client_abort"     // the client closed the connection right after sending
	EndUpstreamDrop    end = "upstream_drop"    // the backend closed the connection without answering
	endUpstreamTimeout end = "upstream_timeout" // the proxy gave up on a slow backend
	EndRefused         end = "refused"          // nothing listened where the request was sent
	endRead            end = "read"             // the backend answered 200 to a read
	endReplay200       end = "replay_200"       // the backend replayed the order, answering 200 for its 201 (?replay=200)
)

// EndOf is how the harness made s end.
func EndOf(s capture.Sent) end { return end(s.Meant) }

// userAgent is what the harness's client sends as its User-Agent.
const userAgent = "idem-harness/1"

// Step is one request of a traffic plan.
type Step struct {
	Name string
	// Method is POST unless set.
	Method string
	// Key is the Idempotency-Key; "" sends none. Steps sharing a key are
	// retries of one intent.
	Key string
	// Path is under the proxy: /v1/orders, /v1/slow/… (the proxy's short
	// upstream timeout), /v1/down/… (an upstream nothing listens on), with
	// the backend's ?delay= and ?fail= in its query.
	Path string
	// Timeout, when set, is how long the client waits for a response.
	Timeout time.Duration
	// Abort closes the connection right after the request is sent.
	Abort bool
	// Trace sends a W3C traceparent instead of an X-Request-Id; the
	// request is then known by its trace id.
	Trace bool
	// Body is the JSON payload; "" sends DefaultPayload(Name), so steps
	// share a payload only when they say so.
	Body string
	// Headers are sent besides the harness's own (an Authorization).
	Headers map[string]string
	// SameIDAs names an earlier step whose X-Request-Id this one sends
	// again, as a client does that makes its id once per session.
	SameIDAs string
	// End is how the harness makes this request end.
	End end
}

// defaultPayload is the body of a step that names none.
func defaultPayload(name string) string { return fmt.Sprintf(`{"item":%q,"quantity":1}`, name) }

// payload is the body the step sends.
func (s Step) payload() string {
	if s.Body != "" {
		return s.Body
	}
	return defaultPayload(s.Name)
}

// trafficPlan is the traffic every proxy test sends: each way a request can end,
// keyed and unkeyed, and a retry under the same key.
func trafficPlan() []Step {
	id := capture.NewID
	k1, k2, k3, k4, k5, k6, k7 := id(), id(), id(), id(), id(), id(), id()
	return []Step{
		{Name: "created", Key: k1, Path: "/v1/orders", End: EndCreated},
		{Name: "unkeyed", Path: "/v1/orders", End: EndCreated},
		{Name: "retry-1-timeout", Key: k2, Path: "/v1/orders?delay=1200ms", Timeout: 400 * time.Millisecond, End: EndClientTimeout},
		{Name: "retry-2-replayed", Key: k2, Path: "/v1/orders", End: EndCreated},
		{Name: "abort", Key: k3, Path: "/v1/orders?delay=1000ms", Abort: true, End: endClientAbort},
		{Name: "server-error", Key: k4, Path: "/v1/orders?fail=500", End: EndServerError},
		{Name: "upstream-drop", Key: k5, Path: "/v1/orders?fail=drop", End: EndUpstreamDrop},
		{Name: "upstream-timeout", Key: k6, Path: "/v1/slow/orders?delay=1500ms", End: endUpstreamTimeout},
		{Name: "upstream-refused", Key: k7, Path: "/v1/down/orders", End: EndRefused},
	}
}

// Drive sends the steps to base (http://host:port) one after the other,
// each with a new request id (or the one of the step it names in
// SameIDAs), and returns how each ended.
func Drive(ctx context.Context, base string, steps []Step) []capture.Sent {
	out := make([]capture.Sent, 0, len(steps))
	ids := map[string]string{}
	for _, st := range steps {
		rid := ids[st.SameIDAs]
		if rid == "" {
			rid = capture.NewID()
		}
		s := send(ctx, base, st, rid)
		ids[st.Name] = s.RequestID
		out = append(out, s)
	}
	return out
}

// send sends one step as a JSON request with the X-Request-Id rid, or,
// for a Trace step, a new traceparent, whose trace id it is known by.
func send(ctx context.Context, base string, st Step, rid string) capture.Sent {
	r := capture.Request{Step: st.Name, Method: st.Method, Base: base, Path: st.Path, Key: st.Key, RequestID: rid,
		Body: st.payload(), Headers: st.Headers, UserAgent: userAgent, Timeout: st.Timeout, Abort: st.Abort, Meant: string(st.End)}
	traceID := ""
	if st.Trace {
		traceID, r.TraceParent = capture.NewTraceParent()
		r.RequestID = ""
	}
	s := capture.Send(ctx, r)
	if st.Trace {
		s.RequestID = traceID
	}
	return s
}
