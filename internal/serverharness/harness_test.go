package serverharness

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/idem-cli/idem/internal/harness"
)

var update = flag.Bool("update", false, "rewrite fixtures/real/express-idempotency/ from this run's capture")

// captureDir is the committed capture; TestCapture checks it everywhere,
// TestExpressIdempotency records a new one where node and nginx are.
const captureDir = "../../fixtures/real/express-idempotency"

// The files of a capture folder.
const (
	nginxLog    = "access.json.log"
	appLog      = "app.jsonl"
	nginxConf   = "nginx.conf"
	harnessJSON = "harness.json"
)

const nodeDir = "testdata/node"

// Sent is one request the harness made and how it ended: for the client
// (a response or its own timeout) and for the service (the order its
// ledger recorded for the request id, if any).
type Sent struct {
	Step      string    `json:"step"`
	Key       string    `json:"key"`
	RequestID string    `json:"request_id"`
	Body      string    `json:"body"`
	DelayMS   int       `json:"delay_ms,omitempty"` // how long the handler waits before its effect
	TimeoutMS int       `json:"timeout_ms"`         // the client's timeout
	Start     time.Time `json:"start"`              // when the client sent it
	End       time.Time `json:"end"`                // when it got the response or gave up
	Ended     string    `json:"ended"`              // "response" or "timeout"
	Status    int       `json:"status,omitempty"`   // 0 when no response arrived
	Response  string    `json:"response,omitempty"` // the response body, cut short
	Effect    string    `json:"effect,omitempty"`   // the order the service's ledger recorded for it
}

// Capture is harness.json: the software that wrote the logs and the
// traffic it was driven with.
type Capture struct {
	Server map[string]string `json:"server"` // package -> version
	Proxy  string            `json:"proxy"`
	Sent   []Sent            `json:"sent"`
}

// needModules fails under CI and skips elsewhere when the app's npm
// packages are not installed.
func needModules(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(nodeDir, "node_modules", "express-idempotency")); err == nil {
		return
	}
	const install = "npm ci --prefix internal/serverharness/testdata/node"
	if os.Getenv("CI") != "" {
		t.Fatalf("express-idempotency is not installed; .ci/serverharness.sh installs it (%s) and CI must not skip this test", install)
	}
	t.Skipf("express-idempotency is not installed (%s); skipping", install)
}

// TestExpressIdempotency runs the app behind nginx, drives it, and checks
// the rules on what both wrote; -update keeps the capture.
func TestExpressIdempotency(t *testing.T) {
	node := harness.Tool(t, "apt-get install nodejs npm", "node")
	needModules(t)
	dir := t.TempDir()
	logPath, ledger := filepath.Join(dir, appLog), filepath.Join(dir, "ledger.jsonl")
	port := harness.FreePort(t)
	app := harness.Start(t, "app", nil, []string{"NODE_ENV=production"}, node,
		[]string{filepath.Join(nodeDir, "app.js"), logPath, ledger, strconv.Itoa(port)}, harness.Addr(port))
	ngx := harness.StartNginx(t, harness.Addr(port), harness.Addr(harness.FreePort(t)))

	c := Capture{Server: versions(t, node), Proxy: harness.Version("nginx", "nginx", "-v")}
	c.Sent = drive(t, ngx.URL, ledger)
	ngx.Stop()
	app.Stop(syscall.SIGTERM)
	effects := readLedger(t, ledger)
	for i := range c.Sent {
		c.Sent[i].Effect = effects[c.Sent[i].RequestID]
	}

	out := t.TempDir()
	copyFile(t, ngx.Logs.JSON, filepath.Join(out, nginxLog))
	copyFile(t, logPath, filepath.Join(out, appLog))
	harness.WriteFile(t, out, nginxConf, ngx.Config())
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	harness.WriteFile(t, out, harnessJSON, string(b)+"\n")
	checkCapture(t, out)
	if t.Failed() {
		t.Logf("app's stderr:\n%s", app.Output())
		return
	}
	if *update {
		for _, name := range []string{nginxLog, appLog, nginxConf, harnessJSON} {
			copyFile(t, filepath.Join(out, name), filepath.Join(captureDir, name))
		}
	}
}

// TestCapture checks the committed capture, so the rules stay proven where
// node and nginx are not installed.
func TestCapture(t *testing.T) {
	if _, err := os.Stat(filepath.Join(captureDir, harnessJSON)); err != nil {
		t.Fatalf("%v (go test ./internal/serverharness -run TestExpressIdempotency -update writes it)", err)
	}
	checkCapture(t, captureDir)
}

// versions reads the installed packages' versions and node's.
func versions(t *testing.T, node string) map[string]string {
	t.Helper()
	v := map[string]string{}
	for _, p := range []string{"express", "express-idempotency", "pino", "pino-http"} {
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

// drive sends the traffic through base, one connection per request as
// separate attempts make them.
func drive(t *testing.T, base, ledger string) []Sent {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	send := func(step, key, body string, delay, timeout time.Duration) Sent {
		s := Sent{Step: step, Key: key, RequestID: harness.NewID(), Body: body,
			DelayMS: int(delay / time.Millisecond), TimeoutMS: int(timeout / time.Millisecond)}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/orders", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", key)
		req.Header.Set("X-Request-Id", s.RequestID)
		req.Header.Set("X-Harness-Step", step)
		if delay > 0 {
			req.Header.Set("X-Harness-Delay-Ms", strconv.Itoa(s.DelayMS))
		}
		s.Start = time.Now().UTC()
		resp, err := client.Do(req)
		if err == nil {
			var b []byte
			b, err = io.ReadAll(io.LimitReader(resp.Body, 512))
			resp.Body.Close()
			s.Status, s.Response = resp.StatusCode, strings.TrimSpace(string(b))
		}
		s.End = time.Now().UTC()
		switch {
		case err == nil:
			s.Ended = "response"
		case errors.Is(err, context.DeadlineExceeded):
			s.Ended = "timeout"
			s.Status, s.Response = 0, ""
		default:
			t.Fatalf("%s: %v", step, err)
		}
		return s
	}
	var sent []Sent
	add := func(s Sent) Sent { sent = append(sent, s); return s }

	// A lost response: the client gives up, the order is still made; the
	// retry under the same key gets the stored answer.
	lost := harness.NewID()
	add(send("lost-response", lost, `{"sku":"sku-lost","qty":1}`, slowHandler, clientTimeout))
	waitEffect(t, ledger, "lost-response")
	add(send("same-key-retry", lost, `{"sku":"sku-lost","qty":1}`, 0, patient))

	// Concurrent duplicates: the second arrives while the first runs.
	conc := harness.NewID()
	var wg sync.WaitGroup
	var first Sent
	wg.Go(func() { first = send("concurrent-first", conc, `{"sku":"sku-concurrent","qty":1}`, inFlight, patient) })
	time.Sleep(secondAfter)
	dup := send("concurrent-duplicate", conc, `{"sku":"sku-concurrent","qty":1}`, 0, patient)
	wg.Wait()
	add(first)
	add(dup)

	// One key, another body.
	other := harness.NewID()
	add(send("first-body", other, `{"sku":"sku-first-body","qty":1}`, 0, patient))
	add(send("other-body", other, `{"sku":"sku-other-body","qty":2}`, 0, patient))

	// A retry under a new key after a timeout.
	add(send("timeout-before-new-key", harness.NewID(), `{"sku":"sku-new-key","qty":1}`, slowHandler, clientTimeout))
	waitEffect(t, ledger, "timeout-before-new-key")
	add(send("retry-new-key", harness.NewID(), `{"sku":"sku-new-key","qty":1}`, 0, patient))

	// Clean requests: one attempt each, each its own body.
	add(send("clean", harness.NewID(), `{"sku":"sku-clean-a","qty":1}`, 0, patient))
	add(send("clean", harness.NewID(), `{"sku":"sku-clean-b","qty":3}`, 0, patient))
	return sent
}

// ledgerLine is what the app appends once per order it makes.
type ledgerLine struct {
	Step      string `json:"step"`
	RequestID string `json:"request_id"`
	Key       string `json:"key"`
	OrderID   string `json:"order_id"`
}

func readLedger(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]string{}
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l ledgerLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("ledger: %v: %s", err, sc.Text())
		}
		out[l.RequestID] = l.OrderID
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// waitEffect waits until the app made the order of step, so the retry that
// follows comes after the effect as a real client's later retry would.
func waitEffect(t *testing.T, ledger, step string) {
	t.Helper()
	needle := fmt.Sprintf(`"step":%q`, step)
	for range 250 {
		if b, _ := os.ReadFile(ledger); strings.Contains(string(b), needle) {
			time.Sleep(50 * time.Millisecond) // its access line follows the effect
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the app made no order for %s", step)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	harness.WriteFile(t, filepath.Dir(to), filepath.Base(to), string(b))
}
