package cmd

import (
	"context"
	"io"
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

// statusServer answers every request with one status.
func statusServer(t *testing.T, status int) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(status)
		w.Write([]byte(`{"error":"no"}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestReplayInconclusive(t *testing.T) {
	har := "../fixtures/incident/client.har"
	tests := []struct {
		name   string
		status int
		extra  []string
		hint   []string
	}{
		{"401 names the dropped credentials", 401, nil, []string{"the captured Authorization was not resent", "--keep-auth"}},
		{"403 after --header gave one", 403, []string{"--header", "Authorization: Bearer fresh-value"}, []string{"held no credentials", "--header"}},
		{"404 says the route looks wrong", 404, nil, []string{"the route looks wrong for this target", "POST"}},
		{"503 before any contract answer", 503, nil, []string{"its upstream is down"}},
		{"429", 429, nil, []string{"before its idempotency layer"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := statusServer(t, tt.status)
			args := append([]string{"replay", "--key", incidentKey, "--target", srv.URL, "--yes", "--probe", "mismatch", har}, tt.extra...)
			code, out, errOut := run(t, "", args...)
			if code != exitInconclusive || !strings.Contains(out, "INCONCLUSIVE") || strings.Contains(out, "FAIL") ||
				!strings.Contains(out, "the replay is inconclusive (it never reached the contract)") || !strings.Contains(out, "not sent: probe mismatch") {
				t.Errorf("exit %d\n%s%s", code, out, errOut)
			}
			for _, h := range tt.hint {
				if !strings.Contains(out, h) {
					t.Errorf("no %q in\n%s", h, out)
				}
			}
		})
	}
	// Nothing listens: inconclusive too, in every format.
	srv := statusServer(t, 200)
	srv.Close()
	for _, format := range []string{"text", "json", "markdown"} {
		code, out, errOut := run(t, "", "replay", "--key", incidentKey, "--target", srv.URL, "--yes", "-o", format, har)
		if code != exitInconclusive || (format != "json" && !strings.Contains(out, "check --target")) {
			t.Errorf("-o %s: exit %d\n%s%s", format, code, out, errOut)
		}
		if format == "json" && (!strings.Contains(out, `"verdict":"inconclusive"`) || !strings.Contains(out, `"kind":"unreachable"`)) {
			t.Errorf("json:\n%s", out)
		}
	}
	_, help, _ := run(t, "", "help", "exit-codes")
	if !strings.Contains(help, "3    inconclusive") || !strings.Contains(help, "no answer reached the contract (replay)") {
		t.Errorf("help exit-codes:\n%s", help)
	}
}

// The original line cites the captured response, and its result id is
// read from the HAR's own response body.
func TestReplayOriginalIsTheCapturedResponse(t *testing.T) {
	srv, _, _ := countingServer(t)
	code, out, _ := run(t, "", "replay", "--key", incidentKey, "--target", srv.URL, "--yes", "../fixtures/incident/client.har", "../fixtures/incident/app.jsonl")
	if code != 0 || !strings.Contains(out, "original  201 ord_8H2kQ  ../fixtures/incident/client.har:") {
		t.Errorf("exit %d\n%s", code, out)
	}
}

func TestReplayMarkerRequirement(t *testing.T) {
	unmarked := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(201)
		w.Write([]byte(`{"id":"ord_8H2kQ","status":"created"}`))
	}))
	defer unmarked.Close()
	base := []string{"replay", "--key", incidentKey, "--target", unmarked.URL, "--yes", "../fixtures/incident/client.har"}
	if code, out, _ := run(t, "", base...); code != 0 || !strings.Contains(out, "INFO  replay marker") {
		t.Errorf("article: exit %d\n%s", code, out)
	}
	for _, extra := range [][]string{{"--require-marker"}, {"--profile", "stripe", "--conflict-status", "400"}} {
		if code, out, _ := run(t, "", append(base, extra...)...); code != exitFindings || !strings.Contains(out, "FAIL  replay marker") {
			t.Errorf("%v: exit %d\n%s", extra, code, out)
		}
	}
	if code, _, errOut := run(t, "", append(base, "--profile", "ietf", "--require-marker")...); code != exitError || !strings.Contains(errOut, "no replay marker") {
		t.Errorf("ietf --require-marker: exit %d %s", code, errOut)
	}
}

// Flags are validated in RunE, before the run function.
func TestNewCmdReplayValidatesBeforeRunning(t *testing.T) {
	tests := []struct {
		args  []string
		ok    bool
		check func(*replayOptions) bool
	}{
		{[]string{"--key", "k", "--target", "http://127.0.0.1:1", "f.har"}, true, func(o *replayOptions) bool {
			return o.replay.Target.Host == "127.0.0.1:1" && o.replay.Profile.Name == "article" && !o.replay.RequireMarker && o.Paths[0] == "f.har"
		}},
		{[]string{"--key", "k", "--target", "http://x", "--profile", "stripe"}, true, func(o *replayOptions) bool { return o.replay.RequireMarker }},
		{[]string{"--key", "k", "--target", "http://x", "--conflict-status", "417"}, true, func(o *replayOptions) bool { return o.replay.Profile.Conflict == 417 }},
		{[]string{"--target", "http://x"}, false, nil},
		{[]string{"--key", "k"}, false, nil},
		{[]string{"--key", "k", "--target", "ftp://x"}, false, nil},
		{[]string{"--key", "k", "--target", "http://x", "--concurrency", "17"}, false, nil},
		{[]string{"--key", "k", "--target", "http://x", "--body", "-", "-"}, false, nil},
		{[]string{"--key", "k", "--target", "http://x", "--timeout", "0s"}, false, nil},
	}
	for _, tt := range tests {
		ios, _, _, _ := iostreams.Test()
		var got *replayOptions
		cmd := newCmdReplay(&Factory{IO: ios, Now: time.Now}, func(o *replayOptions) error { got = o; return nil })
		cmd.SetArgs(tt.args)
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		err := cmd.Execute()
		if tt.ok && (err != nil || got == nil || !tt.check(got)) {
			t.Errorf("%v: err %v, options %+v", tt.args, err, got)
		}
		if !tt.ok && (err == nil || got != nil) {
			t.Errorf("%v: accepted (err %v, run %v)", tt.args, err, got != nil)
		}
	}
}

func TestNewCmdRulesValidatesBeforeRunning(t *testing.T) {
	tests := []struct {
		args []string
		ok   bool
		id   string
	}{
		{nil, true, ""},
		{[]string{"response-lost"}, true, "response-lost"},
		{[]string{"-o", "json"}, true, ""},
		{[]string{"no-such-rule"}, false, ""},
		{[]string{"-o", "yaml"}, false, ""},
		{[]string{"a", "b"}, false, ""},
	}
	for _, tt := range tests {
		ios, _, _, _ := iostreams.Test()
		var got *rulesOptions
		cmd := newCmdRules(&Factory{IO: ios, Now: time.Now}, func(o *rulesOptions) error { got = o; return nil })
		cmd.SetArgs(tt.args)
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		err := cmd.Execute()
		if tt.ok && (err != nil || got == nil || got.ID != tt.id) {
			t.Errorf("%v: err %v, options %+v", tt.args, err, got)
		}
		if !tt.ok && (err == nil || got != nil) {
			t.Errorf("%v: accepted", tt.args)
		}
	}
	if code, out, _ := run(t, "", "rules", "response-lost"); code != 0 || !strings.Contains(out, "response-lost") {
		t.Errorf("rules response-lost: exit %d\n%s", code, out)
	}
}

// A DSN password in a log message, and a target's userinfo, reach no output.
func TestNoDSNOrUserinfoPassword(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "app.jsonl")
	os.WriteFile(log, []byte(`{"time":"2026-11-30T09:14:02Z","level":"ERROR","msg":"db down: postgres://app:pw-9f8e7d@db/shop","request_id":"r1","idempotency_key":"k-dsn","route":"/v1/orders","method":"POST","status":500}`+"\n"), 0o644)
	for _, args := range [][]string{{"trace", "k-dsn", "-o", "json", log}, {"trace", "k-dsn", log}, {"diagnose", "--fail-on", "info", "-o", "json", log}} {
		_, out, errOut := run(t, "", args...)
		if strings.Contains(out+errOut, "pw-9f8e7d") {
			t.Errorf("%v printed the DSN password:\n%s", args, out)
		}
	}
	srv, _, _ := countingServer(t)
	target := strings.Replace(srv.URL, "http://", "http://ops:tg-pw-1234@", 1)
	for _, format := range []string{"text", "json", "markdown"} {
		_, out, errOut := run(t, "", "replay", "--key", incidentKey, "--target", target, "--yes", "-o", format, "../fixtures/incident/client.har")
		if strings.Contains(out+errOut, "tg-pw-1234") {
			t.Errorf("-o %s printed the target's password:\n%s%s", format, out, errOut)
		}
	}
	_, out, _ := run(t, "", "replay", "--key", incidentKey, "--target", target, "--dry-run", "../fixtures/incident/client.har")
	if strings.Contains(out, "tg-pw-1234") {
		t.Errorf("--dry-run printed the target's password:\n%s", out)
	}
}

func TestReplayEffectsURLErrorsNameTheFlag(t *testing.T) {
	srv, _, _ := countingServer(t)
	dead := statusServer(t, 200)
	dead.Close()
	for _, effects := range []string{srv.URL + "/v1/effects", dead.URL} {
		code, _, errOut := run(t, "", "replay", "--key", incidentKey, "--target", srv.URL, "--yes", "--effects-url", effects, "../fixtures/incident/client.har")
		if code != exitError || !strings.Contains(errOut, "--effects-url: counting effects") {
			t.Errorf("%s: exit %d %s", effects, code, errOut)
		}
	}
}

// --body is bounded: /dev/zero is an error, not a crash.
func TestReplayBodyIsBounded(t *testing.T) {
	srv, hits, _ := countingServer(t)
	start := time.Now()
	code, _, errOut := runTTY(t, "", false, "replay", "--key", incidentKey, "--target", srv.URL, "--yes", "--body", "@/dev/zero", "../fixtures/incident/app.jsonl")
	if code != 2 || hits.Load() != 0 || !strings.Contains(errOut, "--body: longer than 8 MiB") || time.Since(start) > 30*time.Second {
		t.Errorf("a body of /dev/zero: exit %d, hits %d after %v: %s", code, hits.Load(), time.Since(start), errOut)
	}
	code, _, errOut = runTTY(t, strings.Repeat("x", 8<<20+1), false, "replay", "--key", incidentKey, "--target", srv.URL, "--yes", "--body", "-", "../fixtures/incident/app.jsonl")
	if code != 2 || hits.Load() != 0 || !strings.Contains(errOut, "--body: longer than 8 MiB") {
		t.Errorf("a body on standard input a byte past the bound: exit %d, hits %d: %s", code, hits.Load(), errOut)
	}
}

// --keep-header names a routing or trust header; another is a usage error.
func TestReplayKeepHeader(t *testing.T) {
	srv, _, _ := countingServer(t)
	code, _, errOut := runTTY(t, "", false, "replay", "--key", incidentKey, "--target", srv.URL, "--yes", "--keep-header", "Content-Type", "../fixtures/incident/client.har")
	if code != 2 || !strings.Contains(errOut, "only routing and trust headers are withheld") {
		t.Errorf("--keep-header Content-Type: exit %d, %s", code, errOut)
	}
	code, _, errOut = runTTY(t, "", false, "replay", "--key", incidentKey, "--target", srv.URL, "--yes", "--keep-header", "x-forwarded-for", "../fixtures/incident/client.har")
	if code != 0 {
		t.Errorf("--keep-header x-forwarded-for: exit %d, %s", code, errOut)
	}
}

// The prompt says each step's method, path and host and the effects it
// makes; --yes off a terminal sends the replay and only the probes named,
// and says which were not run and how to ask.
func TestReplayPromptAndProbesNamed(t *testing.T) {
	srv, hits, _ := countingServer(t)
	host := strings.TrimPrefix(srv.URL, "http://")
	base := []string{"replay", "--key", incidentKey, "--target", srv.URL, "../fixtures/incident/client.har"}
	code, _, errOut := runTTY(t, "n\n", true, append(base, "--probe", "concurrent,mismatch")...)
	for _, want := range []string{
		"replay: POST /v1/orders on " + host + ", 1 request: no new effect",
		"probe concurrent: POST /v1/orders on " + host + ", 2 requests: makes 1 new effect (up to 2 on a server that breaks the contract)",
		"probe mismatch: POST /v1/orders on " + host,
		"captured credentials not resent: Authorization",
		"That is 1 new effect(s) (an order, a charge) on a server that keeps the contract, up to 4 on one that breaks it. Send? [y/N]",
		"probes not run: lost-response, missing-key, in-progress; name them with --probe lost-response,missing-key,in-progress",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, errOut)
		}
	}
	if code != 2 || hits.Load() != 0 {
		t.Errorf("answered no: exit %d, hits %d", code, hits.Load())
	}
	code, _, errOut = runTTY(t, "", false, append(base, "--yes")...)
	if code != 0 || hits.Load() != 1 || !strings.Contains(errOut, "probes not run: mismatch, concurrent, lost-response, missing-key, in-progress; name them with --probe") {
		t.Errorf("--yes alone off a terminal: exit %d, hits %d (want the replay alone):\n%s", code, hits.Load(), errOut)
	}
	if !strings.Contains(errOut, "idem: sending 1 request(s) to "+srv.URL+": no new effect") {
		t.Errorf("--yes: what is sent not said:\n%s", errOut)
	}
}

// A redirect from the target (http→https at the edge) is inconclusive,
// exit 3, naming the Location, and no probe is sent.
func TestReplayRedirectIsInconclusive(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Redirect(w, r, "https://shop.example.com"+r.URL.Path, http.StatusMovedPermanently)
	}))
	t.Cleanup(srv.Close)
	code, out, errOut := runTTY(t, "", false, "replay", "--key", incidentKey, "--target", srv.URL, "--yes", "--probe", "mismatch,concurrent", "../fixtures/incident/client.har")
	if code != 3 || hits.Load() != 1 || !strings.Contains(out, "https://shop.example.com/v1/orders") || !strings.Contains(out, "not sent: probe mismatch, probe concurrent") {
		t.Errorf("a 301: exit %d, hits %d (want 3, 1):\n%s\n%s", code, hits.Load(), out, errOut)
	}
}
