package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/internal/kit/capture"
	"github.com/idem-cli/idem/load"
)

// The end-to-end tests put a real nginx (its own prefix and config in a
// temporary directory, listening on 127.0.0.1) in front of the gateway in
// each fault mode, drive it with a client that records a HAR file, and run
// the diagnosis on the three real logs: client HAR, nginx JSON access log,
// gateway log.

// nginxHTTP is the http block of nginx's configuration (the capture kit
// writes the rest, with the access log).
const nginxHTTP = `  server {
    listen 127.0.0.1:%[1]d;
    location / {
      proxy_pass http://%[2]s;
      proxy_http_version 1.1;
      proxy_set_header X-Request-Id $http_x_request_id;
      proxy_ignore_client_abort on;
      proxy_read_timeout 30s;
      proxy_next_upstream off;
    }
  }
`

// startNginx runs nginx in front of upstream and returns its base URL and
// its access log (capture.NginxJSON).
func startNginx(t *testing.T, upstream string) (string, string) {
	t.Helper()
	n := capture.StartNginx(t, capture.NginxConfig{
		Logs: []capture.AccessLog{{File: "access.jsonl", Format: capture.NginxJSON}},
		HTTP: func(port int) string { return fmt.Sprintf(nginxHTTP, port, upstream) },
	})
	return n.URL, n.Log("access.jsonl")
}

// harRecorder is a test client that records every delivery as a HAR entry,
// as a browser's network panel would.
type harRecorder struct {
	mu      sync.Mutex
	base    string
	entries []map[string]any
	n       int
}

func (h *harRecorder) nextID() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.n++
	return fmt.Sprintf("e2e-%04d-%d", h.n, time.Now().UnixNano()%1e6)
}

// send posts body with key (none when "") and a new request id.
func (h *harRecorder) send(path, key, body string, timeout time.Duration) int {
	rid := h.nextID()
	req, _ := http.NewRequest(http.MethodPost, h.base+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Request-Id", rid)
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	start := time.Now()
	client := &http.Client{Timeout: timeout, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	elapsed := float64(time.Since(start).Microseconds()) / 1000
	var headers []map[string]string
	for name, vs := range req.Header {
		for _, v := range vs {
			headers = append(headers, map[string]string{"name": name, "value": v})
		}
	}
	sort.Slice(headers, func(i, j int) bool { return headers[i]["name"] < headers[j]["name"] })
	entry := map[string]any{
		"startedDateTime": start.UTC().Format("2006-01-02T15:04:05.000Z"),
		"time":            elapsed,
		"request": map[string]any{"method": "POST", "url": h.base + path, "httpVersion": "HTTP/1.1", "headers": headers,
			"cookies": []any{}, "queryString": []any{}, "headersSize": -1, "bodySize": len(body),
			"postData": map[string]any{"mimeType": "application/json", "text": body}},
		"cache": map[string]any{}, "timings": map[string]any{"send": 0, "wait": elapsed, "receive": 0},
	}
	status := 0
	if err != nil {
		errName := "net::ERR_EMPTY_RESPONSE"
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			errName = "net::ERR_TIMED_OUT"
		}
		entry["response"] = map[string]any{"status": 0, "statusText": "", "httpVersion": "", "headers": []any{}, "cookies": []any{},
			"content": map[string]any{"size": 0, "mimeType": "x-unknown"}, "redirectURL": "", "headersSize": -1, "bodySize": -1, "_error": errName}
	} else {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		status = resp.StatusCode
		var rh []map[string]string
		for name, vs := range resp.Header {
			for _, v := range vs {
				rh = append(rh, map[string]string{"name": name, "value": v})
			}
		}
		entry["response"] = map[string]any{"status": status, "statusText": http.StatusText(status), "httpVersion": "HTTP/1.1", "headers": rh,
			"cookies": []any{}, "content": map[string]any{"size": len(b), "mimeType": "application/json", "text": string(b)},
			"redirectURL": "", "headersSize": -1, "bodySize": len(b)}
	}
	h.mu.Lock()
	h.entries = append(h.entries, entry)
	h.mu.Unlock()
	return status
}

func (h *harRecorder) write(t *testing.T, path string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	sort.SliceStable(h.entries, func(i, j int) bool {
		return h.entries[i]["startedDateTime"].(string) < h.entries[j]["startedDateTime"].(string)
	})
	doc := map[string]any{"log": map[string]any{"version": "1.2", "creator": map[string]any{"name": "idem-e2e", "version": "1"}, "entries": h.entries}}
	b, _ := json.MarshalIndent(doc, "", "  ")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

type e2e struct {
	t      *testing.T
	dir    string
	client *harRecorder
	logs   []string
}

// setup starts (optionally) a provider, the gateway and nginx in front.
func setup(t *testing.T, opts Options, withProvider bool) *e2e {
	e := &e2e{t: t, dir: t.TempDir()}
	openLog := func(name string) *capture.SyncWriter {
		p := filepath.Join(e.dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		e.logs = append(e.logs, p)
		t.Cleanup(func() { f.Close() })
		return capture.NewSyncWriter(f)
	}
	if withProvider {
		ps := httptest.NewServer(NewProvider(openLog("provider.jsonl"), nil).Handler())
		t.Cleanup(ps.Close)
		opts.Faults.External = ps.URL
	}
	opts.Log = openLog("gateway.jsonl")
	store, _ := OpenStore("")
	gs := httptest.NewServer(New(opts, store).Handler())
	t.Cleanup(gs.Close)
	base, access := startNginx(t, strings.TrimPrefix(gs.URL, "http://"))
	e.logs = append(e.logs, access)
	e.client = &harRecorder{base: base}
	return e
}

// diagnose writes the HAR and runs idem's diagnosis on every log.
func (e *e2e) diagnose() []*diagnose.Finding {
	time.Sleep(100 * time.Millisecond) // let nginx write its last line
	har := filepath.Join(e.dir, "client.har")
	e.client.write(e.t, har)
	set, err := load.Files(context.Background(), append([]string{har}, e.logs...), load.Options{Read: ingest.Options{}, Build: diagnose.DefaultOptions().Build()})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, in := range set.Inputs {
		if in.Skipped > 0 || in.Observations == 0 {
			e.t.Errorf("%s: %d observations, %d skipped %v", filepath.Base(in.Path), in.Observations, in.Skipped, in.SkipSamples)
		}
	}
	return diagnose.Run(set, diagnose.DefaultOptions()).Findings
}

func (e *e2e) expect(findings []*diagnose.Finding, want ...string) {
	e.t.Helper()
	var got []string
	for _, f := range findings {
		got = append(got, f.Rule.ID+"/"+f.Severity.String())
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		for _, f := range findings {
			e.t.Logf("%s: %s", f.Rule.ID, f.Narrative)
		}
		for _, p := range e.logs {
			b, _ := os.ReadFile(p)
			e.t.Logf("--- %s\n%s", filepath.Base(p), b)
		}
		e.t.Fatalf("rules fired %v, want %v", got, want)
	}
}

const demo = "/v1/demo-requests"

func TestNginxEndToEnd(t *testing.T) {
	t.Run("lost response, retry with the same key", func(t *testing.T) {
		e := setup(t, Options{Delay: 700 * time.Millisecond}, false)
		if s := e.client.send(demo, "e2e-lost-1", `{"amount":4200,"sku":"A"}`, 250*time.Millisecond); s != 0 {
			t.Fatalf("the first delivery got %d, want a timeout", s)
		}
		time.Sleep(800 * time.Millisecond)
		if s := e.client.send(demo, "e2e-lost-1", `{"amount":4200,"sku":"A"}`, 5*time.Second); s != 201 {
			t.Fatalf("the retry got %d", s)
		}
		e.expect(e.diagnose(), "response-lost/info")
	})
	t.Run("fail after commit, retry with the same key", func(t *testing.T) {
		e := setup(t, Options{Faults: Faults{FailAfterCommit: true}}, false)
		if s := e.client.send(demo, "e2e-fac-1", `{"amount":1}`, 5*time.Second); s != 502 {
			t.Fatalf("the first delivery got %d, want nginx's 502", s)
		}
		if s := e.client.send(demo, "e2e-fac-1", `{"amount":1}`, 5*time.Second); s != 201 {
			t.Fatalf("the retry got %d", s)
		}
		e.expect(e.diagnose(), "response-lost/info")
	})
	t.Run("retry with a new key", func(t *testing.T) {
		e := setup(t, Options{Delay: 700 * time.Millisecond}, false)
		e.client.send(demo, "e2e-nk-1", `{"amount":900}`, 250*time.Millisecond)
		time.Sleep(800 * time.Millisecond)
		if s := e.client.send(demo, "e2e-nk-2", `{"amount":900}`, 5*time.Second); s != 201 {
			t.Fatalf("the retry got %d", s)
		}
		e.expect(e.diagnose(), "retry-new-key/critical", "response-lost/warning")
	})
	t.Run("changed payload under one key", func(t *testing.T) {
		e := setup(t, Options{}, false)
		e.client.send(demo, "e2e-pm-1", `{"amount":1200}`, 5*time.Second)
		if s := e.client.send(demo, "e2e-pm-1", `{"amount":12000}`, 5*time.Second); s != 409 {
			t.Fatalf("the changed payload got %d", s)
		}
		e.expect(e.diagnose(), "payload-mismatch/warning")
	})
	t.Run("changed payload, no fingerprint check", func(t *testing.T) {
		e := setup(t, Options{Faults: Faults{NoFingerprint: true}}, false)
		e.client.send(demo, "e2e-pm-2", `{"amount":1200}`, 5*time.Second)
		e.client.send(demo, "e2e-pm-2", `{"amount":12000}`, 5*time.Second)
		e.expect(e.diagnose(), "payload-mismatch/critical")
	})
	t.Run("two concurrent deliveries, non-atomic reservation", func(t *testing.T) {
		e := setup(t, Options{Faults: Faults{NonAtomic: true}, NonAtomicWindow: 300 * time.Millisecond}, false)
		var wg sync.WaitGroup
		for i := 0; i < 2; i++ {
			wg.Add(1)
			go func() { defer wg.Done(); e.client.send(demo, "e2e-na-1", `{"seats":["F12"]}`, 5*time.Second) }()
			time.Sleep(30 * time.Millisecond)
		}
		wg.Wait()
		e.expect(e.diagnose(), "non-atomic-reservation/critical")
	})
	t.Run("two concurrent deliveries, atomic reservation", func(t *testing.T) {
		e := setup(t, Options{Delay: 400 * time.Millisecond}, false)
		var wg sync.WaitGroup
		for i := 0; i < 2; i++ {
			wg.Add(1)
			go func() { defer wg.Done(); e.client.send(demo, "e2e-ip-1", `{"seats":["F13"]}`, 5*time.Second) }()
			time.Sleep(50 * time.Millisecond)
		}
		wg.Wait()
		e.expect(e.diagnose(), "in-progress-retry/warning")
	})
	t.Run("duplicate at the external provider", func(t *testing.T) {
		e := setup(t, Options{Faults: Faults{CrashAfterExternal: true}}, true)
		if s := e.client.send(demo, "e2e-ext-1", `{"amount":5900}`, 5*time.Second); s != 502 {
			t.Fatalf("the crashed delivery got %d", s)
		}
		if s := e.client.send(demo, "e2e-ext-1", `{"amount":5900}`, 5*time.Second); s != 201 {
			t.Fatalf("the retry got %d", s)
		}
		e.expect(e.diagnose(), "external-duplicate/critical")
	})
	t.Run("expired key", func(t *testing.T) {
		e := setup(t, Options{TTL: 300 * time.Millisecond}, false)
		e.client.send(demo, "e2e-ttl-1", `{"slot":"10:00"}`, 5*time.Second)
		time.Sleep(500 * time.Millisecond)
		if s := e.client.send(demo, "e2e-ttl-1", `{"slot":"10:00"}`, 5*time.Second); s != 201 {
			t.Fatalf("the late retry got %d", s)
		}
		e.expect(e.diagnose(), "key-expired/critical")
	})
}
