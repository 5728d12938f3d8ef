package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/internal/kit/capture"
)

// HAProxy's own retry, as nginx's in proxyretry_test.go: two instances of
// the order service, each with its own store, the first recording the
// order and then answering past the backend's timeout server. With
// retry-on all-retryable-errors (which holds response-timeout) HAProxy
// sends the same POST again; option redispatch sends it to the other
// instance (balance roundrobin: the first request goes to app1, the
// redispatched one to the next). Without redispatch the retry goes back
// to app1, whose store replays the order: no second effect.
//
// HAProxy 2.6 retried this POST without option http-buffer-request: its
// small body came with the headers and was still in HAProxy's buffer. A
// 100 kB body, past the buffer (tune.bufsize, 16 kB by default), is not
// retried, with option http-buffer-request or without
// (TestProxyRetryHAProxyNotForLargeBody).
//
// The frontend gives each request an id (unique-id-format) and passes it
// on as X-Request-Id, and captures it and the key in that order, as
// formats/haproxy.go's recipe says. The retry is on the line: %rc, the
// retries, "+1" where the last went to another server.

// haproxyRetryRoutes is the frontend's id and captures, and the backend
// of the two instances, app1 (%[1]s) and app2 (%[2]s), with the retry
// policy %[3]s.
const haproxyRetryRoutes = `  unique-id-format %%[uuid()]
  http-request set-header X-Request-Id %%[unique-id]
  http-request capture req.hdr(X-Request-Id) len 64
  http-request capture req.hdr(Idempotency-Key) len 128
  default_backend app

backend app
  balance roundrobin
  timeout server 1s
%[3]s
  server app1 %[1]s
  server app2 %[2]s
`

// haproxyRetry runs one POST through HAProxy with the retry policy and
// returns what was sent, the two instances and HAProxy, stopped.
func haproxyRetry(t *testing.T, policy string) (capture.Sent, *Backend, *Backend, *capture.Proxy) {
	t.Helper()
	return haproxyRetryBody(t, policy, `{"amount":4200,"currency":"EUR","customer":"cus_42"}`)
}

// haproxyRetryBody is haproxyRetry with the POST's body.
func haproxyRetryBody(t *testing.T, policy, body string) (capture.Sent, *Backend, *Backend, *capture.Proxy) {
	t.Helper()
	first := startBackendWith(t, backendConfig{Stall: 1500 * time.Millisecond})
	second := startBackendWith(t, backendConfig{FirstOrder: 101})
	p := capture.StartHAProxy(t, capture.HAProxyConfig{
		Log:    capture.AccessLog{File: haProxyLog, Format: capture.HAProxyHTTPLog},
		Routes: fmt.Sprintf(haproxyRetryRoutes, first.Addr, second.Addr, policy),
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sent := capture.Send(ctx, capture.Request{Step: "charge", Base: p.URL, Path: "/v1/orders", Key: capture.NewID(),
		Body: body, Timeout: 10 * time.Second})
	// The first instance answers, late, after its stall; HAProxy writes
	// its line when the client has its answer, the id captured on it.
	if err := waitStallAnswered(ctx, first); err != nil {
		t.Fatal(err)
	}
	if _, err := capture.WaitFor(ctx, p.Log(haProxyLog), sent.Key); err != nil {
		t.Fatal(err)
	}
	p.Stop()
	return sent, first, second, p
}

// waitStallAnswered waits until b logged the answer it stalled: its line
// is part of what happened, and comes after the proxy gave up on it (a
// replay of the key, answered at once, may come before).
func waitStallAnswered(ctx context.Context, b *Backend) error {
	for {
		lines, err := capture.ReadLines(b.LogPath)
		for _, l := range lines {
			var line struct {
				Msg        string `json:"msg"`
				DurationMS int64  `json:"duration_ms"`
			}
			if json.Unmarshal([]byte(l), &line) == nil && line.Msg == "request completed" && line.DurationMS >= b.Config.Stall.Milliseconds() {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: no answer after the stall (%v): %w", b.LogPath, err, ctx.Err())
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// checkBothInstances fails t unless the proxy sent the client's one
// request to both instances, under one request id and its key, each
// making an order, and the client got status (the second instance's
// order where it is a 201).
func checkBothInstances(t *testing.T, proxy string, status int, sent capture.Sent, first, second *Backend) {
	t.Helper()
	h1, h2 := first.Hits(), second.Hits()
	if len(h1) != 1 || len(h2) != 1 || h1[0].RequestID == "" || h1[0].RequestID != h2[0].RequestID || h1[0].Key != sent.Key ||
		h2[0].Key != sent.Key {
		t.Fatalf("%s did not send the one request to both instances under one id and key: %+v, %+v", proxy, h1, h2)
	}
	o1, o2 := first.createdOrders(), second.createdOrders()
	if len(o1) != 1 || len(o2) != 1 || sent.Status != status || (status == http.StatusCreated && sent.ResultID != o2[0]) {
		t.Fatalf("the traffic did not end as meant (orders %v, %v): %+v", o1, o2, sent)
	}
}

// checkFirstOnly fails t unless the proxy stopped at the first instance:
// one hit, one order, the client got the 504.
func checkFirstOnly(t *testing.T, proxy string, sent capture.Sent, first, second *Backend) {
	t.Helper()
	if len(first.Hits()) != 1 || len(second.Hits()) != 0 || len(first.createdOrders()) != 1 || sent.Status != http.StatusGatewayTimeout {
		t.Fatalf("%s did not stop at the first instance: hits %+v, %+v; %+v", proxy, first.Hits(), second.Hits(), sent)
	}
}

// The retry reaches the second instance, which makes a second order:
// proxy-retry is critical (proxyretry_kept_test.go's verifyProxyRetry).
func TestProxyRetryHAProxy(t *testing.T) {
	sent, first, second, p := haproxyRetry(t, "  retries 1\n  option redispatch\n  retry-on all-retryable-errors")
	checkBothInstances(t, "HAProxy", http.StatusCreated, sent, first, second)
	keepProxyRetry(t, "proxy-retry-haproxy", "HAProxy", true, p, haProxyLog, sent, first, second)
}

// retry-on conn-failure (HAProxy's default) retries only a connection
// that failed: a response timeout is the client's 504, and the one order.
func TestProxyRetryHAProxyConnFailureOnly(t *testing.T) {
	sent, first, second, p := haproxyRetry(t, "  retries 1\n  option redispatch\n  retry-on conn-failure")
	checkFirstOnly(t, "HAProxy", sent, first, second)
	keepProxyRetry(t, "proxy-retry-haproxy-conn-failure", "HAProxy", true, p, haProxyLog, sent, first, second)
}

// Without option redispatch HAProxy retries on the same instance, whose
// own store replays the order: the server was reached twice and made one
// effect. The line's retries say HAProxy resent it; nothing proves a
// second effect, and there was none: a warning, not a critical.
func TestProxyRetryHAProxySameServer(t *testing.T) {
	sent, first, second, p := haproxyRetry(t, "  retries 1\n  retry-on all-retryable-errors")
	h1 := first.Hits()
	if len(h1) != 2 || len(second.Hits()) != 0 || h1[0].RequestID == "" || h1[0] != h1[1] || h1[0].Key != sent.Key {
		t.Fatalf("HAProxy did not resend the one request to the first instance: %+v, %+v", h1, second.Hits())
	}
	if o := first.createdOrders(); len(o) != 1 || sent.Status != http.StatusCreated || sent.ResultID != o[0] || !sent.Replayed {
		t.Fatalf("the traffic did not end as meant (orders %v): %+v", o, sent)
	}
	keepProxyRetry(t, "proxy-retry-haproxy-same-server", "HAProxy", true, p, haProxyLog, sent, first, second)
}

// A body larger than HAProxy's buffer is not kept for a retry: with the
// policy that resends the small POST above, and with option
// http-buffer-request too, the client gets the 504 and the one order.
// (Not kept as a capture: its record would hold the 100 kB body.)
func TestProxyRetryHAProxyNotForLargeBody(t *testing.T) {
	body := `{"amount":4200,"currency":"EUR","note":"` + strings.Repeat("x", 100_000) + `"}`
	for _, buffer := range []string{"", "  option http-buffer-request\n"} {
		t.Run(strings.TrimSpace(buffer), func(t *testing.T) {
			sent, first, second, p := haproxyRetryBody(t, "  retries 1\n  option redispatch\n"+buffer+"  retry-on all-retryable-errors", body)
			checkFirstOnly(t, "HAProxy", sent, first, second)
			if h := first.Hits(); h[0].BodyBytes != len(body) {
				t.Fatalf("the first instance read %d bytes of a %d-byte body", h[0].BodyBytes, len(body))
			}
			for _, f := range diagnoseFiles(t, []string{p.Log(haProxyLog), first.LogPath, second.LogPath}).Findings {
				if f.Rule.ID == "proxy-retry" {
					t.Errorf("proxy-retry fired where HAProxy tried one upstream: %s", f.Narrative)
				}
			}
		})
	}
}
