package capture

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The headers the kit's client speaks to a capture's backend.
// HeaderStep names the step in the backend's ledger; HeaderDelay is how
// long the backend works before its effect (how a lost response is made).
const (
	HeaderStep  = "X-Harness-Step"
	HeaderDelay = "X-Harness-Delay-Ms"
)

// Request is one request for Send to make.
type Request struct {
	Step   string
	Layer  string // what sends it: "client" unless set
	Method string // POST unless set
	Base   string // http://host:port
	Path   string // with its query
	// KeyHeader names the key's header: Idempotency-Key unless set.
	KeyHeader string
	Key       string // "" sends no key
	RequestID string // "" sends no X-Request-Id
	// TraceParent, when set, is sent as the W3C traceparent header.
	TraceParent string
	Body        string // not sent with a GET
	Headers     map[string]string
	// UserAgent is sent as the User-Agent (not recorded); Go's own unless
	// set.
	UserAgent string
	// Delay asks the backend to work that long first (HeaderDelay).
	Delay time.Duration
	// Timeout is how long the client waits for the response; none when 0.
	Timeout time.Duration
	// Abort closes the connection 300 ms after the request is written, as
	// a client does that is killed or navigates away mid-request.
	Abort bool
	// Client sends it (a user of its own, with its own source address);
	// nil makes a new connection for the request.
	Client *http.Client
	// Meant is recorded as Sent.Meant.
	Meant string
}

// Send makes the request and records it: what went out, and how it ended
// for the client. It never fails the test: an error is in Sent.Ended and
// Sent.Error, for the harness to judge.
func Send(ctx context.Context, r Request) Sent {
	method := r.Method
	if method == "" {
		method = http.MethodPost
	}
	s := Sent{Step: r.Step, Layer: r.Layer, Method: r.Method, Path: r.Path, RequestID: r.RequestID, TraceParent: r.TraceParent,
		Key: r.Key, Headers: r.Headers, Delay: r.Delay, Timeout: r.Timeout, Meant: r.Meant}
	if s.Layer == "" {
		s.Layer = "client"
	}
	if method != http.MethodGet {
		s.Body = r.Body
	}
	if r.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.Timeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, method, r.Base+r.Path, strings.NewReader(s.Body))
	if err != nil {
		s.Ended, s.Error = endedError, err.Error()
		return s
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(HeaderStep, r.Step)
	if r.Delay > 0 {
		req.Header.Set(HeaderDelay, strconv.FormatInt(r.Delay.Milliseconds(), 10))
	}
	if r.RequestID != "" {
		req.Header.Set("X-Request-Id", r.RequestID)
	}
	if r.TraceParent != "" {
		req.Header.Set("Traceparent", r.TraceParent)
	}
	if r.Key != "" {
		kh := r.KeyHeader
		if kh == "" {
			kh = "Idempotency-Key"
		}
		req.Header.Set(kh, r.Key)
	}
	if r.UserAgent != "" {
		req.Header.Set("User-Agent", r.UserAgent)
	}
	for k, v := range r.Headers {
		req.Header.Set(k, v)
	}
	s.Start = time.Now()
	if r.Abort {
		s.Error = sendAndClose(req)
		s.End, s.Ended = time.Now(), EndedOf(0, s.Error)
		return s
	}
	client := r.Client
	if client == nil {
		// A fresh connection per request: a timed-out request must not
		// leave the next one behind a dead keep-alive connection.
		client = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	}
	resp, err := client.Do(req)
	if err != nil {
		s.End, s.Error = time.Now(), errorKind(err)
		s.Ended = EndedOf(0, s.Error)
		return s
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	s.End, s.Status = time.Now(), resp.StatusCode
	if err != nil {
		s.Error = errorKind(err)
		s.Ended = EndedOf(0, s.Error)
		return s
	}
	s.Ended = EndedResponse
	s.Response = strings.TrimSpace(string(b[:min(len(b), 512)]))
	s.Replayed = strings.EqualFold(resp.Header.Get("Idempotent-Replayed"), "true")
	s.ResponseRequestID = resp.Header.Get("X-Request-Id")
	if s.ResponseRequestID == "" {
		s.ResponseRequestID = resp.Header.Get("Request-Id")
	}
	var created struct {
		ID      string `json:"id"`
		OrderID string `json:"order_id"`
	}
	if json.Unmarshal(b, &created) == nil {
		s.ResultID = cmp.Or(created.ID, created.OrderID)
	}
	return s
}

// sendAndClose writes the request on a raw connection and closes it soon
// after, before any answer.
func sendAndClose(req *http.Request) string {
	c, err := net.DialTimeout("tcp", req.URL.Host, 2*time.Second)
	if err != nil {
		return errorKind(err)
	}
	if err := req.Write(c); err != nil {
		c.Close()
		return errorKind(err)
	}
	// Long enough for the proxy to have passed the request on.
	time.Sleep(300 * time.Millisecond)
	c.Close()
	return string(EndedAborted)
}

// errorKind is how the client's error reads in a record: timeout,
// aborted, refused, or the error itself.
func errorKind(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return string(EndedTimeout)
	case errors.Is(err, context.Canceled):
		return string(EndedAborted)
	case strings.Contains(err.Error(), "connection refused"):
		return string(endedRefused)
	}
	return err.Error()
}
