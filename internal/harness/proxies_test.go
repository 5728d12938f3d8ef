package harness_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/internal/harness"
)

var update = flag.Bool("update", false, "rewrite the recorded captures under fixtures/real from this run")

// realDir is where recorded captures live, from this package's directory.
var realDir = filepath.Join("..", "..", "fixtures", "real")

// drive sends the plan through base, waits until the backend has finished
// with every request it received (the slow ones end after the client has
// gone) and says which reached it.
func drive(t *testing.T, base string, b *harness.Backend, plan []harness.Step) []harness.Sent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sent := harness.Drive(ctx, base, plan)
	var received []string
	for _, h := range b.Hits() {
		received = append(received, h.RequestID)
	}
	if _, err := harness.WaitFor(ctx, b.LogPath, received...); err != nil {
		t.Fatal(err)
	}
	for i := range sent {
		sent[i].Reached = b.Received(sent[i].RequestID)
		t.Logf("sent %-17s %s %-32s -> status %d %s (%s) backend=%v", sent[i].Name, sent[i].RequestID, sent[i].Path,
			sent[i].Status, sent[i].Error, sent[i].Finish.Sub(sent[i].Start).Round(time.Millisecond), sent[i].Reached)
	}
	checkHarness(t, sent)
	return sent
}

// checkHarness makes sure each request ended the way the harness meant it
// to, from the client's side and the backend's: otherwise the expectations
// derived from the plan would be wrong, whatever idem reads.
func checkHarness(t *testing.T, sent []harness.Sent) {
	t.Helper()
	for _, s := range sent {
		ok := true
		switch s.End {
		case harness.EndCreated:
			ok = s.Status == 201 && s.ResultID != "" && s.Reached
		case harness.EndReplay200:
			ok = s.Status == 200 && s.ResultID != "" && s.Reached
		case harness.EndServerError:
			ok = s.Status == 500 && s.Reached
		case harness.EndClientTimeout:
			ok = s.Error == "timeout" && s.Reached
		case harness.EndClientAbort:
			ok = s.Error == "aborted" && s.Reached
		case harness.EndUpstreamDrop:
			ok = s.Status == 502 && s.Reached
		case harness.EndUpstreamTimeout:
			ok = s.Status == 504 && s.Reached
		case harness.EndRefused:
			ok = s.Status >= 502 && s.Status <= 503 && !s.Reached
		}
		if !ok {
			t.Fatalf("step %s did not end as %s: status %d, error %q, reached the backend %v", s.Name, s.End, s.Status, s.Error, s.Reached)
		}
	}
}

// waitLogged waits until every request appears in every log.
func waitLogged(t *testing.T, sent []harness.Sent, logs ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var rids []string
	for _, s := range sent {
		rids = append(rids, s.RequestID)
	}
	for _, l := range logs {
		if _, err := harness.WaitFor(ctx, l, rids...); err != nil {
			t.Fatal(err)
		}
	}
}

// finish saves the run (logs: each file of the run and where the
// software wrote it) into a temporary directory, checks it, and with
// -update records it under fixtures/real/name with the config it ran.
func finish(t *testing.T, name string, run harness.Run, logs map[string]string, config, configName string) {
	t.Helper()
	saveRun(t, name, run, logs, config, configName, verifyProxyRun)
}

// saveRun saves the run into a temporary directory, checks it there with
// verify, and with -update records it under fixtures/real/name, with the
// config it ran as configName (none when that is empty).
func saveRun(t *testing.T, name string, run harness.Run, logs map[string]string, config, configName string,
	verify func(*testing.T, string, harness.Run)) {
	t.Helper()
	dir := t.TempDir()
	if err := run.Save(dir, logs, 0); err != nil {
		t.Fatal(err)
	}
	verify(t, dir, run)
	if !*update {
		return
	}
	dst := filepath.Join(realDir, name)
	if err := run.Save(dst, logs, 0); err != nil {
		t.Fatal(err)
	}
	if configName != "" {
		if err := os.WriteFile(filepath.Join(dst, configName), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("recorded %s", dst)
}

func TestNginx(t *testing.T) {
	b := harness.StartBackend(t)
	n := harness.StartNginx(t, b.Addr, harness.Addr(harness.FreePort(t)))
	sent := drive(t, n.URL, b, harness.Plan())
	waitLogged(t, sent, n.Logs.JSON, n.Logs.Combined, n.Logs.Ingress, n.Logs.VHost)
	n.Stop()
	run := harness.Run{
		Software: harness.Version("nginx", "nginx", "-v"), BackendLog: "app.jsonl", Sent: sent,
		Logs: []harness.RunLog{
			{File: "access.json.log", Capture: "nginx-json", Format: "nginx", Proxy: "nginx"},
			{File: "access.combined.log", Capture: "nginx-combined", Format: "combined", Proxy: "nginx"},
			{File: "access.ingress.log", Capture: "ingress-nginx", Proxy: "nginx", NoKey: true},
			{File: "access.vhost.log", Capture: "nginx-vhost", Proxy: "nginx"},
		},
	}
	finish(t, "nginx", run, map[string]string{
		"access.json.log": n.Logs.JSON, "access.combined.log": n.Logs.Combined, "access.ingress.log": n.Logs.Ingress,
		"access.vhost.log": n.Logs.VHost,
		"app.jsonl":        b.LogPath,
	}, n.Config(), "nginx.conf")
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
			b := harness.StartBackend(t)
			h := harness.StartHAProxy(t, b.Addr, harness.Addr(harness.FreePort(t)), tc.captures...)
			sent := drive(t, h.URL, b, harness.Plan())
			waitLogged(t, sent, h.Log)
			run := harness.Run{
				Software: harness.Version("haproxy", "haproxy", "-v"), BackendLog: "app.jsonl", Sent: sent,
				Logs: []harness.RunLog{{File: "haproxy.log", Capture: "haproxy-" + tc.name, Format: "haproxy", Proxy: "haproxy"}},
			}
			finish(t, filepath.Join("haproxy", tc.name), run, map[string]string{"haproxy.log": h.Log, "app.jsonl": b.LogPath},
				h.Config(), "haproxy.cfg")
		})
	}
}

func TestCaddy(t *testing.T) {
	b := harness.StartBackend(t)
	c := harness.StartCaddy(t, b.Addr, harness.Addr(harness.FreePort(t)))
	sent := drive(t, c.URL, b, harness.Plan())
	waitLogged(t, sent, c.Log)
	run := harness.Run{
		Software: harness.Version("caddy", "caddy", "version"), BackendLog: "app.jsonl", Sent: sent,
		Logs: []harness.RunLog{{File: "access.json", Capture: "caddy", Format: "caddy", Proxy: "caddy"}},
	}
	finish(t, "caddy", run, map[string]string{"access.json": c.Log, "app.jsonl": b.LogPath}, c.Config(), "Caddyfile")
}

// TestChain puts Caddy in front of HAProxy in front of nginx in front of
// the backend: a request crosses three proxies, each logging it, and a
// client that gives up at the edge is seen going away at every hop.
func TestChain(t *testing.T) {
	b := harness.StartBackend(t)
	n := harness.StartNginx(t, b.Addr, harness.Addr(harness.FreePort(t)))
	h := harness.StartHAProxy(t, strings.TrimPrefix(n.URL, "http://"), harness.Addr(harness.FreePort(t)), "X-Request-Id", "Idempotency-Key")
	c := harness.StartCaddy(t, strings.TrimPrefix(h.URL, "http://"), harness.Addr(harness.FreePort(t)))
	var plan []harness.Step
	for _, s := range harness.Plan() {
		switch s.End {
		case harness.EndCreated, harness.EndClientTimeout, harness.EndClientAbort, harness.EndServerError, harness.EndUpstreamDrop:
			plan = append(plan, s) // what every hop sees the same way
		}
	}
	sent := drive(t, c.URL, b, plan)
	waitLogged(t, sent, c.Log, h.Log, n.Logs.JSON)
	n.Stop()
	run := harness.Run{
		Software: strings.Join([]string{harness.Version("caddy", "caddy", "version"), harness.Version("haproxy", "haproxy", "-v"),
			harness.Version("nginx", "nginx", "-v")}, " -> "),
		Chain: true, BackendLog: "app.jsonl", Sent: sent,
		Logs: []harness.RunLog{
			{File: "caddy.json", Capture: "chain-caddy", Format: "caddy", Proxy: "caddy"},
			{File: "haproxy.log", Capture: "chain-haproxy", Format: "haproxy", Proxy: "haproxy"},
			{File: "nginx.json.log", Capture: "chain-nginx", Format: "nginx", Proxy: "nginx"},
		},
	}
	finish(t, "chain", run, map[string]string{"caddy.json": c.Log, "haproxy.log": h.Log, "nginx.json.log": n.Logs.JSON, "app.jsonl": b.LogPath},
		"# Caddyfile\n"+c.Config()+"\n# haproxy.cfg\n"+h.Config()+"\n# nginx.conf\n"+n.Config(), "configs.txt")
}

// TestCaddyTraceparent sends requests with a W3C traceparent and no
// X-Request-Id through Caddy, which logs the header as it passes it on;
// the backend logs the trace id as OpenTelemetry does. The trace id is
// all that joins the proxy's line to the backend's.
func TestCaddyTraceparent(t *testing.T) {
	b := harness.StartBackend(t)
	c := harness.StartCaddy(t, b.Addr, harness.Addr(harness.FreePort(t)))
	k1, k2 := harness.NewID(), harness.NewID()
	plan := []harness.Step{
		{Name: "created", Key: k1, Path: "/v1/orders", Trace: true, End: harness.EndCreated},
		{Name: "unkeyed", Path: "/v1/orders", Trace: true, End: harness.EndCreated},
		{Name: "retry-1-timeout", Key: k2, Path: "/v1/orders?delay=1200ms", Timeout: 400 * time.Millisecond, Trace: true, End: harness.EndClientTimeout},
		{Name: "retry-2-replayed", Key: k2, Path: "/v1/orders", Trace: true, End: harness.EndCreated},
	}
	sent := drive(t, c.URL, b, plan)
	waitLogged(t, sent, c.Log)
	run := harness.Run{
		Software: harness.Version("caddy", "caddy", "version"), JoinBy: "traceparent", BackendLog: "app.jsonl", Sent: sent,
		Logs: []harness.RunLog{{File: "access.json", Capture: "caddy-traceparent", Format: "caddy", Proxy: "caddy"}},
	}
	logs := map[string]string{"access.json": c.Log, "app.jsonl": b.LogPath}
	saveRun(t, "caddy-traceparent", run, logs, "", "", verifyTraceRun)
}
