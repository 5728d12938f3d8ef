package fiberharness

import (
	"context"
	"flag"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idem-cli/idem/internal/kit/capture"
)

var update = flag.Bool("update", false, "rewrite fixtures/real/fiber*/ from this run's captures")

// A variant is one configuration of the service and the folder its
// capture is kept in: TestCapture checks each everywhere, TestFiber
// records them again where Caddy is installed.
type variant struct {
	name   string // the folder under fixtures/real/
	hashed bool   // the access line carries payload_hash
}

var variants = []variant{
	{"fiber", false},
	{"fiber-payload-hash", true},
}

func (v variant) dir() string { return filepath.Join("..", "..", "..", "fixtures", "real", v.name) }

// The files of a capture folder.
const (
	caddyLog    = "access.json"
	appLog      = "app.jsonl"
	caddyConf   = "Caddyfile"
	harnessJSON = "harness.json"
)

// Capture is harness.json: the software that wrote the logs, how the
// middleware was configured, and the traffic it was driven with.
type Capture struct {
	Server         map[string]string `json:"server"` // module -> version
	Proxy          string            `json:"proxy"`
	Config         map[string]string `json:"config"`
	PayloadsLogged bool              `json:"payloads_logged"` // the access line carries payload_hash
	// Sent is the traffic: each request as the client saw it end, with
	// the order the service's ledger recorded for it (Effect).
	Sent []capture.Sent `json:"sent"`
}

// TestFiber runs each variant of the service behind Caddy, drives it,
// and checks the rules on what both wrote; -update keeps the captures.
func TestFiber(t *testing.T) {
	capture.Tool(t, "apt-get install caddy", "caddy")
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) { record(t, v) })
	}
}

func record(t *testing.T, v variant) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, appLog)
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l, err := capture.OpenLedger(filepath.Join(dir, "ledger.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	addr, stopApp := startApp(t, f, l, v.hashed)
	cdy := capture.StartCaddy(t, capture.CaddyConfig{
		Log:    capture.AccessLog{File: caddyLog, Format: capture.CaddyJSON},
		Routes: "\treverse_proxy " + addr + "\n",
	})

	c := Capture{
		Server: versions(t),
		Proxy:  cdy.Software(),
		Config: map[string]string{
			"idempotency": "idempotency.New(idempotency.Config{Lifetime: " + lifetime.String() + "}): default KeyHeader X-Idempotency-Key, in-memory lock and storage",
			"app":         "fiber.New(fiber.Config{ProxyHeader: fiber.HeaderXForwardedFor})",
			"requestid":   "requestid.New(): X-Request-Id, or a UUID",
			"logger":      "logger.New(logger.Config{Format: accessFormat, TimeFormat: time.RFC3339Nano, TimeZone: \"UTC\"}); TimeInterval left at 500ms",
			"format":      strings.TrimSpace(accessFormat),
		},
	}
	if v.hashed {
		c.PayloadsLogged = true
		c.Config["logger"] = "logger.New(logger.Config{Format: hashedFormat, CustomTags: payload_hash (sha256 of c.Body()), TimeFormat: time.RFC3339Nano, TimeZone: \"UTC\"}); TimeInterval left at 500ms"
		c.Config["format"] = strings.TrimSpace(hashedFormat)
	}
	c.Sent = drive(t, cdy.URL, l.Path)
	if t.Failed() {
		t.FailNow()
	}
	stopApp()
	capture.WaitLogged(t, c.Sent, cdy.Log(caddyLog))
	if err := capture.AttachEffects(c.Sent, l.Path); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := capture.MarshalRecord(c)
			t.Logf("harness.json:\n%s", b)
		}
	})
	folder := capture.Folder{
		Logs:       map[string]string{caddyLog: cdy.Log(caddyLog), appLog: logPath},
		Texts:      map[string]string{caddyConf: cdy.Config()},
		RecordName: harnessJSON, Record: c,
	}
	folder.Keep(t, v.dir(), *update, func(t *testing.T, dir string) { checkCapture(t, v.name, dir) })
}

// TestCapture checks the committed captures, so the rules stay proven
// where Caddy is not installed.
func TestCapture(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			capture.Recorded(t, v.dir(), harnessJSON, "go test ./internal/kit/fiberharness -run TestFiber -update")
			checkCapture(t, v.name, v.dir())
		})
	}
}

// versions names the modules that wrote the log, as go.mod requires
// them (a test binary's build info does not list its dependencies).
func versions(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("../../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	v := map[string]string{"go": runtime.Version()}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && (f[0] == "github.com/gofiber/fiber/v2" || f[0] == "github.com/valyala/fasthttp") {
			v[f[0]] = f[1]
		}
	}
	if v["github.com/gofiber/fiber/v2"] == "" {
		t.Fatal("go.mod does not require github.com/gofiber/fiber/v2")
	}
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
	pastLifetime  = lifetime + 1500*time.Millisecond
)

// user is one client: its own loopback address (Linux routes all of
// 127/8 to lo), so that each story's requests come from one user as Caddy
// logs remote_ip, and a new connection per request as separate attempts
// make them.
type user struct {
	ip     string
	client *http.Client
}

func newUser(n int) user {
	ip := "127.0.0." + strconv.Itoa(n)
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	return user{ip: ip, client: &http.Client{Transport: &http.Transport{DisableKeepAlives: true, DialContext: d.DialContext}}}
}

// drive sends the traffic through base: each story from its own user.
func drive(t *testing.T, base, ledger string) []capture.Sent {
	t.Helper()
	send := func(u user, step, key, body string, delay, timeout time.Duration) capture.Sent {
		s := capture.Send(context.Background(), capture.Request{Step: step, Base: base, Path: "/v1/orders", Client: u.client,
			KeyHeader: "X-Idempotency-Key", Key: key, RequestID: capture.NewID(), Body: body, Delay: delay, Timeout: timeout})
		s.Client = u.ip
		if s.Ended != capture.EndedResponse && s.Ended != capture.EndedTimeout {
			t.Errorf("%s: %s", step, s.Error) // send also runs off the test's goroutine
		}
		return s
	}
	var sent []capture.Sent
	add := func(s capture.Sent) { sent = append(sent, s) }

	// Clean requests: one attempt each, each its own body and user.
	add(send(newUser(10), "clean", capture.NewID(), `{"sku":"sku-clean-a","qty":1}`, 0, patient))
	add(send(newUser(11), "clean", capture.NewID(), `{"sku":"sku-clean-b","qty":3}`, 0, patient))

	// Concurrent duplicates: the second arrives while the first runs; the
	// middleware holds it on the key's lock and then replays the first's
	// response.
	u := newUser(20)
	conc := capture.NewID()
	var wg sync.WaitGroup
	var first capture.Sent
	wg.Go(func() {
		first = send(u, "concurrent-first", conc, `{"sku":"sku-concurrent","qty":1}`, inFlight, patient)
	})
	time.Sleep(secondAfter)
	dup := send(u, "concurrent-duplicate", conc, `{"sku":"sku-concurrent","qty":1}`, 0, patient)
	wg.Wait()
	add(first)
	add(dup)

	// One key, another body: the middleware does not compare bodies.
	u = newUser(30)
	other := capture.NewID()
	add(send(u, "first-body", other, `{"sku":"sku-first-body","qty":1}`, 0, patient))
	add(send(u, "other-body", other, `{"sku":"sku-other-body","qty":2}`, 0, patient))

	// A retry within the key's Lifetime gets the stored response; one
	// after it finds the storage has forgotten the key.
	u = newUser(40)
	exp := capture.NewID()
	add(send(u, "before-expiry", exp, `{"sku":"sku-expiry","qty":1}`, 0, patient))
	add(send(u, "replay-before-expiry", exp, `{"sku":"sku-expiry","qty":1}`, 0, patient))
	time.Sleep(pastLifetime)
	add(send(u, "after-expiry", exp, `{"sku":"sku-expiry","qty":1}`, 0, patient))

	// A lost response: the client gives up, the order is still made; the
	// retry under the same key gets the stored answer.
	u = newUser(50)
	lost := capture.NewID()
	add(send(u, "lost-response", lost, `{"sku":"sku-lost","qty":1}`, slowHandler, clientTimeout))
	waitEffect(t, ledger, "lost-response")
	add(send(u, "same-key-retry", lost, `{"sku":"sku-lost","qty":1}`, 0, patient))

	// A retry under a new key after a timeout.
	u = newUser(60)
	add(send(u, "timeout-before-new-key", capture.NewID(), `{"sku":"sku-new-key","qty":1}`, slowHandler, clientTimeout))
	waitEffect(t, ledger, "timeout-before-new-key")
	add(send(u, "retry-new-key", capture.NewID(), `{"sku":"sku-new-key","qty":1}`, 0, patient))
	return sent
}

// waitEffect waits until the service made the order of step, so the retry
// that follows comes after the effect as a real client's later retry would.
func waitEffect(t *testing.T, ledger, step string) {
	t.Helper()
	if _, err := capture.WaitLedger(context.Background(), ledger, step); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // its access line and stored response follow the effect
}
