package harness

import (
	"context"
	"flag"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/internal/kit/capture"
)

var update = flag.Bool("update", false, "rewrite the recorded captures under fixtures/real from this run")

// realDir is where recorded captures live, from this package's directory.
var realDir = filepath.Join("..", "..", "..", "fixtures", "real")

// drive sends the plan through base, waits until the backend has finished
// with every request it received (the slow ones end after the client has
// gone) and says which reached it.
func drive(t *testing.T, base string, b *Backend, plan []Step) []capture.Sent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sent := Drive(ctx, base, plan)
	var received []string
	for _, h := range b.Hits() {
		received = append(received, h.RequestID)
	}
	if _, err := capture.WaitFor(ctx, b.LogPath, received...); err != nil {
		t.Fatal(err)
	}
	for i := range sent {
		sent[i].Reached = b.Received(sent[i].RequestID)
		t.Logf("sent %-17s %s %-32s -> status %d %s (%s) backend=%v", sent[i].Step, sent[i].RequestID, sent[i].Path,
			sent[i].Status, sent[i].Error, sent[i].Elapsed().Round(time.Millisecond), sent[i].Reached)
	}
	checkHarness(t, sent)
	return sent
}

// checkHarness makes sure each request ended the way the harness meant it
// to, from the client's side and the backend's: otherwise the expectations
// derived from the plan would be wrong, whatever idem reads.
func checkHarness(t *testing.T, sent []capture.Sent) {
	t.Helper()
	for _, s := range sent {
		ok := true
		switch EndOf(s) {
		case EndCreated:
			ok = s.Status == 201 && s.ResultID != "" && s.Reached
		case endReplay200:
			ok = s.Status == 200 && s.ResultID != "" && s.Reached
		case EndServerError:
			ok = s.Status == 500 && s.Reached
		case EndClientTimeout:
			ok = s.Ended == capture.EndedTimeout && s.Reached
		case endClientAbort:
			ok = s.Ended == capture.EndedAborted && s.Reached
		case EndUpstreamDrop:
			ok = s.Status == 502 && s.Reached
		case endUpstreamTimeout:
			ok = s.Status == 504 && s.Reached
		case EndRefused:
			ok = s.Status >= 502 && s.Status <= 503 && !s.Reached
		}
		if !ok {
			t.Fatalf("step %s did not end as %s: status %d, error %q, reached the backend %v", s.Step, s.Meant, s.Status, s.Error, s.Reached)
		}
	}
}

// keep saves the run with its logs (name in the folder → where the
// software wrote it) and the config it ran (as configName, unless empty),
// checks it with verify, and with -update records it as fixtures/real/name.
func keep(t *testing.T, name string, run run, logs map[string]string, config, configName string,
	verify func(*testing.T, string, run)) {
	t.Helper()
	f := run.folder(logs)
	if configName != "" {
		f.Texts = map[string]string{configName: config}
	}
	f.Keep(t, filepath.Join(realDir, name), *update, func(t *testing.T, dir string) { verify(t, dir, run) })
}

// keepProxyRun is keep with the proxy checks.
func keepProxyRun(t *testing.T, name string, run run, logs map[string]string, p *capture.Proxy) {
	t.Helper()
	keep(t, name, run, logs, p.Config(), p.ConfigName(), verifyProxyRun)
}

func TestNginx(t *testing.T) {
	b := StartBackend(t)
	n := startNginx(t, b.Addr, Down(t))
	sent := drive(t, n.URL, b, trafficPlan())
	logs := n.Logs()
	capture.WaitLogged(t, sent, logs[nginxJSONLog], logs[nginxCombinedLog], logs[nginxIngressLog], logs[nginxVHostLog])
	n.Stop()
	run := run{
		Software: n.Software(), BackendLog: "app.jsonl", Sent: sent,
		Logs: []runLog{
			{File: nginxJSONLog, Capture: "nginx-json", Format: "nginx", Proxy: "nginx"},
			{File: nginxCombinedLog, Capture: "nginx-combined", Format: "combined", Proxy: "nginx"},
			{File: nginxIngressLog, Capture: "ingress-nginx", Proxy: "nginx", NoKey: true},
			{File: nginxVHostLog, Capture: "nginx-vhost", Proxy: "nginx"},
		},
	}
	logs["app.jsonl"] = b.LogPath
	keepProxyRun(t, "nginx", run, logs, n)
}

func TestHAProxy(t *testing.T) {
	for _, tc := range []struct {
		name     string
		captures []string
	}{
		// The order formats/haproxy.go documents.
		{"rid-first", []string{"X-Request-Id", "Idempotency-Key"}},
		// The usual first captures, before the ids.
		{"host-first", []string{"Host", "User-Agent", "X-Request-Id", "Idempotency-Key"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := StartBackend(t)
			h := startHAProxy(t, b.Addr, Down(t), tc.captures...)
			sent := drive(t, h.URL, b, trafficPlan())
			capture.WaitLogged(t, sent, h.Log(haProxyLog))
			run := run{
				Software: h.Software(), BackendLog: "app.jsonl", Sent: sent,
				Logs: []runLog{{File: haProxyLog, Capture: "haproxy-" + tc.name, Format: "haproxy", Proxy: "haproxy"}},
			}
			keepProxyRun(t, filepath.Join("haproxy", tc.name), run, map[string]string{haProxyLog: h.Log(haProxyLog), "app.jsonl": b.LogPath}, h)
		})
	}
}

func TestCaddy(t *testing.T) {
	b := StartBackend(t)
	c := startCaddy(t, b.Addr, Down(t))
	sent := drive(t, c.URL, b, trafficPlan())
	capture.WaitLogged(t, sent, c.Log(caddyLog))
	run := run{
		Software: c.Software(), BackendLog: "app.jsonl", Sent: sent,
		Logs: []runLog{{File: caddyLog, Capture: "caddy", Format: "caddy", Proxy: "caddy"}},
	}
	keepProxyRun(t, "caddy", run, map[string]string{caddyLog: c.Log(caddyLog), "app.jsonl": b.LogPath}, c)
}

// TestChain puts Caddy in front of HAProxy in front of nginx in front of
// the backend: a request crosses three proxies, each logging it, and a
// client that gives up at the edge is seen going away at every hop.
func TestChain(t *testing.T) {
	b := StartBackend(t)
	n := startNginx(t, b.Addr, Down(t))
	h := startHAProxy(t, n.Addr, Down(t), "X-Request-Id", "Idempotency-Key")
	c := startCaddy(t, h.Addr, Down(t))
	var plan []Step
	for _, s := range trafficPlan() {
		switch s.End {
		case EndCreated, EndClientTimeout, endClientAbort, EndServerError, EndUpstreamDrop:
			plan = append(plan, s) // what every hop sees the same way
		}
	}
	sent := drive(t, c.URL, b, plan)
	capture.WaitLogged(t, sent, c.Log(caddyLog), h.Log(haProxyLog), n.Log(nginxJSONLog))
	n.Stop()
	run := run{
		Software: strings.Join([]string{c.Software(), h.Software(), n.Software()}, " -> "),
		Chain:    true, BackendLog: "app.jsonl", Sent: sent,
		Logs: []runLog{
			{File: "caddy.json", Capture: "chain-caddy", Format: "caddy", Proxy: "caddy"},
			{File: "haproxy.log", Capture: "chain-haproxy", Format: "haproxy", Proxy: "haproxy"},
			{File: "nginx.json.log", Capture: "chain-nginx", Format: "nginx", Proxy: "nginx"},
		},
	}
	logs := map[string]string{"caddy.json": c.Log(caddyLog), "haproxy.log": h.Log(haProxyLog),
		"nginx.json.log": n.Log(nginxJSONLog), "app.jsonl": b.LogPath}
	configs := "# Caddyfile\n" + c.Config() + "\n# haproxy.cfg\n" + h.Config() + "\n# nginx.conf\n" + n.Config()
	keep(t, "chain", run, logs, configs, "configs.txt", verifyProxyRun)
}

// TestCaddyTraceparent sends requests with a W3C traceparent and no
// X-Request-Id through Caddy, which logs the header as it passes it on;
// the backend logs the trace id as OpenTelemetry does. The trace id is
// all that joins the proxy's line to the backend's.
func TestCaddyTraceparent(t *testing.T) {
	b := StartBackend(t)
	c := startCaddy(t, b.Addr, Down(t))
	k1, k2 := capture.NewID(), capture.NewID()
	plan := []Step{
		{Name: "created", Key: k1, Path: "/v1/orders", Trace: true, End: EndCreated},
		{Name: "unkeyed", Path: "/v1/orders", Trace: true, End: EndCreated},
		{Name: "retry-1-timeout", Key: k2, Path: "/v1/orders?delay=1200ms", Timeout: 400 * time.Millisecond, Trace: true, End: EndClientTimeout},
		{Name: "retry-2-replayed", Key: k2, Path: "/v1/orders", Trace: true, End: EndCreated},
	}
	sent := drive(t, c.URL, b, plan)
	capture.WaitLogged(t, sent, c.Log(caddyLog))
	run := run{
		Software: c.Software(), JoinBy: "traceparent", BackendLog: "app.jsonl", Sent: sent,
		Logs: []runLog{{File: caddyLog, Capture: "caddy-traceparent", Format: "caddy", Proxy: "caddy"}},
	}
	keep(t, "caddy-traceparent", run, map[string]string{caddyLog: c.Log(caddyLog), "app.jsonl": b.LogPath}, "", "", verifyTraceRun)
}
