package harness

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// End is how a request ended, as the harness made it end: what the
// tests' expectations are derived from.
type End string

// The ways the harness makes a request end.
const (
	EndCreated         End = "created"          // the backend answered 201
	EndServerError     End = "server_error"     // the backend answered a 5xx
	EndClientTimeout   End = "client_timeout"   // the client gave up before the backend answered
	EndClientAbort     End = "client_abort"     // the client closed the connection right after sending
	EndUpstreamDrop    End = "upstream_drop"    // the backend closed the connection without answering
	EndUpstreamTimeout End = "upstream_timeout" // the proxy gave up on a slow backend
	EndRefused         End = "refused"          // nothing listened where the request was sent
	EndRead            End = "read"             // the backend answered 200 to a read
	EndReplay200       End = "replay_200"       // the backend replayed the order, answering 200 for its 201 (?replay=200)
)

// Step is one request of a traffic plan.
type Step struct {
	Name string `json:"name"`
	// Method is POST unless set.
	Method string `json:"method,omitempty"`
	// Key is the Idempotency-Key; "" sends none. Steps sharing a key are
	// retries of one intent.
	Key string `json:"key,omitempty"`
	// Path is under the proxy: /v1/orders, /v1/slow/… (the proxy's short
	// upstream timeout), /v1/down/… (an upstream nothing listens on), with
	// the backend's ?delay= and ?fail= in its query.
	Path string `json:"path"`
	// Timeout, when set, is how long the client waits for a response.
	Timeout time.Duration `json:"timeout,omitempty"`
	// Abort closes the connection right after the request is sent.
	Abort bool `json:"abort,omitempty"`
	// Trace sends a W3C traceparent instead of an X-Request-Id; the
	// request is then known by its trace id.
	Trace bool `json:"trace,omitempty"`
	// Body is the JSON payload; "" sends {"item":NAME,"quantity":1}, so
	// steps share a payload only when they say so.
	Body string `json:"body,omitempty"`
	// Headers are sent besides the harness's own (an Authorization).
	Headers map[string]string `json:"headers,omitempty"`
	// SameIDAs names an earlier step whose X-Request-Id this one sends
	// again, as a client does that makes its id once per session.
	SameIDAs string `json:"same_id_as,omitempty"`
	// End is how the harness makes this request end.
	End End `json:"end"`
}

// Payload is the body the step sends.
func (s Step) Payload() string {
	if s.Body != "" {
		return s.Body
	}
	return fmt.Sprintf(`{"item":%q,"quantity":1}`, s.Name)
}

// Sent is a step as it was sent and as it ended, from the client's side.
type Sent struct {
	Step
	// RequestID is the X-Request-Id sent, or the trace id of a Trace step.
	RequestID   string    `json:"request_id"`
	TraceParent string    `json:"traceparent,omitempty"`
	Start       time.Time `json:"start"`
	Finish      time.Time `json:"finish"`
	Status      int       `json:"status,omitempty"` // 0 when no response arrived
	ResultID    string    `json:"result_id,omitempty"`
	Error       string    `json:"error,omitempty"`
	Reached     bool      `json:"reached_backend"` // the backend logged it
	// ProviderCalls is how many calls the provider behind the backend
	// received with this request's id (Backend.Config.Provider).
	ProviderCalls int `json:"provider_calls,omitempty"`
}

// HTTPMethod is the step's method: POST unless set.
func (s Step) HTTPMethod() string {
	if s.Method == "" {
		return http.MethodPost
	}
	return s.Method
}

// Route is the step's path without its query, as logs should name it.
func (s Step) Route() string {
	p, _, _ := strings.Cut(s.Path, "?")
	return p
}

// Plan is the traffic every proxy test sends: each way a request can end,
// keyed and unkeyed, and a retry under the same key.
func Plan() []Step {
	k1, k2, k3, k4, k5, k6, k7 := NewID(), NewID(), NewID(), NewID(), NewID(), NewID(), NewID()
	return []Step{
		{Name: "created", Key: k1, Path: "/v1/orders", End: EndCreated},
		{Name: "unkeyed", Path: "/v1/orders", End: EndCreated},
		{Name: "retry-1-timeout", Key: k2, Path: "/v1/orders?delay=1200ms", Timeout: 400 * time.Millisecond, End: EndClientTimeout},
		{Name: "retry-2-replayed", Key: k2, Path: "/v1/orders", End: EndCreated},
		{Name: "abort", Key: k3, Path: "/v1/orders?delay=1000ms", Abort: true, End: EndClientAbort},
		{Name: "server-error", Key: k4, Path: "/v1/orders?fail=500", End: EndServerError},
		{Name: "upstream-drop", Key: k5, Path: "/v1/orders?fail=drop", End: EndUpstreamDrop},
		{Name: "upstream-timeout", Key: k6, Path: "/v1/slow/orders?delay=1500ms", End: EndUpstreamTimeout},
		{Name: "upstream-refused", Key: k7, Path: "/v1/down/orders", End: EndRefused},
	}
}

// Drive sends the steps to base (http://host:port) one after the other,
// each with a new request id (or the one of the step it names in
// SameIDAs), and returns how each ended.
func Drive(ctx context.Context, base string, steps []Step) []Sent {
	out := make([]Sent, 0, len(steps))
	ids := map[string]string{}
	for _, st := range steps {
		rid := ids[st.SameIDAs]
		if rid == "" {
			rid = NewID()
		}
		s := SendAs(ctx, base, st, rid)
		ids[st.Name] = s.RequestID
		out = append(out, s)
	}
	return out
}

// Send sends one step as a JSON POST with its own X-Request-Id.
func Send(ctx context.Context, base string, st Step) Sent { return SendAs(ctx, base, st, NewID()) }

// SendAs is Send with the X-Request-Id rid.
func SendAs(ctx context.Context, base string, st Step, rid string) Sent {
	s := Sent{Step: st, RequestID: rid, Start: time.Now()}
	if st.Trace {
		s.RequestID = strings.ReplaceAll(NewID(), "-", "")
		s.TraceParent = "00-" + s.RequestID + "-" + strings.ReplaceAll(NewID(), "-", "")[:16] + "-01"
	}
	body := st.Payload()
	if st.Abort {
		s.Error = sendAndClose(base, st, s.RequestID, body)
		s.Finish = time.Now()
		return s
	}
	if st.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, st.Timeout)
		defer cancel()
	}
	var rd io.Reader
	if st.HTTPMethod() != http.MethodGet {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, st.HTTPMethod(), base+st.Path, rd)
	if err != nil {
		s.Error = err.Error()
		return s
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "idem-harness/1")
	if st.Trace {
		req.Header.Set("Traceparent", s.TraceParent)
	} else {
		req.Header.Set("X-Request-Id", s.RequestID)
	}
	if st.Key != "" {
		req.Header.Set("Idempotency-Key", st.Key)
	}
	for k, v := range st.Headers {
		req.Header.Set(k, v)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	s.Finish = time.Now()
	if err != nil {
		s.Error = errorKind(err)
		return s
	}
	defer resp.Body.Close()
	s.Status = resp.StatusCode
	var created struct {
		ID string `json:"id"`
	}
	if b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20)); err == nil && json.Unmarshal(b, &created) == nil {
		s.ResultID = created.ID
	}
	return s
}

// sendAndClose writes the request on a raw connection and closes it at
// once, as a client does that is killed or navigates away mid-request.
func sendAndClose(base string, st Step, rid, body string) string {
	addr := strings.TrimPrefix(base, "http://")
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return errorKind(err)
	}
	w := bufio.NewWriter(c)
	fmt.Fprintf(w, "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: idem-harness/1\r\nContent-Type: application/json\r\nX-Request-Id: %s\r\n", st.HTTPMethod(), st.Path, addr, rid)
	if st.Key != "" {
		fmt.Fprintf(w, "Idempotency-Key: %s\r\n", st.Key)
	}
	fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(body), body)
	if err := w.Flush(); err != nil {
		c.Close()
		return errorKind(err)
	}
	// Long enough for the proxy to have passed the request on.
	time.Sleep(300 * time.Millisecond)
	c.Close()
	return "aborted"
}

func errorKind(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "aborted"
	case strings.Contains(err.Error(), "connection refused"):
		return "refused"
	}
	return err.Error()
}
