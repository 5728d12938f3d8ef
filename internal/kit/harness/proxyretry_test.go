package harness

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/internal/kit/capture"
	"github.com/idem-cli/idem/load"
)

// A proxy's own retry: nginx in front of two instances of the order
// service, each with its own store (no shared, atomic key record), told to
// try the next upstream on a timeout even for a POST. The first instance
// records the order and then answers past nginx's read timeout; nginx
// sends the same request, same request id and key, to the second, which
// records another. The client sent once. What the harness saw (the
// instances' hits and orders) decides what idem must say.

// retryLog is nginx's JSON recipe with the three upstream lists beside
// $upstream_status, as a proxy that retries needs them logged.
const retryLog = `log_format idem escape=json '{"msec":"$msec","request_time":"$request_time","remote_addr":"$remote_addr",` +
	`"request_id":"$request_id","http_x_request_id":"$http_x_request_id","http_idempotency_key":"$http_idempotency_key",` +
	`"request_method":"$request_method","request_uri":"$request_uri","status":"$status","upstream_status":"$upstream_status",` +
	`"upstream_addr":"$upstream_addr","upstream_response_time":"$upstream_response_time"}';`

// proxyRetry runs one POST through nginx with nextUpstream over the two
// instances (the second a backup, so that the first is always tried
// first), and returns what was sent, the logs to read and nginx, stopped.
func proxyRetry(t *testing.T, nextUpstream string) (capture.Sent, *Backend, *Backend, []string, *capture.Proxy) {
	t.Helper()
	first := startBackendWith(t, backendConfig{Stall: 1500 * time.Millisecond})
	second := startBackendWith(t, backendConfig{FirstOrder: 101})
	p := capture.StartNginx(t, capture.NginxConfig{
		Logs: []capture.AccessLog{{File: recipeLog, Format: capture.LogFormat{Proxy: "nginx", Name: "idem", Def: retryLog}}},
		HTTP: func(port int) string {
			return fmt.Sprintf(`  proxy_http_version 1.1;
  upstream app {
    server %s;
    server %s backup;
  }
  server {
    listen 127.0.0.1:%d;
    location / {
      proxy_set_header X-Request-Id $request_id;
      proxy_next_upstream %s;
      proxy_read_timeout 1s;
      proxy_pass http://app;
    }
  }
`, first.Addr, second.Addr, port, nextUpstream)
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sent := capture.Send(ctx, capture.Request{Step: "charge", Base: p.URL, Path: "/v1/orders", Key: capture.NewID(),
		Body: `{"amount":4200,"currency":"EUR","customer":"cus_42"}`, Timeout: 10 * time.Second})
	// The first instance answers, late, after its stall: its line is
	// part of what happened.
	if _, err := capture.WaitFor(ctx, first.LogPath, "request completed"); err != nil {
		t.Fatal(err)
	}
	p.Stop()
	paths := []string{p.Log(recipeLog), first.LogPath, second.LogPath}
	for _, path := range paths {
		if b, err := os.ReadFile(path); err == nil {
			t.Logf("%s:\n%s", path, b)
		}
	}
	return sent, first, second, paths, p
}

func diagnoseFiles(t *testing.T, paths []string) *diagnose.Result {
	t.Helper()
	set, err := load.Files(context.Background(), paths, load.Options{Read: ingest.Options{}, Build: diagnose.DefaultOptions().Build()})
	if err != nil {
		t.Fatal(err)
	}
	res := diagnose.Run(set, diagnose.DefaultOptions())
	for _, f := range res.Findings {
		t.Logf("%s %s: %s", f.Severity, f.Rule.ID, f.Narrative)
	}
	return res
}

func TestProxyRetryNginx(t *testing.T) {
	sent, first, second, paths, p := proxyRetry(t, "error timeout non_idempotent")
	h1, h2 := first.Hits(), second.Hits()
	if len(h1) != 1 || len(h2) != 1 || h1[0].RequestID == "" || h1[0].RequestID != h2[0].RequestID || h1[0].Key != sent.Key ||
		h2[0].Key != sent.Key {
		t.Fatalf("nginx did not send the one request to both instances under one id and key: %+v, %+v", h1, h2)
	}
	o1, o2 := first.createdOrders(), second.createdOrders()
	if len(o1) != 1 || len(o2) != 1 || sent.Status != 201 || sent.ResultID != o2[0] {
		t.Fatalf("the traffic did not end as meant (orders %v, %v): %+v", o1, o2, sent)
	}
	rid := h1[0].RequestID
	var fired bool
	for _, f := range diagnoseFiles(t, paths).Findings {
		if !slices.Contains(f.Keys, sent.Key) {
			continue
		}
		switch f.Rule.ID {
		case "proxy-retry":
			fired = true
			if f.Severity != diagnose.Critical || !strings.Contains(f.Narrative, o1[0]) || !strings.Contains(f.Narrative, o2[0]) ||
				!strings.Contains(f.Narrative, rid) {
				t.Errorf("%s's two orders (%s, %s) told as %s: %s", rid, o1[0], o2[0], f.Severity, f.Narrative)
			}
		case "request-id-reused":
			t.Errorf("nginx's own retry of %s blamed on the client: %s", rid, f.Narrative)
		}
	}
	if !fired {
		t.Errorf("nginx sent %s to two instances, which made %s and %s: proxy-retry did not fire", rid, o1[0], o2[0])
	}
	keepProxyRetry(t, "proxy-retry-nginx", "nginx", true, p, recipeLog, sent, first, second)
}

// Without non_idempotent nginx does not pass a POST on to the next
// upstream: the client gets the 504 and the one instance's order.
func TestProxyRetryNginxNotForPOST(t *testing.T) {
	sent, first, second, paths, p := proxyRetry(t, "error timeout")
	if len(first.Hits()) != 1 || len(second.Hits()) != 0 || len(first.createdOrders()) != 1 || sent.Status != 504 {
		t.Fatalf("nginx did not stop at the first instance: hits %+v, %+v; %+v", first.Hits(), second.Hits(), sent)
	}
	for _, f := range diagnoseFiles(t, paths).Findings {
		if f.Rule.ID == "proxy-retry" {
			t.Errorf("proxy-retry fired where nginx tried one upstream: %s", f.Narrative)
		}
	}
	keepProxyRetry(t, "proxy-retry-nginx-not-for-post", "nginx", true, p, recipeLog, sent, first, second)
}
