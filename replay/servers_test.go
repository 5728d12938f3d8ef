package replay

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/contract"
	"github.com/idem-cli/idem/model"
)

// The third-party servers are Node programs from npm (express with
// express-idempotency, @node-idempotency/core), started on 127.0.0.1 by
// testdata/servers/server.js. .ci/replay.sh installs them with npm ci.

const serversDir = "testdata/servers"

// nodeServer starts server.js in mode and returns its base URL.
func nodeServer(t *testing.T, mode string, env ...string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	missing := err != nil
	for _, pkg := range []string{"express", "express-idempotency", "@node-idempotency/core"} {
		if _, err := os.Stat(filepath.Join(serversDir, "node_modules", pkg, "package.json")); err != nil {
			missing = true
		}
	}
	if missing {
		if os.Getenv("CI") != "" {
			t.Fatal("CI must run this test: node and `npm ci --prefix replay/testdata/servers` are needed (.ci/replay.sh)")
		}
		t.Skip("node or the test servers' npm packages are missing; run: npm ci --prefix replay/testdata/servers")
	}
	cmd := exec.Command(node, "server.js", mode)
	cmd.Dir = serversDir
	cmd.Env = append(os.Environ(), append([]string{"NODE_ENV=test"}, env...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(out)
		if s.Scan() {
			line <- s.Text()
		}
		close(line)
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case l := <-line:
		port, ok := strings.CutPrefix(l, "listening ")
		if !ok {
			t.Fatalf("%s: %q", mode, l)
		}
		return "http://127.0.0.1:" + port
	case <-time.After(15 * time.Second):
		t.Fatalf("%s did not start", mode)
	}
	return ""
}

const orderBody = `{"sku":"SKU-1182","quantity":1,"amount":4200}`

// harCapture makes the original delivery of key k, as a browser would,
// and returns what a HAR entry would hold of it.
func harCapture(t *testing.T, base, k string) *model.Captured {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/v1/orders", strings.NewReader(orderBody))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", k)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return harEntry(k, resp.StatusCode, b)
}

func harEntry(k string, status int, respBody []byte) *model.Captured {
	return &model.Captured{Method: "POST", URL: "https://shop.example.com/v1/orders", Key: k, RequestID: "req-51",
		HasBody: true, Body: []byte(orderBody), Status: status, ResponseBody: respBody,
		Source: model.Source{File: "client.har", Line: 1},
		Headers: []model.Header{{Name: "Content-Type", Value: "application/json"}, {Name: "Authorization", Value: "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig"},
			{Name: "Idempotency-Key", Value: k}, {Name: "X-Request-Id", Value: "req-51"}}}
}

func replayAgainst(t *testing.T, base string, c *model.Captured, profile contract.Profile, probes ...string) *Result {
	t.Helper()
	target, _ := url.Parse(base)
	p, err := NewPlan(c, c.Key, OriginalOf(nil, c.Key, []*model.Captured{c}), Options{Target: target, Profile: profile,
		Probes: probes, EffectsURL: base + "/v1/effects", Timeout: 5 * time.Second, Settle: 300 * time.Millisecond, Concurrency: 3})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Execute(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func withCodes(name string, conflict int) contract.Profile {
	p := contract.Profiles[name]
	p.Conflict = conflict
	return p
}

func outcomes(res *Result) []string {
	var out []string
	for _, a := range res.Assertions {
		out = append(out, a.outcome()+" "+a.Probe+"/"+a.Name+": expected "+a.Expected+", got "+a.Actual)
	}
	return out
}

func hasOutcome(res *Result, outcome, name string) bool {
	for _, a := range res.Assertions {
		if a.outcome() == outcome && a.Probe+"/"+a.Name == name {
			return true
		}
	}
	return false
}

func TestThirdPartyServers(t *testing.T) {
	all := []string{probeMismatch, probeConcurrent, probeLostResponse, probeInProgress}
	tests := []struct {
		name    string
		mode    string
		profile contract.Profile
		probes  []string
		verdict string
		must    []string // outcome and probe/assertion that must be reported
		delay   string   // the handler's, longer than the in-progress probe's 150 ms
	}{
		{"express-idempotency as its README sets it up holds the contract", "express-idempotency", withCodes("article", 417), all,
			VerdictHeld, []string{"PASS /result id", "INFO /replay marker Idempotent-Replayed", "PASS /effects unchanged",
				"PASS mismatch/conflict status", "PASS concurrent/one fresh success", "PASS concurrent/exactly one effect",
				"PASS lost-response/exactly one effect", "PASS in-progress/in-progress status", "INFO in-progress/Retry-After"}, "400"},
		{"express-idempotency without isHit in the route makes an effect per replay", "express-idempotency-no-hit-check", withCodes("article", 417), nil,
			VerdictBroken, []string{"PASS /result id", "FAIL /effects unchanged"}, "100"},
		{"express-idempotency mounted before the body parser misses a changed payload", "express-idempotency-before-body-parser", withCodes("article", 417),
			[]string{probeMismatch}, VerdictBroken, []string{"FAIL mismatch/conflict status"}, "0"},
		{"express-idempotency reading another header ignores the key", "express-idempotency-wrong-header", withCodes("article", 417), nil,
			VerdictBroken, []string{"FAIL /result id", "FAIL /effects unchanged"}, "0"},
		{"@node-idempotency/core in express holds the contract", "node-idempotency", withCodes("article", 422), append(all, probeMissingKey),
			VerdictHeld, []string{"PASS /result id", "PASS /replay marker Idempotent-Replayed", "PASS mismatch/conflict status",
				"PASS concurrent/one fresh success", "PASS lost-response/exactly one effect", "PASS in-progress/Retry-After",
				"PASS missing-key/missing-key status"}, "400"},
		{"@node-idempotency/core under the IETF profile", "node-idempotency", contract.Profiles["ietf"], all,
			VerdictHeld, []string{"PASS /result id", "PASS mismatch/conflict status", "PASS concurrent/one fresh success"}, "400"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base := nodeServer(t, tt.mode, "DELAY_MS="+tt.delay)
			res := replayAgainst(t, base, harCapture(t, base, "order-"+tt.mode), tt.profile, tt.probes...)
			if res.Verdict != tt.verdict {
				t.Errorf("verdict %s, want %s", res.Verdict, tt.verdict)
			}
			for _, m := range tt.must {
				outcome, name, _ := strings.Cut(m, " ")
				if !hasOutcome(res, outcome, name) {
					t.Errorf("no %s", m)
				}
			}
			if t.Failed() {
				t.Logf("assertions:\n%s", strings.Join(outcomes(res), "\n"))
			}
		})
	}
}

func TestUnauthorizedServerIsInconclusive(t *testing.T) {
	base := nodeServer(t, "unauthorized")
	// The capture comes from production, where the proxy let it through.
	c := harEntry("order-42", 201, []byte(`{"requestId":"demo-request-42","state":"accepted"}`))
	res := replayAgainst(t, base, c, contract.Profiles["article"], probeMismatch, probeConcurrent)
	if res.Verdict != VerdictInconclusive || res.Failed != 0 || res.Inconclusive != 1 {
		t.Fatalf("verdict %s: %v", res.Verdict, outcomes(res))
	}
	if res.Reason == nil || res.Reason.Kind != ReasonCredentials || res.Reason.Status != 401 || !slices.Contains(res.Reason.Dropped, "Authorization") {
		t.Errorf("reason %+v", res.Reason)
	}
	if !slices.Equal(res.NotRun, []string{"probe mismatch", "probe concurrent"}) {
		t.Errorf("not run %v", res.NotRun)
	}
	if res.Original.ResultID != "demo-request-42" || res.Original.Source != "client.har:1" {
		t.Errorf("original %+v", res.Original)
	}
}
