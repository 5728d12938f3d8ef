package serverharness

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idem-cli/idem/internal/kit/capture"
)

var update = flag.Bool("update", false, "rewrite, under fixtures/real/, the capture of each server test that runs")

// The files of a capture folder.
const (
	nginxLog    = "access.json.log"
	appLog      = "app.jsonl"
	nginxConf   = "nginx.conf"
	harnessJSON = "harness.json"
)

const nodeDir = "testdata/node"

// realDir is where the captures are kept.
const realDir = "../../../fixtures/real"

func (s server) dir() string { return filepath.Join(realDir, s.capture) }

// server is one idempotency library's app and the capture it keeps.
type server struct {
	test    string            // the test that records it
	capture string            // the committed capture's folder under fixtures/real/
	script  string            // the app in testdata/node: node SCRIPT LOG LEDGER PORT ARGS...
	args    []string          // the app's arguments after its port
	config  map[string]string // how the library was configured, for harness.json
	modules []string          // the npm packages the app needs, whose versions harness.json records
	drive   func(c *client, ledger string)
}

var expressIdempotency = server{
	test:    "TestExpressIdempotency",
	capture: "express-idempotency",
	script:  "app.js",
	modules: []string{"express", "express-idempotency", "pino", "pino-http"},
	drive:   driveExpressIdempotency,
}

// keyTTL is node-idempotency's cacheTTLMS in its capture: short, so that a
// key expires while the test runs.
const keyTTL = 3 * time.Second

var nodeIdempotency = server{
	test:    "TestNodeIdempotency",
	capture: "node-idempotency",
	script:  "app-node-idempotency.js",
	args:    []string{strconv.Itoa(int(keyTTL / time.Millisecond))},
	config:  map[string]string{"cacheTTLMS": strconv.Itoa(int(keyTTL / time.Millisecond)), "enforceIdempotency": "false", "inProgressStrategy.wait": "false"},
	modules: []string{"express", "@node-idempotency/core", "@node-idempotency/storage-adapter-memory", "pino", "pino-http"},
	drive:   driveNodeIdempotency,
}

// nodeIdempotencyWait is node-idempotency told to make a duplicate wait
// for the running request's result (inProgressStrategy.wait) rather than
// refuse it: a server that blocks a duplicate, then replays.
var nodeIdempotencyWait = server{
	test:    "TestNodeIdempotencyWait",
	capture: "node-idempotency/wait",
	script:  "app-node-idempotency.js",
	args:    []string{"60000", "wait"},
	config:  map[string]string{"cacheTTLMS": "60000", "enforceIdempotency": "false", "inProgressStrategy.wait": "true", "inProgressStrategy.pollingIntervalMs": "100", "inProgressStrategy.maxWaitMs": "5000"},
	modules: nodeIdempotency.modules,
	drive:   driveNodeIdempotencyWait,
}

// Capture is harness.json: the software that wrote the logs, how it was
// configured, and the traffic it was driven with.
type Capture struct {
	Server map[string]string `json:"server"` // package -> version
	Config map[string]string `json:"config,omitempty"`
	Proxy  string            `json:"proxy"`
	// Sent is the traffic: each request as the client saw it end, with
	// the order the service's ledger recorded for it (Effect).
	Sent []capture.Sent `json:"sent"`
}

// nginxHTTP is the http block of the nginx in front of an app (the kit
// writes the rest, with the access log).
const nginxHTTP = `  proxy_http_version 1.1;
  proxy_set_header X-Request-ID $req_id;
  proxy_next_upstream off;
  server {
    listen 127.0.0.1:%[1]d;
    location / {
      proxy_pass http://%[2]s;
    }
  }
`

// startApp runs s's app behind nginx, writing its log and ledger.
func startApp(t *testing.T, s server, logPath, ledger string) (node string, app *capture.Proc, ngx *capture.Proxy) {
	t.Helper()
	node = capture.Tool(t, "apt-get install nodejs npm", "node")
	capture.NodeModules(t, nodeDir, s.modules...)
	port := capture.FreePort(t)
	args := append([]string{filepath.Join(nodeDir, s.script), logPath, ledger, strconv.Itoa(port)}, s.args...)
	app = capture.Start(t, capture.Cmd{Name: "app", Bin: node, Args: args, Env: []string{"NODE_ENV=production"}, Listen: []string{capture.Addr(port)}})
	ngx = capture.StartNginx(t, capture.NginxConfig{
		Logs: []capture.AccessLog{{File: nginxLog, Format: capture.NginxJSON}},
		HTTP: func(p int) string { return fmt.Sprintf(nginxHTTP, p, app.Addr) },
	})
	return node, app, ngx
}

// TestExpressIdempotency runs express-idempotency's app behind nginx,
// drives it, and checks the rules on what both wrote; -update keeps the
// capture.
func TestExpressIdempotency(t *testing.T) { record(t, expressIdempotency) }

// TestNodeIdempotency does the same for @node-idempotency/core.
func TestNodeIdempotency(t *testing.T) { record(t, nodeIdempotency) }

// TestNodeIdempotencyWait does it for @node-idempotency/core holding
// duplicates until the first is done.
func TestNodeIdempotencyWait(t *testing.T) { record(t, nodeIdempotencyWait) }

func record(t *testing.T, s server) {
	dir := t.TempDir()
	logPath, ledger := filepath.Join(dir, appLog), filepath.Join(dir, "ledger.jsonl")
	node, app, ngx := startApp(t, s, logPath, ledger)

	c := Capture{Server: versions(t, node, s.modules), Config: s.config, Proxy: ngx.Software()}
	cl := newClient(t, ngx.URL)
	s.drive(cl, ledger)
	c.Sent = cl.sent
	ngx.Stop()
	app.Stop()
	if err := capture.AttachEffects(c.Sent, ledger); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("app's stderr:\n%s", app.Output())
		}
	})
	folder := capture.Folder{
		Logs:       map[string]string{nginxLog: ngx.Log(nginxLog), appLog: logPath},
		Texts:      map[string]string{nginxConf: ngx.Config()},
		RecordName: harnessJSON, Record: c,
	}
	folder.Keep(t, s.dir(), *update, func(t *testing.T, dir string) { checkCapture(t, s.capture, dir) })
}

// TestCapture checks the committed captures, so the rules stay proven
// where node and nginx are not installed.
func TestCapture(t *testing.T) {
	for _, s := range []server{expressIdempotency, nodeIdempotency, nodeIdempotencyWait} {
		t.Run(s.test, func(t *testing.T) {
			capture.Recorded(t, s.dir(), harnessJSON, "go test ./internal/kit/serverharness -run '^"+s.test+"$' -update")
			checkCapture(t, s.capture, s.dir())
		})
	}
}

// versions reads the installed packages' versions and node's.
func versions(t *testing.T, node string, modules []string) map[string]string {
	t.Helper()
	v := map[string]string{}
	for _, p := range modules {
		b, err := os.ReadFile(filepath.Join(nodeDir, "node_modules", p, "package.json"))
		if err != nil {
			t.Fatal(err)
		}
		var pkg struct{ Version string }
		if err := json.Unmarshal(b, &pkg); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		v[p] = pkg.Version
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	v["node"] = strings.TrimSpace(string(out))
	return v
}

// The timings of the traffic: a handler slower than its client's timeout
// finishes after the client gave up.
const (
	slowHandler   = 1500 * time.Millisecond
	clientTimeout = 400 * time.Millisecond
	patient       = 10 * time.Second
	inFlight      = 1200 * time.Millisecond // the first of two concurrent duplicates
	secondAfter   = 300 * time.Millisecond  // when the duplicate follows it
)

// client sends the traffic through nginx, one connection per request as
// separate attempts make them, and records each request.
type client struct {
	t    *testing.T
	base string
	http *http.Client
	mu   sync.Mutex
	sent []capture.Sent
}

func newClient(t *testing.T, base string) *client {
	return &client{t: t, base: base, http: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}}
}

// send makes one request (without an Idempotency-Key when key is empty);
// the handler waits delay before its effect, the client timeout for the
// answer. It runs in goroutines too, so it fails the test with Errorf.
func (c *client) send(step, key, body string, delay, timeout time.Duration) capture.Sent {
	s := capture.Send(context.Background(), capture.Request{Step: step, Base: c.base, Path: "/v1/orders", Client: c.http,
		Key: key, RequestID: capture.NewID(), Body: body, Delay: delay, Timeout: timeout})
	if s.Ended != capture.EndedResponse && s.Ended != capture.EndedTimeout {
		c.t.Errorf("%s: %s", step, s.Error)
	}
	return s
}

// add sends and records in the order sent.
func (c *client) add(step, key, body string, delay, timeout time.Duration) capture.Sent {
	s := c.send(step, key, body, delay, timeout)
	c.record(s)
	return s
}

func (c *client) record(s ...capture.Sent) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sent = append(c.sent, s...)
}

// lostResponse: the client gives up, the order is still made; the retry
// under the same key gets the stored answer.
func lostResponse(c *client, ledger string) {
	lost := capture.NewID()
	c.add("lost-response", lost, `{"sku":"sku-lost","qty":1}`, slowHandler, clientTimeout)
	waitEffect(c.t, ledger, "lost-response")
	c.add("same-key-retry", lost, `{"sku":"sku-lost","qty":1}`, 0, patient)
}

// concurrent: the second arrives while the first runs.
func concurrent(c *client) {
	overlapping(c, "concurrent-first", "concurrent-duplicate", capture.NewID(), `{"sku":"sku-concurrent","qty":1}`)
}

// overlapping sends body under key twice, the second while the first's
// handler still runs.
func overlapping(c *client, firstStep, secondStep, key, body string) {
	var wg sync.WaitGroup
	var first capture.Sent
	wg.Go(func() { first = c.send(firstStep, key, body, inFlight, patient) })
	time.Sleep(secondAfter)
	dup := c.send(secondStep, key, body, 0, patient)
	wg.Wait()
	c.record(first, dup)
}

// burstSize is how many duplicates of one key burst sends at once: under
// nginx's 64 worker connections, two per request.
const burstSize = 16

// burst sends burstSize duplicates of one key at the same moment, each
// handler working a while, to catch a reservation that is not atomic.
func burst(c *client) {
	key, body := capture.NewID(), `{"sku":"sku-burst","qty":1}`
	out := make([]capture.Sent, burstSize)
	var ready, wg sync.WaitGroup
	ready.Add(1)
	for i := range out {
		wg.Go(func() {
			ready.Wait()
			out[i] = c.send("burst", key, body, secondAfter, patient)
		})
	}
	ready.Done()
	wg.Wait()
	c.record(out...)
}

// otherBody: one key, another body.
func otherBody(c *client) {
	other := capture.NewID()
	c.add("first-body", other, `{"sku":"sku-first-body","qty":1}`, 0, patient)
	c.add("other-body", other, `{"sku":"sku-other-body","qty":2}`, 0, patient)
}

// newKeyAfterTimeout: a retry under a new key after a timeout.
func newKeyAfterTimeout(c *client, ledger string) {
	c.add("timeout-before-new-key", capture.NewID(), `{"sku":"sku-new-key","qty":1}`, slowHandler, clientTimeout)
	waitEffect(c.t, ledger, "timeout-before-new-key")
	c.add("retry-new-key", capture.NewID(), `{"sku":"sku-new-key","qty":1}`, 0, patient)
}

// clean: one attempt each, each its own body.
func clean(c *client) {
	c.add("clean", capture.NewID(), `{"sku":"sku-clean-a","qty":1}`, 0, patient)
	c.add("clean", capture.NewID(), `{"sku":"sku-clean-b","qty":3}`, 0, patient)
}

func driveExpressIdempotency(c *client, ledger string) {
	lostResponse(c, ledger)
	concurrent(c)
	otherBody(c)
	newKeyAfterTimeout(c, ledger)
	burst(c)
	clean(c)
}

func driveNodeIdempotency(c *client, ledger string) {
	lostResponse(c, ledger)
	concurrent(c)
	otherBody(c)
	newKeyAfterTimeout(c, ledger)
	burst(c)

	// A key kept for keyTTL: a same-key retry inside it gets the stored
	// answer, one after it runs the order again.
	// The second key's duplicates come together after its TTL: the memory
	// adapter still holds the expired record, so setIfNotExists refuses
	// and get forgets it, and onRequest lets the first through without a
	// reservation; the next one reserves the key anew and runs as well.
	exp, race := capture.NewID(), capture.NewID()
	c.add("expiry-first", exp, `{"sku":"sku-expiry","qty":1}`, 0, patient)
	c.add("expiry-retry", exp, `{"sku":"sku-expiry","qty":1}`, 0, patient)
	c.add("race-first", race, `{"sku":"sku-race","qty":1}`, 0, patient)
	c.add("race-retry", race, `{"sku":"sku-race","qty":1}`, 0, patient)
	time.Sleep(keyTTL + time.Second)
	c.add("expiry-late-retry", exp, `{"sku":"sku-expiry","qty":1}`, 0, patient)
	overlapping(c, "race-expired", "race-expired-duplicate", race, `{"sku":"sku-race","qty":1}`)

	// The same payload twice from one client under two keys, each answered:
	// a second purchase or a double submission, no retry.
	c.add("submit-first", capture.NewID(), `{"sku":"sku-twice","qty":1}`, 0, patient)
	c.add("submit-second", capture.NewID(), `{"sku":"sku-twice","qty":1}`, 0, patient)

	// A POST without a key, retried after its client timed out.
	c.add("unkeyed-timeout", "", `{"sku":"sku-unkeyed","qty":1}`, slowHandler, clientTimeout)
	waitEffect(c.t, ledger, "unkeyed-timeout")
	c.add("unkeyed-retry", "", `{"sku":"sku-unkeyed","qty":1}`, 0, patient)

	clean(c)
}

// driveNodeIdempotencyWait: the duplicates of a running request wait for
// its answer and get it replayed.
func driveNodeIdempotencyWait(c *client, ledger string) {
	lostResponse(c, ledger)
	concurrent(c)
	burst(c)
	clean(c)
}

// waitEffect waits until the app made the order of step, so the retry that
// follows comes after the effect as a real client's later retry would.
func waitEffect(t *testing.T, ledger, step string) {
	t.Helper()
	if _, err := capture.WaitLedger(context.Background(), ledger, step); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // its access line follows the effect
}
