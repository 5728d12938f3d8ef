package sdkharness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/internal/kit/capture"
)

var update = flag.Bool("update", false, "rewrite, under fixtures/real/, the capture of each SDK test that runs")

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

// The timings: the app's first delivery answers well past the SDK's
// timeout, so the SDK always gives up on it; the SDK's backoff (0.4 to 1
// second for these three) brings the retry while it still runs.
const (
	sdkTimeout = 500 * time.Millisecond
	stall      = 3 * time.Second
	scriptMax  = 20 * time.Second
)

// The servers (app.js's modes): no key store; express-idempotency with
// the first delivery still running when the retry comes (refused); and
// express-idempotency with the first delivery's answer stored at once but
// slow on its way back (the retry gets it replayed).
const (
	plain     = "plain"
	store     = "store"
	completed = "completed"
)

// folders are the capture folders of the modes, under sdk-NAME/.
var folders = map[string]string{plain: "no-store", store: "store", completed: "store-completed"}

// serverModules are the app's npm packages, whose versions harness.json
// records.
var serverModules = []string{"express", "express-idempotency", "pino", "pino-http"}

// sdk is one client SDK, the script's name for it and the capture it
// keeps.
type sdk struct {
	name   string // sdk.js's argument
	module string // its npm package
	// marks checks the headers the server received on the call's two
	// deliveries for the SDK's retry marks and returns what they say.
	marks func(first, second map[string]string) (string, error)
	// evidence is what idem's reason for naming the SDK must quote: the
	// header it marks its retries with, or what identifies it.
	evidence string
}

func (s sdk) dir(mode string) string { return filepath.Join(realDir, "sdk-"+s.name, folders[mode]) }

// Capture is harness.json: the software, how the server was set up, what
// the script saw the SDK do and what the server received and did.
type Capture struct {
	Software map[string]string `json:"software"` // package -> version
	Proxy    string            `json:"proxy"`
	Server   string            `json:"server"` // app.js's mode: plain, store or completed
	// TimeoutMS is the SDK's timeout, StallMS how long the server's first
	// delivery's answer took to be written.
	TimeoutMS int     `json:"timeout_ms"`
	StallMS   int     `json:"stall_ms"`
	Script    Script  `json:"script"`
	Ledger    []Entry `json:"ledger"`
}

// Script is sdk.js's output.
type Script struct {
	SDK      string           `json:"sdk"`
	Key      string           `json:"key"`
	Attempts []map[string]any `json:"attempts"`
	// SDKAttempts is what the AWS SDK itself counts ($metadata.attempts).
	SDKAttempts int    `json:"sdk_attempts,omitempty"`
	Result      string `json:"result,omitempty"`
	Error       *struct {
		Name    string `json:"name"`
		Status  int    `json:"status"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// Entry is a line of the app's ledger: a delivery received (hit, with its
// headers), an order made (effect), an answer written (sent, answer).
type Entry struct {
	At        string            `json:"at"`
	Kind      string            `json:"kind"`
	N         int               `json:"n"` // the delivery's number, in the order received
	RequestID string            `json:"request_id"`
	Method    string            `json:"method,omitempty"`
	URL       string            `json:"url,omitempty"`
	Headers   map[string]string `json:"headers,omitempty"`
	Key       string            `json:"key,omitempty"`
	OrderID   string            `json:"order_id,omitempty"`
	Status    int               `json:"status,omitempty"`
}

func (c *Capture) kind(k string) []Entry {
	var out []Entry
	for _, e := range c.Ledger {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

// nginxHTTP is the http block of the nginx in front of the app: nginx's
// own request id passed on, and no retry of its own.
const nginxHTTP = `  proxy_http_version 1.1;
  server {
    listen 127.0.0.1:%[1]d;
    location / {
      proxy_set_header X-Request-Id $request_id;
      proxy_next_upstream off;
      proxy_pass http://%[2]s;
    }
  }
`

// run captures one call of s against the server mode and keeps it.
func run(t *testing.T, s sdk, mode string) {
	node := capture.Tool(t, "apt-get install nodejs npm", "node")
	capture.NodeModules(t, nodeDir, append([]string{s.module}, serverModules...)...)
	dir := t.TempDir()
	logPath, ledger := filepath.Join(dir, appLog), filepath.Join(dir, "ledger.jsonl")
	port := capture.FreePort(t)
	app := capture.Start(t, capture.Cmd{Name: "app", Bin: node, Env: []string{"NODE_ENV=production"}, Listen: []string{capture.Addr(port)},
		Args: []string{filepath.Join(nodeDir, "app.js"), logPath, ledger, strconv.Itoa(port), mode, strconv.Itoa(int(stall / time.Millisecond))}})
	ngx := capture.StartNginx(t, capture.NginxConfig{
		Logs: []capture.AccessLog{{File: nginxLog, Format: capture.NginxSDK}},
		HTTP: func(p int) string { return fmt.Sprintf(nginxHTTP, p, app.Addr) },
	})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("app's stderr:\n%s", app.Output())
		}
	})

	c := Capture{Software: versions(t, node, append([]string{s.module}, serverModules...)), Proxy: ngx.Software(), Server: mode,
		TimeoutMS: int(sdkTimeout / time.Millisecond), StallMS: int(stall / time.Millisecond)}
	ctx, cancel := context.WithTimeout(context.Background(), scriptMax)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(nodeDir, "sdk.js"), s.name, ngx.URL, strconv.Itoa(c.TimeoutMS))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sdk.js %s: %v\n%s", s.name, err, stderr.String())
	}
	if err := json.Unmarshal(bytes.TrimSpace(out), &c.Script); err != nil {
		t.Fatalf("sdk.js %s printed %q: %v\n%s", s.name, out, err, stderr.String())
	}
	// The first delivery's handler answers after its stall: its lines
	// are part of what happened.
	waitSent(t, ledger, 1)
	ngx.Stop()
	app.Stop()
	c.Ledger = readLedger(t, ledger)
	folder := capture.Folder{
		Logs:       map[string]string{nginxLog: ngx.Log(nginxLog), appLog: logPath},
		Texts:      map[string]string{nginxConf: ngx.Config()},
		RecordName: harnessJSON, Record: c,
	}
	folder.Keep(t, s.dir(mode), *update, func(t *testing.T, dir string) { check(t, s, dir) })
}

// versions reads the installed packages' versions and node's.
func versions(t *testing.T, node string, modules []string) map[string]string {
	t.Helper()
	v := map[string]string{}
	for _, p := range modules {
		var pkg struct{ Version string }
		capture.ReadJSON(t, filepath.Join(nodeDir, "node_modules", p, "package.json"), &pkg)
		v[p] = pkg.Version
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	v["node"] = strings.TrimSpace(string(out))
	return v
}

// waitSent waits until the app wrote its answer to delivery n.
func waitSent(t *testing.T, path string, n int) {
	t.Helper()
	deadline := time.Now().Add(stall + 10*time.Second)
	for time.Now().Before(deadline) {
		for _, e := range readLedger(t, path) {
			if e.Kind == "sent" && e.N == n {
				time.Sleep(100 * time.Millisecond) // pino-http's line follows
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the app never answered delivery %d", n)
}

func readLedger(t *testing.T, path string) []Entry {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []Entry
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			if !bytes.HasSuffix(b, []byte("\n")) {
				break // a line being written
			}
			t.Fatalf("ledger: %v", err)
		}
		out = append(out, e)
	}
	return out
}
