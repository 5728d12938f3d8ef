package cmd

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idem-cli/idem/internal/iostreams"
)

// countingServer answers like a correct server replaying the incident's
// order, and counts what it receives.
func countingServer(t *testing.T) (*httptest.Server, *atomic.Int32, *atomic.Value) {
	var n atomic.Int32
	var last atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		last.Store(r.Header.Clone())
		w.Header().Set("Idempotent-Replayed", "true")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		w.Write([]byte(`{"id":"ord_8H2kQ","status":"created"}`))
	}))
	t.Cleanup(srv.Close)
	return srv, &n, &last
}

func runTTY(t *testing.T, stdin string, tty bool, args ...string) (int, string, string) {
	t.Helper()
	ios, in, out, errOut := iostreams.Test()
	in.WriteString(stdin)
	ios.SetTTY(tty, false, tty)
	f := &Factory{IO: ios, Now: time.Now, Getenv: func(string) string { return "" }}
	code := Run(context.Background(), f, args)
	return code, out.String(), errOut.String()
}

const incidentKey = "0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41"

func TestReplaySafety(t *testing.T) {
	srv, hits, last := countingServer(t)
	har := "../fixtures/incident/client.har"
	base := []string{"replay", "--key", incidentKey, har}

	code, _, errOut := runTTY(t, "", false, base...)
	if code != 2 || !strings.Contains(errOut, "without an explicit --target") {
		t.Errorf("no target: exit %d, %s", code, errOut)
	}
	code, _, errOut = runTTY(t, "", false, append(base, "--target", srv.URL)...)
	if code != 2 || !strings.Contains(errOut, "without confirmation") || hits.Load() != 0 {
		t.Errorf("no --yes off a terminal: exit %d, hits %d, %s", code, hits.Load(), errOut)
	}
	code, out, _ := runTTY(t, "", false, append(base, "--target", srv.URL, "--dry-run", "--probe", "mismatch,concurrent")...)
	if code != 0 || hits.Load() != 0 || !strings.Contains(out, "curl -sS -X POST") || strings.Contains(out, "eyJhbGciOiJIUzI1NiJ9") ||
		!strings.Contains(out, "4 request(s)") || !strings.Contains(out, "fresh key") {
		t.Errorf("dry run: exit %d, hits %d:\n%s", code, hits.Load(), out)
	}
	code, _, errOut = runTTY(t, "n\n", true, append(base, "--target", srv.URL)...)
	if code != 2 || hits.Load() != 0 || !strings.Contains(errOut, "Send? [y/N]") || !strings.Contains(errOut, "nothing sent") {
		t.Errorf("answered no: exit %d, hits %d, %s", code, hits.Load(), errOut)
	}
	code, out, _ = runTTY(t, "y\n", true, append(base, "--target", srv.URL)...)
	if code != 0 || hits.Load() != 1 || !strings.Contains(out, "3 passed, 0 failed") {
		t.Errorf("answered yes: exit %d, hits %d:\n%s", code, hits.Load(), out)
	}
	h := last.Load().(http.Header)
	if h.Get("Authorization") != "" || h.Get("Idempotency-Key") != incidentKey || !strings.HasPrefix(h.Get("X-Request-Id"), "idem-replay-") {
		t.Errorf("sent headers: %v", h)
	}
}

func TestReplayRefusals(t *testing.T) {
	srv, hits, _ := countingServer(t)
	dir := t.TempDir()
	// An unkeyed GET captured in the HAR, picked by its request id.
	code, _, errOut := runTTY(t, "", false, "replay", "--request-id", "a41e2f9c-77d0-4c18-b3a5-1e9d0c8b7a66", "--target", srv.URL, "--yes", "../fixtures/incident/client.har")
	if code != 2 || !strings.Contains(errOut, "has no Idempotency-Key") {
		t.Errorf("unkeyed: exit %d, %s", code, errOut)
	}
	code, _, _ = runTTY(t, "", false, "replay", "--request-id", "a41e2f9c-77d0-4c18-b3a5-1e9d0c8b7a66", "--target", srv.URL, "--yes", "--allow-unkeyed", "../fixtures/incident/client.har")
	if code >= 2 || hits.Load() != 1 {
		t.Errorf("--allow-unkeyed: exit %d, hits %d", code, hits.Load())
	}
	// Server logs hold no body.
	code, _, errOut = runTTY(t, "", false, "replay", "--key", incidentKey, "--target", srv.URL, "--yes", "../fixtures/incident/app.jsonl")
	if code != 2 || !strings.Contains(errOut, "--body @file") {
		t.Errorf("no body: exit %d, %s", code, errOut)
	}
	code, _, errOut = runTTY(t, "", false, "replay", "--key", "unknown-key", "--target", srv.URL, "--yes", "../fixtures/incident/client.har")
	if code != 2 || !strings.Contains(errOut, "no captured request for the key unknown-key") {
		t.Errorf("unknown key: exit %d, %s", code, errOut)
	}
	for _, bad := range [][]string{
		{"--target", "ftp://x"}, {"--target", srv.URL, "--probe", "nope"}, {"--target", srv.URL, "--concurrency", "99"},
		{"--target", srv.URL, "--header", "no colon"}, {"--target", srv.URL, "--profile", "x"}, {"--target", srv.URL, "-o", "yaml"},
	} {
		args := append([]string{"replay", "--key", incidentKey, "../fixtures/incident/client.har"}, bad...)
		if code, _, errOut := runTTY(t, "", false, args...); code != 2 {
			t.Errorf("%v: exit %d, %s", bad, code, errOut)
		}
	}
	// The body may come from a file when the logs hold none.
	body := filepath.Join(dir, "body.json")
	os.WriteFile(body, []byte(`{"sku":"SKU-1182","quantity":1,"amount":4200,"currency":"EUR"}`), 0o644)
	code, _, errOut = runTTY(t, "", false, "replay", "--key", incidentKey, "--target", srv.URL, "--yes", "--body", "@"+body, "../fixtures/incident/app.jsonl")
	if code != 0 {
		t.Errorf("--body @file: exit %d, %s", code, errOut)
	}
}

func TestReplayOutputs(t *testing.T) {
	srv, _, _ := countingServer(t)
	junit := filepath.Join(t.TempDir(), "replay.xml")
	code, out, _ := runTTY(t, "", false, "replay", "--key", incidentKey, "--target", srv.URL, "--yes", "-o", "json", "--junit", junit, "../fixtures/incident/client.har", "../fixtures/incident/app.jsonl")
	if code != 0 || !strings.Contains(out, `"schema":"idem.replay/v1"`) || !strings.Contains(out, `"name":"result id"`) ||
		!strings.Contains(out, `"expected":"ord_8H2kQ"`) {
		t.Errorf("json: exit %d\n%s", code, out)
	}
	x, err := os.ReadFile(junit)
	if err != nil || !strings.Contains(string(x), `<testsuite name="idem replay`) || !strings.Contains(string(x), `tests="3"`) {
		t.Errorf("junit: %v\n%s", err, x)
	}
	code, out, _ = runTTY(t, "", false, "replay", "--key", incidentKey, "--target", srv.URL, "--yes", "-o", "markdown", "../fixtures/incident/client.har", "../fixtures/incident/app.jsonl")
	if code != 0 || !strings.Contains(out, "## idem replay: the replay contract held") || !strings.Contains(out, "| replay | result id | PASS |") {
		t.Errorf("markdown: exit %d\n%s", code, out)
	}
}
