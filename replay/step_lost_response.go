package replay

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"
)

// lostResponseStep sends under the fresh key k, drops the answer, then
// sends again.
func lostResponseStep(base *request, opts Options, k string) *step {
	return &step{Probe: probeLostResponse, Requests: []*request{base.clone(opts, k, base.Body), base.clone(opts, k, base.Body)}, run: runLostResponse,
		Note: fmt.Sprintf("send under the fresh key %s and drop the connection before the response, then replay: expect the stored result and one effect", k)}
}

// runLostResponse drops the first answer, then asks again while the
// answer is "in progress": a correct server returns what it stored, and
// made one effect.
func runLostResponse(ctx context.Context, r *runner, s *step) ([]Assertion, error) {
	effects, err := r.effectCheck(ctx)
	if err != nil {
		return nil, err
	}
	if err := r.sendAndDrop(ctx, s.Requests[0]); err != nil {
		if unreachable(err) {
			a, _ := r.check(s.Probe, response{err: err}, 0)
			return []Assertion{a}, nil
		}
		return nil, &networkError{Err: err}
	}
	select {
	case <-time.After(r.opts.Settle):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	// A correct client that is told "in progress" waits and asks again
	// with the same key; so does the probe, within --timeout.
	deadline := time.Now().Add(r.opts.Timeout)
	req := s.Requests[1]
	resp := r.send(ctx, req)
	for resp.err == nil && resp.status == r.opts.Profile.InProgress && time.Now().Before(deadline) {
		wait := retryAfter(resp.header.Get("Retry-After"))
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		req = req.clone(r.opts, req.Key, req.Body)
		resp = r.send(ctx, req)
	}
	if a, stop := r.check(s.Probe, resp, r.opts.Profile.InProgress); stop {
		return []Assertion{a}, nil
	}
	var out []Assertion
	if resp.err == nil && resp.status == r.opts.Profile.InProgress {
		out = append(out, Assertion{Name: "replay after the lost response", Status: Skip, Expected: "2xx",
			Actual: fmt.Sprintf("%d: still in progress after %s (raise the timeout)", resp.status, r.opts.Timeout)})
		return out, nil
	}
	ok := resp.err == nil && resp.status >= 200 && resp.status < 300
	out = append(out, Assertion{Name: "replay after the lost response", Expected: "2xx", Actual: resp.statusText(), Status: passIf(ok)})
	if id := r.idOf(resp, req); id != "" || !ok {
		out = append(out, Assertion{Name: "result id present", Expected: "an id", Actual: orNone(id), Status: passIf(id != "")})
	} else {
		out = append(out, Assertion{Name: "result id present", Status: Info, Expected: "an id", Actual: "(none: the body has no id field)"})
	}
	if r.opts.Profile.Replayed != "" {
		out = append(out, r.marker(resp))
	}
	return effects(out, "exactly one effect", 1)
}

// sendAndDrop writes the request on its own connection and closes it
// without reading a byte of the response: a response lost on the way back.
func (r *runner) sendAndDrop(ctx context.Context, req *request) error {
	u, err := url.Parse(req.URL)
	if err != nil {
		return err
	}
	hr, err := http.NewRequestWithContext(ctx, req.Method, req.URL, bytes.NewReader(req.Body))
	if err != nil {
		return err
	}
	hr.Header = req.Header.Clone()
	hr.Close = true
	host := u.Host
	if u.Port() == "" {
		if u.Scheme == "https" {
			host += ":443"
		} else {
			host += ":80"
		}
	}
	d := &net.Dialer{Timeout: r.opts.Timeout}
	var conn net.Conn
	if u.Scheme == "https" {
		conn, err = tls.DialWithDialer(d, "tcp", host, &tls.Config{InsecureSkipVerify: r.opts.Insecure, ServerName: u.Hostname()}) //nolint:gosec // only with --insecure
	} else {
		conn, err = d.DialContext(ctx, "tcp", host)
	}
	if err != nil {
		return err
	}
	w := bufio.NewWriter(conn)
	if err := hr.Write(w); err != nil {
		conn.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		conn.Close()
		return err
	}
	// Give the server the request, then go away.
	time.Sleep(20 * time.Millisecond)
	return conn.Close()
}

// retryAfter reads a Retry-After of whole seconds, bounded to keep probes
// short; without one it waits a little.
func retryAfter(v string) time.Duration {
	var n int
	if _, err := fmt.Sscanf(v, "%d", &n); err == nil && n >= 0 {
		if n > 5 {
			n = 5
		}
		if n == 0 {
			return 100 * time.Millisecond
		}
		return time.Duration(n) * time.Second
	}
	return 200 * time.Millisecond
}
