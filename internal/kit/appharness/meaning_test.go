package appharness

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/internal/kit/capture"
	"github.com/idem-cli/idem/load"
	"github.com/idem-cli/idem/model"
)

// Loggers idem has no file for, each with its HTTP middleware, behind a
// real nginx: what they write is read by the vocabulary alone (or by the
// grammar of a logger whose names would otherwise be mistaken). Each
// service keeps an Idempotency-Key store (it replays a retry and answers
// 422 to the same key with another payload) and logs its decisions; the
// traffic makes a lost response, a same-key retry, a retry under a new
// key, a payload mismatch and an unkeyed retry, and sends a bearer token
// the middleware logs with the headers.

// unknownLogger is one backend: the script that runs it and the format
// idem reads its request lines as.
type unknownLogger struct {
	library string
	format  string
	// headers says its request line holds the request's headers (so the
	// bearer token sent is in the log).
	headers bool
	start   func(t *testing.T, log, ledger string) (string, func())
}

// nodeLogBackend runs testdata/nodelog/SCRIPT with the packages of its
// committed lock file.
func nodeLogBackend(script, name string) func(t *testing.T, log, ledger string) (string, func()) {
	return func(t *testing.T, log, ledger string) (string, func()) {
		node := capture.Tool(t, "apt-get install nodejs npm", "node")
		capture.NodeModules(t, "testdata/nodelog", "express-winston", "restify", "bunyan", "winston", "log4js", "morgan")
		return startProcess(t, name, node, "testdata/nodelog/"+script, log, ledger, name)
	}
}

// flaskBackend runs testdata/python/flask_app.py under Debian's gunicorn
// (one worker, four threads), with Debian's python3-flask and the
// formatter's module: python3-pythonjsonlogger, or python3-structlog's
// stdlib bridge.
func flaskBackend(name, formatter, module string) func(t *testing.T, log, ledger string) (string, func()) {
	return func(t *testing.T, log, ledger string) (string, func()) {
		capture.Python(t, "apt-get install python3-flask python3-"+module, "flask", module)
		gunicorn := capture.Tool(t, "apt-get install gunicorn", "gunicorn")
		addr := capture.Addr(capture.FreePort(t))
		p := capture.Start(t, capture.Cmd{Name: "gunicorn", Bin: gunicorn,
			Args: []string{"--bind", addr, "--workers", "1", "--threads", "4", "--chdir", "testdata/python", "flask_app:app"},
			Env:  []string{"IDEM_LOG=" + log, "IDEM_LEDGER=" + ledger, "IDEM_NAME=" + name, "IDEM_FORMATTER=" + formatter}, Listen: []string{addr}})
		return "http://" + p.Addr, p.Stop
	}
}

// phpBackend runs testdata/php/index.php on PHP's built-in server with
// Debian's php-cli and php-monolog.
func phpBackend(t *testing.T, log, ledger string) (string, func()) {
	php := capture.Tool(t, "apt-get install php-cli php-monolog", "php")
	if _, err := os.Stat("/usr/share/php/Monolog/autoload.php"); err != nil {
		capture.Missing(t, "Monolog", "apt-get install php-monolog")
	}
	addr := capture.Addr(capture.FreePort(t))
	p := capture.Start(t, capture.Cmd{Name: "php", Bin: php, Args: []string{"-S", addr, "testdata/php/index.php"},
		Env: []string{"IDEM_LOG=" + log, "IDEM_LEDGER=" + ledger, "IDEM_NAME=monolog"}, Listen: []string{addr}})
	return "http://" + p.Addr, p.Stop
}

// railsBackend runs testdata/ruby/orders.rb: Rails 6.1 and lograge from
// Debian (ruby-railties, ruby-lograge) on WEBrick.
func railsBackend(t *testing.T, log, ledger string) (string, func()) {
	ruby := capture.Tool(t, "apt-get install ruby ruby-railties ruby-lograge", "ruby")
	if exec.Command(ruby, "-e", `require "rails"; require "lograge"`).Run() != nil {
		capture.Missing(t, "Rails and lograge", "apt-get install ruby-railties ruby-lograge")
	}
	p := capture.Start(t, capture.Cmd{Name: "rails", Bin: ruby, Args: []string{"testdata/ruby/orders.rb"},
		Env: []string{"IDEM_LOG=" + log, "IDEM_LEDGER=" + ledger, "IDEM_NAME=rails"}, Announce: "listening "})
	return "http://" + p.Addr, p.Stop
}

// javaJars are the Debian jars testdata/java/Orders.java runs on.
var javaJars = []string{"logstash-logback-encoder", "logback-classic", "logback-core", "slf4j-api", "jackson-core", "jackson-databind", "jackson-annotations"}

// logbackBackend compiles and runs testdata/java/Orders.java with Debian's
// logback and logstash-logback-encoder.
func logbackBackend(t *testing.T, log, ledger string) (string, func()) {
	javac := capture.Tool(t, "apt-get install default-jdk-headless", "javac")
	java := capture.Tool(t, "apt-get install default-jdk-headless", "java")
	var cp []string
	for _, j := range javaJars {
		path := "/usr/share/java/" + j + ".jar"
		if _, err := os.Stat(path); err != nil {
			capture.Missing(t, j, "apt-get install liblogback-java liblogstash-logback-encoder-java")
		}
		cp = append(cp, path)
	}
	classes := t.TempDir()
	if out, err := exec.Command(javac, "-d", classes, "-cp", strings.Join(cp, ":"), "testdata/java/Orders.java").CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	p := capture.Start(t, capture.Cmd{Name: "java", Bin: java,
		Args: []string{"-cp", strings.Join(append(cp, classes), ":"), "-Dlogback.configurationFile=testdata/java/logback.xml", "Orders", log, ledger, "logback"},
		Env:  []string{"IDEM_LOG=" + log}, Announce: "listening "})
	return "http://" + p.Addr, p.Stop
}

var unknownLoggers = []unknownLogger{
	{library: "winston", format: "json", headers: true, start: nodeLogBackend("winston.js", "winston")},
	{library: "restify", format: "bunyan", headers: true, start: nodeLogBackend("restify.js", "restify")},
	{library: "log4js", format: "json", start: nodeLogBackend("log4js.js", "log4js")},
	{library: "morgan", format: "json", start: nodeLogBackend("morgan.js", "morgan")},
	{library: "flask", format: "json", start: flaskBackend("flask", "", "pythonjsonlogger")},
	{library: "structlog-stdlib", format: "structlog", start: flaskBackend("structlog_stdlib", "structlog", "structlog")},
	{library: "monolog", format: "json", start: phpBackend},
	{library: "rails", format: "lograge", start: railsBackend},
	{library: "logback", format: "json", start: logbackBackend},
}

// bearer is the credential the traffic sends, which the middlewares log.
const bearer = "Bearer idem-capture-not-a-secret"

// meaningScenario is the traffic: every incident a retrying client makes.
func meaningScenario(lib string) []capture.Request {
	const ok, work, lost, timeout = 150 * time.Millisecond, 1200 * time.Millisecond, 400 * time.Millisecond, 10 * time.Second
	id := func(n int) string { return fmt.Sprintf("req-%s-%d", lib, n) }
	key := func(n int) string { return fmt.Sprintf("key-%s-%d", lib, n) }
	auth := map[string]string{"Authorization": bearer}
	return []capture.Request{
		{Step: "keyed-ok", Key: key(1), RequestID: id(1), Body: `{"sku":"A-1","qty":1}`, Delay: ok, Timeout: timeout, Headers: auth},
		{Step: "lost", Key: key(2), RequestID: id(2), Body: `{"sku":"B-2","qty":2}`, Delay: work, Timeout: lost},
		{Step: "same-key-retry", Key: key(2), RequestID: id(3), Body: `{"sku":"B-2","qty":2}`, Delay: ok, Timeout: timeout},
		{Step: "new-key-retry", Key: key(3), RequestID: id(4), Body: `{"sku":"B-2","qty":2}`, Delay: ok, Timeout: timeout},
		{Step: "other-payload", Key: key(1), RequestID: id(5), Body: `{"sku":"A-1","qty":9}`, Delay: ok, Timeout: timeout},
		{Step: "unkeyed-lost", RequestID: id(6), Body: `{"sku":"C-3","qty":1}`, Delay: work, Timeout: lost},
		{Step: "unkeyed-retry", RequestID: id(7), Body: `{"sku":"C-3","qty":1}`, Delay: ok, Timeout: timeout},
	}
}

// sendAll sends the requests in order through base; after one the client
// gave up on, it waits until the service's ledger records it, so that the
// retry finds its order.
func sendAll(t *testing.T, base string, reqs []capture.Request, ledger string) []capture.Sent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out []capture.Sent
	for _, r := range reqs {
		r.Base, r.Path = base, route
		s := capture.Send(ctx, r)
		if s.Ended != capture.EndedResponse && s.Ended != capture.EndedTimeout {
			t.Fatalf("step %s: %s", r.Step, s.Error)
		}
		out = append(out, s)
		if _, err := capture.WaitLedger(ctx, ledger, r.Step); err != nil {
			t.Fatal(err)
		}
	}
	if err := capture.AttachEffects(out, ledger); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestUnknownLoggers drives every backend through nginx and checks what
// idem reads from the two logs.
func TestUnknownLoggers(t *testing.T) {
	for _, b := range unknownLoggers {
		t.Run(b.library, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			logPath, ledger := filepath.Join(dir, AppLog), filepath.Join(dir, "ledger.jsonl")
			upstream, stopBackend := b.start(t, logPath, ledger)
			n := startNginx(t, upstream)
			stop := sync.OnceFunc(func() { n.Stop(); stopBackend() })
			defer stop()
			c := &captureRecord{Library: b.library, Format: b.format}
			c.Sent = sendAll(t, n.URL, meaningScenario(b.library), ledger)
			stop()
			done, err := capture.ReadLedger(ledger)
			if err != nil {
				t.Fatal(err)
			}
			c.Done = done
			folder := capture.Folder{Logs: map[string]string{AppLog: logPath, NginxLog: n.Log(NginxLog)}, RecordName: captureFile, Record: c}
			folder.Keep(t, filepath.Join(fixturesDir, "nginx-"+b.library), *update, func(t *testing.T, dir string) {
				checkUnknown(t, loadCapture(t, dir), filepath.Join(dir, NginxLog))
			})
		})
	}
}

// TestUnknownLoggersFixtures checks the committed captures the same way.
func TestUnknownLoggersFixtures(t *testing.T) {
	if *update {
		t.Skip("rewriting the fixtures")
	}
	for _, b := range unknownLoggers {
		t.Run(b.library, func(t *testing.T) {
			dir := filepath.Join(fixturesDir, "nginx-"+b.library)
			capture.Recorded(t, dir, captureFile, "go test ./internal/kit/appharness -run TestUnknownLoggers -update")
			checkUnknown(t, loadCapture(t, dir), filepath.Join(dir, NginxLog))
		})
	}
}

// checkUnknown asserts, from what was sent: each request is one delivery
// holding nginx's line and the service's request line; the service's
// request line gives the method, route, status and key sent; each key's
// deliveries are its intent; and the rules the traffic calls for fire,
// and no other.
func checkUnknown(t *testing.T, c *captureRecord, proxyLog string) {
	t.Helper()
	f := knownGaps.Facts(t, "nginx-"+c.Library)
	r := capture.MustRead(t, proxyLog, c.Log)
	in := r.Input(c.Log)
	f.Check("skipped", in != nil && in.Skipped == 0, "lines skipped in %s: %+v", c.Log, in)
	dels := r.Deliveries(sentKeys(c.Sent))
	for _, s := range c.Sent {
		d := dels[s.RequestID]
		if !f.Check("delivery", d != nil, "step %s: no delivery %s; deliveries %v", s.Step, s.RequestID, capture.IDs(dels)) {
			continue
		}
		var proxy, access *model.Observation
		for _, o := range d.Observations {
			switch {
			case o.Tier == model.TierProxy:
				proxy = o
			case o.Tier == model.TierServer && o.Method != "":
				access = o
			}
		}
		f.Check("join", proxy != nil && access != nil, "step %s: delivery %s holds %v, want nginx's line and the service's request line",
			s.Step, s.RequestID, capture.Sources(d))
		if access == nil {
			continue
		}
		where := fmt.Sprintf("step %s, %s", s.Step, access.Source)
		f.Check("format", access.Format == c.Format, "format %q, want %q; %s", access.Format, c.Format, where)
		f.Check("request", access.Method == "POST" && access.Route == route, "%s %s, want POST %s; %s", access.Method, access.Route, route, where)
		f.Check("key", access.Key == s.Key, "key %q, want %q; %s", access.Key, s.Key, where)
		if s.Ended == capture.EndedTimeout {
			// The service answered after the client had gone (201 once
			// it had worked), or its middleware logged the connection's
			// closing then.
			f.Check("status", access.Status == 201 && access.Duration >= s.Delay-rounding || access.Duration <= s.Elapsed()+slack,
				"status %d after %s, want 201 after the service's %s, or the close logged within the client's %s; %s",
				access.Status, access.Duration, s.Delay, s.Elapsed(), where)
			continue
		}
		f.Check("status", access.Status == s.Status, "status %d, want %d; %s", access.Status, s.Status, where)
		f.Check("duration", access.Duration >= s.Delay-rounding && access.Duration <= s.Elapsed()+slack,
			"duration %s, want at least the service's %s and at most the client's %s; %s", access.Duration, s.Delay, s.Elapsed(), where)
	}
	keys, byKey := capture.ByKey(c.Sent, func(s capture.Sent) string { return s.Key })
	for _, k := range keys {
		if k != "" {
			f.Intent("intent", r.Set, k, capture.RequestIDs(byKey[k]))
		}
	}
	f.Check("deliveries", r.Set.DeliveryCount() == len(c.Sent), "%d deliveries, want %d (one per request): %v",
		r.Set.DeliveryCount(), len(c.Sent), capture.IDs(dels))
	set, err := load.Files(context.Background(), []string{proxyLog, c.Log}, load.Options{Read: ingest.Options{}, Build: diagnose.DefaultOptions().Build()})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(unknownLoggers, func(b unknownLogger) bool { return b.library == c.Library })
	capture.CheckRules(f, diagnose.Run(set, diagnose.DefaultOptions()).Findings, unknownExpectations(c.Sent, unknownLoggers[i].headers), nil, false)
}

// unknownExpectations are the rules the traffic calls for, from what was
// sent and what the ledger made.
func unknownExpectations(sent []capture.Sent, headersLogged bool) []capture.Expectation {
	var must []capture.Expectation
	add := func(e capture.Expectation) { must = capture.Expect(must, e) }
	for i, a := range sent {
		if headersLogged && a.Headers["Authorization"] != "" {
			add(capture.Expectation{Rule: "secret-in-logs", Role: "bearer-token"})
		}
		for _, b := range sent[i+1:] {
			switch {
			case a.Key != "" && b.Key == a.Key && b.Body != a.Body:
				add(capture.Expectation{Rule: "payload-mismatch", Role: "other-body", Keys: []string{a.Key}, Severity: diagnose.Warning})
			case a.Key != "" && b.Key != "" && b.Key != a.Key && b.Body == a.Body && a.Ended == capture.EndedTimeout && b.Effect != "":
				add(capture.Expectation{Rule: "retry-new-key", Role: "new-key", Keys: []string{a.Key, b.Key}})
			case a.Key == "" && b.Key == "" && b.Body == a.Body && a.Ended == capture.EndedTimeout && a.Effect != "" && b.Effect != "":
				add(capture.Expectation{Rule: "unkeyed-retry", Role: "unkeyed"})
			}
		}
		if a.Ended == capture.EndedTimeout && a.Effect != "" && slices.ContainsFunc(sent[i+1:], func(b capture.Sent) bool { return b.Key == a.Key }) {
			add(capture.Expectation{Rule: "response-lost", Role: "lost-response", Keys: []string{a.Key}})
		}
	}
	return must
}
