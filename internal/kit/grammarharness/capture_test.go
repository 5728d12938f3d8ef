package grammarharness

import (
	"context"
	"flag"
	"path/filepath"
	"testing"
	"time"

	"github.com/idem-cli/idem/internal/kit/capture"
	"github.com/idem-cli/idem/internal/kit/harness"
)

var update = flag.Bool("update", false, "rewrite the recorded captures under fixtures/real from this run")

// realDir is where recorded captures live, from this package's directory.
var realDir = filepath.Join("..", "..", "..", "fixtures", "real")

// plan is the traffic sent through a proxy: each way a request ends that
// every proxy here can make, keyed and unkeyed, and a retry of a request
// whose client gave up.
func plan() []harness.Step {
	id := capture.NewID
	k1, k2, k4, k5, k7 := id(), id(), id(), id(), id()
	return []harness.Step{
		{Name: "created", Key: k1, Path: "/v1/orders", End: harness.EndCreated},
		{Name: "unkeyed", Path: "/v1/orders", End: harness.EndCreated},
		{Name: "retry-1-timeout", Key: k2, Path: "/v1/orders?delay=1200ms", Timeout: 400 * time.Millisecond, End: harness.EndClientTimeout},
		{Name: "retry-2-replayed", Key: k2, Path: "/v1/orders", End: harness.EndCreated},
		{Name: "server-error", Key: k4, Path: "/v1/orders?fail=500", End: harness.EndServerError},
		{Name: "upstream-drop", Key: k5, Path: "/v1/orders?fail=drop", End: harness.EndUpstreamDrop},
		{Name: "upstream-refused", Key: k7, Path: "/v1/down/orders", End: harness.EndRefused},
	}
}

// drive sends the plan through base and waits until the backend (nil for
// a server that answers itself) has done with every request it got.
func drive(t *testing.T, base string, b *harness.Backend, steps []harness.Step) []capture.Sent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sent := harness.Drive(ctx, base, steps)
	if b != nil {
		var received []string
		for _, h := range b.Hits() {
			received = append(received, h.RequestID)
		}
		if _, err := capture.WaitFor(ctx, b.LogPath, received...); err != nil {
			t.Fatal(err)
		}
		for i := range sent {
			sent[i].Reached = b.Received(sent[i].RequestID)
		}
	}
	for _, s := range sent {
		t.Logf("sent %-17s %s %-28s -> status %d %s (%s) backend=%v", s.Step, s.RequestID, s.Path, s.Status, s.Error,
			s.Elapsed().Round(time.Millisecond), s.Reached)
	}
	return sent
}

// keep saves a run with its logs, the proxy's config and idem's, checks
// it, and with -update records it as fixtures/real/name.
func keep(t *testing.T, name string, run run, logs map[string]string, texts map[string]string) {
	t.Helper()
	f := capture.Folder{Logs: logs, Texts: texts, RecordName: recordName, Record: run}
	f.Keep(t, filepath.Join(realDir, name), *update, func(t *testing.T, dir string) { verifyRun(t, dir, run) })
}

func TestApache(t *testing.T) {
	b := harness.StartBackend(t)
	p := startApache(t, b.Addr, harness.Down(t))
	sent := drive(t, p.URL, b, plan())
	capture.WaitLogged(t, sent, p.Log(apacheReorderedLog), p.Log(apacheIdemLog))
	p.Stop()
	run := run{Software: p.Software(), BackendLog: "app.jsonl", Sent: sent, Logs: []log{
		{File: apacheReorderedLog, Capture: "apache-reordered", Format: "apache log_format", Config: "idem.json", Proxy: "apache",
			// Apache wrote the late 201 into the closed connection without an
			// error: %X says "-", as for any answered request.
			NoAbort: true},
		{File: apacheIdemLog, Capture: "apache-idem", Format: "apache", Proxy: "apache", SecondsOnly: true, NoAbort: true},
	}}
	logs := p.Logs()
	logs["app.jsonl"] = b.LogPath
	keep(t, "apache", run, logs, map[string]string{p.ConfigName(): p.Config(), "idem.json": idemConfig(capture.ApacheReordered)})
}

func TestTomcat(t *testing.T) {
	p := startTomcat(t)
	var steps []harness.Step
	for _, s := range plan() {
		if s.End == harness.EndCreated {
			steps = append(steps, s) // Tomcat answers every one itself, at once
		}
	}
	sent := drive(t, p.URL, nil, steps)
	capture.WaitLogged(t, sent, p.Log(tomcatEpochLog), p.Log(tomcatStockLog))
	p.Stop()
	run := run{Software: p.Software(), Sent: sent, Logs: []log{
		{File: tomcatEpochLog, Capture: "tomcat-epoch", Format: "tomcat log_format", Config: "idem.json", Proxy: "tomcat"},
		{File: tomcatStockLog, Capture: "tomcat-stock", Format: "tomcat", Proxy: "tomcat", SecondsOnly: true},
	}}
	keep(t, "tomcat", run, p.Logs(), map[string]string{"server.xml": p.Config(), "idem.json": idemConfig(capture.TomcatEpoch)})
}

func TestLighttpd(t *testing.T) {
	b := harness.StartBackend(t)
	p := startLighttpd(t, b.Addr, harness.Down(t))
	sent := drive(t, p.URL, b, plan())
	capture.WaitLogged(t, sent, p.Log(lighttpdLog))
	p.Stop()
	run := run{Software: p.Software(), BackendLog: "app.jsonl", Sent: sent, Logs: []log{
		{File: lighttpdLog, Capture: "lighttpd", Format: "lighttpd log_format", Config: "idem.json", Proxy: "lighttpd", NoAbort: true},
	}}
	logs := p.Logs()
	logs["app.jsonl"] = b.LogPath
	keep(t, "lighttpd", run, logs, map[string]string{p.ConfigName(): p.Config(), "idem.json": idemConfig(capture.LighttpdBoth)})
}

func TestVarnish(t *testing.T) {
	b := harness.StartBackend(t)
	p := startVarnish(t, b.Addr, harness.Down(t))
	sent := drive(t, p.URL, b, plan())
	capture.WaitLogged(t, sent, p.Log(varnishLog))
	p.Stop()
	run := run{Software: p.Software(), BackendLog: "app.jsonl", Sent: sent, Logs: []log{
		{File: varnishLog, Capture: "varnish", Format: "varnish log_format", Config: "idem.json", Proxy: "varnish", NoAbort: true},
	}}
	logs := p.Logs()
	logs["app.jsonl"] = b.LogPath
	keep(t, "varnish", run, logs, map[string]string{p.ConfigName(): p.Config(), "idem.json": idemConfig(capture.VarnishISO)})
}

func TestNginxUnusual(t *testing.T) {
	b := harness.StartBackend(t)
	p := startNginx(t, b.Addr, harness.Down(t))
	sent := drive(t, p.URL, b, plan())
	capture.WaitLogged(t, sent, p.Log(nginxPipedLog), p.Log(nginxNestedLog))
	p.Stop()
	cfg := `{
  "sources": [
    {"path": "*piped*", "tier": "proxy", "log_format": ` + jsonString(capture.NginxPiped.Def) + `},
    {"path": "*nested*", "tier": "proxy", "log_format": ` + jsonString(capture.NginxNestedJSON.Def) + `}
  ]
}
`
	run := run{Software: p.Software(), BackendLog: "app.jsonl", Sent: sent, Logs: []log{
		{File: nginxPipedLog, Capture: "nginx-piped", Format: "nginx log_format", Config: "idem.json", Proxy: "nginx", SecondsOnly: true},
		{File: nginxNestedLog, Capture: "nginx-nested", Format: "nginx log_format", Config: "idem.json", Proxy: "nginx"},
	}}
	logs := p.Logs()
	logs["app.jsonl"] = b.LogPath
	keep(t, "nginx-log-format", run, logs, map[string]string{p.ConfigName(): p.Config(), "idem.json": cfg})
}

func TestHAProxyUnusual(t *testing.T) {
	b := harness.StartBackend(t)
	p := startHAProxy(t, b.Addr, harness.Down(t))
	sent := drive(t, p.URL, b, plan())
	capture.WaitLogged(t, sent, p.Log(haProxyLog))
	run := run{Software: p.Software(), BackendLog: "app.jsonl", Sent: sent, Logs: []log{
		{File: haProxyLog, Capture: "haproxy-log-format", Format: "haproxy log_format", Config: "idem.json", Proxy: "haproxy"},
	}}
	logs := p.Logs()
	logs["app.jsonl"] = b.LogPath
	keep(t, "haproxy-log-format", run, logs, map[string]string{p.ConfigName(): p.Config(),
		"idem.json": idemConfig(capture.HAProxyCaptured, haProxyCaptures...)})
}

func TestSquid(t *testing.T) {
	b := harness.StartBackend(t)
	p := startSquid(t, b.Addr, harness.Down(t))
	sent := drive(t, p.URL, b, plan())
	capture.WaitLogged(t, sent, p.Log(squidIdemLog))
	p.Stop()
	run := run{Software: p.Software(), BackendLog: "app.jsonl", Sent: sent, Logs: []log{
		{File: squidIdemLog, Capture: "squid-idem", Format: "squid log_format", Config: "idem.json", Proxy: "squid", Undelivered: true},
		{File: squidNativeLog, Capture: "squid-native", Format: "squid", Proxy: "squid", Twin: squidIdemLog,
			Undelivered: true},
		// %tl is the end, to the second, and the format has no duration:
		// the start is read as the end.
		{File: squidCombinedLog, Capture: "squid-combined", Format: "squid", Proxy: "squid", Twin: squidIdemLog,
			SecondsOnly: true, Undelivered: true},
	}}
	logs := p.Logs()
	logs["app.jsonl"] = b.LogPath
	keep(t, "squid", run, logs, map[string]string{p.ConfigName(): p.Config(), "idem.json": idemConfig(capture.SquidIdem)})
}

// TestRecordedCaptures checks the captures recorded under fixtures/real
// (go test ./internal/kit/grammarharness -update rewrites them from a live
// run) with the live tests' checks, without the software installed.
func TestRecordedCaptures(t *testing.T) {
	for _, name := range []string{"apache", "tomcat", "lighttpd", "varnish", "nginx-log-format", "haproxy-log-format", "squid"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(realDir, name)
			capture.Recorded(t, dir, recordName, "go test ./internal/kit/grammarharness -update")
			run, err := loadRun(dir)
			if err != nil {
				t.Fatal(err)
			}
			verifyRun(t, dir, run)
		})
	}
}

func jsonString(s string) string {
	b, err := capture.MarshalRecord(s)
	if err != nil {
		panic(err)
	}
	return string(b[:len(b)-1])
}
