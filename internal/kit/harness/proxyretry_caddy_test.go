package harness

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/idem-cli/idem/internal/kit/capture"
)

// Caddy's own retry, as nginx's in proxyretry_test.go: reverse_proxy over
// two instances of the order service, each with its own store, the first
// recording the order and then answering past response_header_timeout.
// lb_policy first sends the request to the first; max_fails 1 within
// fail_duration marks it down on that timeout (without it, lb_policy
// first picks the same instance again, whose store replays), and
// lb_retries 1 sends it to the second.
//
// What Caddy 2.6.2 (Debian bookworm's) does, established by these
// captures:
//   - Without lb_retry_match Caddy does not retry a POST once it was
//     written to an upstream (only a dial error is retried): the client
//     gets the 504 and the one order (TestProxyRetryCaddyNotForPOST).
//     The Caddyfile's subdirective is lb_retry_match, not retry_match.
//   - With lb_retry_match { method POST } it resends the request, same
//     headers (Content-Length too), same X-Request-Id and key, but
//     without its body: the first attempt's transport closed it, and
//     buffer_requests does not keep it for the retry (request_buffers is
//     not in this version). The second instance reads an empty body, and
//     the client gets a 502, Caddy's error log saying "readfrom ...:
//     http: invalid Read on closed Body". A server that refuses an empty
//     body makes no second effect; this order service takes it, and
//     makes a second order.
//
// Caddy's JSON access log counts no attempts and logs the request headers
// as they came, without the id it made: header X-Request-Id puts
// {http.request.uuid} on the response, where the log has it, and
// request_header puts the same id on the request passed on. The retry is
// seen through the server's two effects under that one id, both begun
// while Caddy's one line waited.

// caddyRetryRoutes is a site's id and its reverse_proxy over app1 (%[1]s)
// and app2 (%[2]s), with the retry policy %[3]s.
const caddyRetryRoutes = `	request_header X-Request-Id {http.request.uuid}
	header X-Request-Id {http.request.uuid}
	reverse_proxy %[1]s %[2]s {
		lb_policy first
		fail_duration 10s
		max_fails 1
		lb_retries 1
%[3]s
		transport http {
			response_header_timeout 1s
		}
	}
`

// caddyRetryBody is the client's body.
const caddyRetryBody = `{"amount":4200,"currency":"EUR","customer":"cus_42"}`

// caddyRetry runs one POST through Caddy with the retry policy and
// returns what was sent, the two instances and Caddy, stopped.
func caddyRetry(t *testing.T, policy string) (capture.Sent, *Backend, *Backend, *capture.Proxy) {
	t.Helper()
	first := startBackendWith(t, backendConfig{Stall: 1500 * time.Millisecond})
	second := startBackendWith(t, backendConfig{FirstOrder: 101})
	p := capture.StartCaddy(t, capture.CaddyConfig{
		Log:    capture.AccessLog{File: caddyLog, Format: capture.CaddyJSON},
		Routes: fmt.Sprintf(caddyRetryRoutes, first.Addr, second.Addr, policy),
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sent := capture.Send(ctx, capture.Request{Step: "charge", Base: p.URL, Path: "/v1/orders", Key: capture.NewID(),
		Body: caddyRetryBody, Timeout: 10 * time.Second})
	if err := waitStallAnswered(ctx, first); err != nil {
		t.Fatal(err)
	}
	if _, err := capture.WaitFor(ctx, p.Log(caddyLog), sent.Key); err != nil {
		t.Fatal(err)
	}
	p.Stop()
	return sent, first, second, p
}

// The retry reaches the second instance, which makes a second order:
// proxy-retry is critical, from the two effects under the one id.
func TestProxyRetryCaddy(t *testing.T) {
	sent, first, second, p := caddyRetry(t, "\t\tlb_retry_match {\n\t\t\tmethod POST\n\t\t}")
	h1, h2 := first.Hits(), second.Hits()
	if len(h1) != 1 || len(h2) != 1 {
		t.Fatalf("Caddy did not send the request to both instances: %+v, %+v", h1, h2)
	}
	// The client gets the second instance's 201 where Caddy resent the
	// body; a 502 where, as 2.6.2 does, it resent the request without it.
	status := http.StatusCreated
	switch h2[0].BodyBytes {
	case len(caddyRetryBody):
	case 0:
		status = http.StatusBadGateway
		t.Logf("Caddy resent the POST without its body (%d bytes at the first instance, none at the second)", h1[0].BodyBytes)
	default:
		t.Fatalf("Caddy resent %d bytes of a %d-byte body", h2[0].BodyBytes, len(caddyRetryBody))
	}
	if h1[0].BodyBytes != len(caddyRetryBody) {
		t.Fatalf("the first instance read %d bytes of a %d-byte body", h1[0].BodyBytes, len(caddyRetryBody))
	}
	checkBothInstances(t, "Caddy", status, sent, first, second)
	keepProxyRetry(t, "proxy-retry-caddy", "Caddy", false, p, caddyLog, sent, first, second)
}

// Without lb_retry_match Caddy does not resend a POST it wrote to an
// upstream: the client gets the 504 and the one order.
func TestProxyRetryCaddyNotForPOST(t *testing.T) {
	sent, first, second, p := caddyRetry(t, "")
	checkFirstOnly(t, "Caddy", sent, first, second)
	keepProxyRetry(t, "proxy-retry-caddy-not-for-post", "Caddy", false, p, caddyLog, sent, first, second)
}
