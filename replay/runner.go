package replay

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/idem-cli/idem/redact"
)

// runner sends a plan's requests, each once on a connection of its own,
// and says whether their answers reached the idempotency layer.
type runner struct {
	client     *http.Client
	opts       Options
	resultPath string
	plan       *Plan
	// contractSeen is set by the first answer from the idempotency layer:
	// after it, a 5xx is the server's answer, not an upstream down.
	contractSeen bool
	// reason is the first inconclusive step's.
	reason *Reason
}

func newRunner(opts Options, resultPath string) *runner {
	tr := &http.Transport{
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: opts.Insecure}, //nolint:gosec // only with --insecure
		MaxConnsPerHost:     MaxConcurrency,
		DisableCompression:  true,
		TLSHandshakeTimeout: opts.Timeout,
		// net/http retries a request that carries an Idempotency-Key when a
		// reused connection fails. A replay must send each request exactly
		// once, so connections are never reused (and GetBody is cleared).
		DisableKeepAlives: true,
	}
	return &runner{opts: opts, resultPath: resultPath, client: &http.Client{
		Transport: tr,
		Timeout:   opts.Timeout,
		// Never follow a redirect: a replay goes to the target and nowhere else.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// response is one answer, or the error that came instead.
type response struct {
	status int
	header http.Header
	body   []byte
	err    error
}

// unreachable reports whether err means the target could not be reached at
// all (exit 2), as opposed to a server that took the request and gave no
// answer (an observation the assertions report).
func unreachable(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// statusText is a response's status for reports: "no response (EOF)".
func (resp response) statusText() string {
	if resp.err != nil {
		msg := resp.err.Error()
		var ue *url.Error
		if errors.As(resp.err, &ue) {
			msg = ue.Err.Error()
		}
		return "no response (" + msg + ")"
	}
	return fmt.Sprint(resp.status)
}

// send sends req once and reads up to 1 MiB of its answer.
func (r *runner) send(ctx context.Context, req *request) response {
	hr, err := http.NewRequestWithContext(ctx, req.Method, req.URL, bytes.NewReader(req.Body))
	if err != nil {
		return response{err: err}
	}
	hr.Header = req.Header.Clone()
	hr.GetBody = nil // no transparent resend
	resp, err := r.client.Do(hr)
	if err != nil {
		return response{err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return response{status: resp.StatusCode, header: resp.Header, body: body, err: err}
}

// networkError is a request that got no answer at all; it exits 2.
type networkError struct{ Err error }

func (e *networkError) Error() string { return "network error: " + e.Err.Error() }
func (e *networkError) Unwrap() error { return e.Err }

// testsNothing says why an answer came from before the idempotency layer
// (nil when it did not): the target refused the connection, or answered
// for credentials, a route, a rate limit or an upstream that is down. An
// answer the step expects (want) is never one.
func (r *runner) testsNothing(resp response, want int) *Reason {
	if resp.err != nil {
		if unreachable(resp.err) {
			return &Reason{Kind: ReasonUnreachable, Error: resp.statusText()}
		}
		return nil
	}
	if want != 0 && resp.status == want {
		return nil
	}
	if resp.status >= 300 && resp.status < 400 {
		// An edge's http→https or trailing-slash redirect: the request
		// never reached the idempotency layer, and is not followed.
		return &Reason{Kind: reasonRedirect, Status: resp.status, Location: redact.String(resp.header.Get("Location"))}
	}
	switch resp.status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusProxyAuthRequired:
		return &Reason{Kind: ReasonCredentials, Status: resp.status, Dropped: r.plan.Base.Dropped}
	case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusMisdirectedRequest:
		return &Reason{Kind: ReasonRoute, Status: resp.status}
	case http.StatusTooManyRequests:
		return &Reason{Kind: ReasonRateLimited, Status: resp.status}
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		if !r.contractSeen {
			return &Reason{Kind: ReasonUnavailable, Status: resp.status}
		}
	}
	return nil
}

// check classifies an answer: it returns the inconclusive assertion when
// the answer tests nothing, and otherwise notes that the contract answered.
func (r *runner) check(probe string, resp response, want int) (Assertion, bool) {
	if why := r.testsNothing(resp, want); why != nil {
		why.Probe = probe
		if r.reason == nil {
			r.reason = why
		}
		text := reasonText[why.Kind]
		if why.Kind == reasonRedirect {
			text += " to " + orNone(why.Location) + ", not followed: point --target where it redirects"
		}
		return Assertion{Name: "reached the contract", Status: Inconclusive, Expected: "an answer from the idempotency layer",
			Actual: resp.statusText() + " (" + text + ")"}, true
	}
	if resp.err == nil {
		r.contractSeen = true
	}
	return Assertion{}, false
}

// marker checks the replay marker: required, it must be there; otherwise
// its absence is information (the IETF draft defines none, and
// express-idempotency or Fiber send none).
func (r *runner) marker(resp response) Assertion {
	h := r.opts.Profile.Replayed
	got := resp.header.Get(h)
	a := Assertion{Name: "replay marker " + h, Expected: "true", Actual: orNone(got), Status: passIf(strings.EqualFold(got, "true"))}
	if a.Status != Pass && !r.opts.RequireMarker {
		a.Status = Info
		a.Expected = "true (optional: the profile does not require it)"
	}
	return a
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func statusAssert(name string, want int, resp response) Assertion {
	return Assertion{Name: name, Expected: fmt.Sprint(want), Actual: resp.statusText(), Status: passIf(resp.err == nil && resp.status == want)}
}

// idOf reads a response's result id, skipping echoes of the key and of
// the request id it was sent with.
func (r *runner) idOf(resp response, req *request) string {
	return resultID(resp.body, r.resultPath, req.URL, req.Key, req.Header.Get(r.ridHeader()))
}

func (r *runner) ridHeader() string {
	if r.opts.RequestIDHeader != "" {
		return r.opts.RequestIDHeader
	}
	return "X-Request-Id"
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// refused sends a request the contract says must be refused: it checks
// the refusal's status and that no effect was made.
func (r *runner) refused(ctx context.Context, s *step, name string, status int) ([]Assertion, error) {
	effects, err := r.effectCheck(ctx)
	if err != nil {
		return nil, err
	}
	resp := r.send(ctx, s.Requests[0])
	if a, stop := r.check(s.Probe, resp, status); stop {
		return effects([]Assertion{a}, "no new effect", 0)
	}
	out := []Assertion{statusAssert(name, status, resp)}
	return effects(out, "no new effect", 0)
}
