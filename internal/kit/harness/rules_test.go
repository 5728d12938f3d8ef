package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/cmd"
	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/internal/iostreams"
	"github.com/idem-cli/idem/internal/kit/capture"
	"github.com/idem-cli/idem/load"
)

// verifyRules diagnoses every log of the run together, as a person would,
// and checks that each rule of the run makes exactly the findings the
// traffic calls for: each wanted one (must fire), and no other (must not).
// A rule the traffic calls for no finding of is checked to stay quiet.
func verifyRules(t *testing.T, dir string, run run) {
	t.Helper()
	var paths []string
	for _, f := range run.files() {
		paths = append(paths, filepath.Join(dir, f))
	}
	set, err := load.Files(context.Background(), paths, load.Options{Read: ingest.Options{}, Build: diagnose.DefaultOptions().Build()})
	if err != nil {
		t.Fatal(err)
	}
	res := diagnose.Run(set, diagnose.DefaultOptions())
	wants := expectRules(run)
	for _, rule := range run.Rules {
		if rule == "secret-in-logs" {
			continue
		}
		var ws []want
		for _, w := range wants {
			if w.rule == rule {
				ws = append(ws, w)
			}
		}
		matched := make([]bool, len(ws))
		for _, f := range res.Findings {
			if f.Rule.ID != rule {
				continue
			}
			keys, rids := found(f)
			t.Logf("%s %s: %s", rule, f.Severity, f.Narrative)
			ok := false
			for i, w := range ws {
				if w.keys != nil && slices.Equal(keys, w.keys) || w.rids != nil && w.keys == nil && slices.Equal(rids, w.rids) {
					if w.critical && f.Severity != diagnose.Critical {
						continue
					}
					matched[i], ok = true, true
				}
			}
			// retry-new-key may warn where payloads agree without a failure
			// (issue-free repeat purchases): only a critical one is wrong.
			if !ok && !(rule == "retry-new-key" && f.Severity != diagnose.Critical) {
				t.Errorf("must not fire: %s %s on keys %v, request ids %v: %s", rule, f.Severity, keys, rids, f.Narrative)
			}
		}
		for i, w := range ws {
			if !matched[i] {
				t.Errorf("must fire: %s on keys %v, request ids %v (%s); it did not", rule, w.keys, w.rids, w.why)
			}
		}
	}
	if slices.Contains(run.Rules, "secret-in-logs") {
		verifySecrets(t, dir, run, res)
	}
	verifyNoRetryClaims(t, run, res)
}

// verifyNoRetryClaims checks what response-lost says of a lost response:
// that no retry followed is true only if the harness sent none under the
// key afterwards.
func verifyNoRetryClaims(t *testing.T, run run, res *diagnose.Result) {
	t.Helper()
	c := knownGaps.Facts(t, run.Logs[0].Capture)
	for _, f := range res.Findings {
		if f.Rule.ID != "response-lost" || !strings.Contains(f.Narrative, "no retry with the same key followed") {
			continue
		}
		keys, _ := found(f)
		for i, s := range run.Sent {
			if !slices.Contains(keys, s.Key) {
				continue
			}
			for _, later := range run.Sent[i+1:] {
				if later.Key == s.Key {
					c.Check(later.Step+"/response-lost", false, "response-lost says no retry followed key %s, but %s retried it at %s: %s",
						s.Key, later.Step, later.Start.UTC().Format(time.RFC3339Nano), f.Narrative)
					break
				}
			}
			break
		}
	}
}

// verifySecrets checks that secret-in-logs names the HAR, which holds
// the Authorization header and the cookies the page sent, and only it,
// and that no output of idem shows any of their values.
func verifySecrets(t *testing.T, dir string, run run, res *diagnose.Result) {
	t.Helper()
	if len(run.Secrets) == 0 {
		t.Fatal("run.json names no secret the traffic carried")
	}
	// The check below means something only if the log holds the values.
	har, err := os.ReadFile(filepath.Join(dir, run.Logs[0].File))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range run.Secrets {
		if !strings.Contains(string(har), s) {
			t.Fatalf("%s does not hold the secret %q the page sent: the capture is broken, not idem", run.Logs[0].File, s)
		}
	}
	auth := 0
	for _, s := range run.Sent {
		for h := range s.Headers {
			if strings.EqualFold(h, "Authorization") {
				auth++
			}
		}
	}
	var fired []string
	for _, f := range res.Findings {
		if f.Rule.ID != "secret-in-logs" {
			continue
		}
		fired = append(fired, filepath.Base(f.Input))
		t.Logf("secret-in-logs %s: %s", f.Severity, f.Narrative)
		if filepath.Base(f.Input) != run.Logs[0].File {
			t.Errorf("must not fire: secret-in-logs on %s, which logs no header: %s", f.Input, f.Narrative)
			continue
		}
		var authCount, cookie int
		for field, n := range f.Counts {
			switch {
			case strings.Contains(field, "authorization"):
				authCount += n
			case strings.Contains(field, "cookie"):
				cookie += n
			}
		}
		if authCount != auth {
			t.Errorf("secret-in-logs counts %d Authorization values in %s, the page sent %d: %v", authCount, f.Input, auth, f.Counts)
		}
		if cookie == 0 {
			t.Errorf("secret-in-logs names no cookie in %s, where the page got and sent one: %v", f.Input, f.Counts)
		}
	}
	if !slices.Contains(fired, run.Logs[0].File) {
		t.Errorf("must fire: secret-in-logs on %s (Authorization on %d fetches, a session cookie); fired on %v", run.Logs[0].File, auth, fired)
	}
	var paths []string
	for _, f := range run.files() {
		paths = append(paths, filepath.Join(dir, f))
	}
	var keys []string
	for _, s := range run.Sent {
		if s.Key != "" && !slices.Contains(keys, s.Key) {
			keys = append(keys, s.Key)
		}
	}
	runs := [][]string{
		append([]string{"diagnose"}, paths...),
		append([]string{"diagnose", "-o", "json"}, paths...),
		append([]string{"diagnose", "-o", "markdown"}, paths...),
		append([]string{"diagnose", "-o", "html"}, paths...),
		append([]string{"diagnose", "--rule", "secret-in-logs", "--fail-on", "info"}, paths...),
		append([]string{"trace", keys[0]}, paths...),
		append([]string{"trace", keys[0], "--format", "json"}, paths...),
	}
	for _, args := range runs {
		code, out, errOut := idem(args...)
		if code > 1 {
			t.Errorf("idem %s: exit %d\n%s", strings.Join(args[:len(args)-len(paths)], " "), code, errOut)
		}
		if len(out) == 0 {
			t.Errorf("idem %s printed nothing", strings.Join(args[:len(args)-len(paths)], " "))
		}
		for _, s := range run.Secrets {
			if strings.Contains(out, s) || strings.Contains(errOut, s) {
				t.Errorf("idem %s shows the secret %q", strings.Join(args[:len(args)-len(paths)], " "), s)
			}
		}
	}
}

// idem runs one command line of idem in process, with test streams.
func idem(args ...string) (code int, stdout, stderr string) {
	ios, _, out, errOut := iostreams.Test()
	f := &cmd.Factory{IO: ios, Now: time.Now, Getenv: func(string) string { return "" }}
	code = cmd.Run(context.Background(), f, args)
	return code, out.String(), errOut.String()
}

// uniqueIDs reports whether every request carried its own request id: the
// per-line checks find a request's line by its id.
func uniqueIDs(run run) bool {
	seen := map[string]bool{}
	for _, s := range run.Sent {
		if seen[s.RequestID] {
			return false
		}
		seen[s.RequestID] = true
	}
	return true
}

// verifyRecorded checks a saved run: what idem reads from each log, then
// the findings its traffic calls for.
func verifyRecorded(t *testing.T, dir string, run run) {
	t.Helper()
	switch {
	case run.JoinBy == "traceparent":
		verifyTraceRun(t, dir, run)
	case run.Logs[0].Format == "har":
		verifyBrowserRun(t, dir, run)
	case uniqueIDs(run):
		verifyProxyRun(t, dir, run)
	}
	if len(run.Rules) > 0 {
		t.Run("rules", func(t *testing.T) { verifyRules(t, dir, run) })
	}
}

// record is keep checked with verifyRecorded (the rules a run sets off).
func record(t *testing.T, name string, run run, logs map[string]string, config, configName string) {
	t.Helper()
	keep(t, name, run, logs, config, configName, verifyRecorded)
}

// recordNginx sends plan through nginx to a backend that logs each body's
// hash, and records nginx's JSON log as capture name, checked for rules.
func recordNginx(t *testing.T, name string, plan []Step, rules ...string) {
	t.Helper()
	b := startBackendWith(t, backendConfig{HashBodies: true})
	n := startNginx(t, b.Addr, Down(t))
	sent := drive(t, n.URL, b, plan)
	capture.WaitLogged(t, sent, n.Log(nginxJSONLog))
	n.Stop()
	run := run{
		Software: n.Software(), BackendLog: "app.jsonl", Sent: sent, Rules: rules,
		Logs: []runLog{{File: nginxJSONLog, Capture: name, Format: "nginx", Proxy: "nginx"}},
	}
	record(t, name, run, map[string]string{nginxJSONLog: n.Log(nginxJSONLog), "app.jsonl": b.LogPath}, n.Config(), n.ConfigName())
}

// retriesPlan is a client retrying without a key and retrying one key
// past its budget, through nginx. Each group of unkeyed writes shares a
// payload of its own; the backend logs each body's hash.
func retriesPlan() []Step {
	body := func(item string) string { return fmt.Sprintf(`{"item":%q,"quantity":1}`, item) }
	storm, nearMiss := capture.NewID(), capture.NewID()
	plan := []Step{
		// Must fire: the client gives up after 400 ms and sends it again;
		// the backend made the first order anyway.
		{Name: "unkeyed-timeout", Path: "/v1/orders?delay=1200ms", Body: body("lamp"), Timeout: 400 * time.Millisecond, End: EndClientTimeout},
		{Name: "unkeyed-timeout-retry", Path: "/v1/orders", Body: body("lamp"), End: EndCreated},
		// Must fire: nginx's 504 after 500 ms, the backend's order after 1.5 s.
		{Name: "unkeyed-504", Path: "/v1/slow/orders?delay=1500ms", Body: body("desk"), End: endUpstreamTimeout},
		{Name: "unkeyed-504-retry", Path: "/v1/slow/orders", Body: body("desk"), End: EndCreated},
		// Must not fire: a 502 for a dropped connection made no order, so
		// its retry made the only one.
		{Name: "unkeyed-502", Path: "/v1/orders?fail=drop", Body: body("chair"), End: EndUpstreamDrop},
		{Name: "unkeyed-502-retry", Path: "/v1/orders", Body: body("chair"), End: EndCreated},
		// Must not fire: two successes, no failure before the second.
		{Name: "unkeyed-twice-1", Path: "/v1/orders", Body: body("pen"), End: EndCreated},
		{Name: "unkeyed-twice-2", Path: "/v1/orders", Body: body("pen"), End: EndCreated},
	}
	budget := diagnose.DefaultOptions().RetryBudget
	// Must fire: one key sent budget+1 times, answered 500 until the last.
	for i := 1; i <= budget+1; i++ {
		st := Step{Name: fmt.Sprintf("storm-%d", i), Key: storm, Path: "/v1/orders?fail=500", Body: body("sofa"), End: EndServerError}
		if i == budget+1 {
			st.Path, st.End = "/v1/orders", EndCreated
		}
		plan = append(plan, st)
	}
	// Must not fire: exactly the budget.
	for i := 1; i <= budget; i++ {
		st := Step{Name: fmt.Sprintf("budget-%d", i), Key: nearMiss, Path: "/v1/orders?fail=500", Body: body("rug"), End: EndServerError}
		if i == budget {
			st.Path, st.End = "/v1/orders", EndCreated
		}
		plan = append(plan, st)
	}
	return plan
}

func TestNginxRetries(t *testing.T) {
	recordNginx(t, "nginx-retries", retriesPlan(), "unkeyed-retry", "retry-storm", "payload-mismatch", "replay-divergence")
}

// reusedIDPlan is a client that makes its X-Request-Id once and sends it
// with two different orders; and, as a near miss, one that sends its id
// again only with the retry of the same key.
func reusedIDPlan() []Step {
	k1, k2, k3, k4 := capture.NewID(), capture.NewID(), capture.NewID(), capture.NewID()
	return []Step{
		{Name: "first-order", Key: k1, Path: "/v1/orders", End: EndCreated},
		{Name: "second-order", Key: k2, Path: "/v1/orders", SameIDAs: "first-order", End: EndCreated},
		{Name: "retry-1-timeout", Key: k3, Path: "/v1/orders?delay=1200ms", Body: `{"item":"retried","quantity":1}`, Timeout: 400 * time.Millisecond, End: EndClientTimeout},
		{Name: "retry-2-same-id", Key: k3, Path: "/v1/orders", Body: `{"item":"retried","quantity":1}`, SameIDAs: "retry-1-timeout", End: EndCreated},
		{Name: "own-id", Key: k4, Path: "/v1/orders", End: EndCreated},
	}
}

func TestNginxRequestIDReused(t *testing.T) {
	recordNginx(t, "nginx-request-id-reused", reusedIDPlan(), "request-id-reused", "payload-mismatch")
}

// TestNginxReplay sends retries that the backend answers from its record
// of the key: one replay rebuilt as 200 for the original's 201 (the
// backend's ?replay=200), one as stored, and a retry after a 500 that made
// nothing, which is the original, not a replay.
func TestNginxReplay(t *testing.T) {
	k1, k2, k3 := capture.NewID(), capture.NewID(), capture.NewID()
	body := func(item string) string { return fmt.Sprintf(`{"item":%q,"quantity":1}`, item) }
	plan := []Step{
		// Must fire: 201 ord_N, then its replay answered 200.
		{Name: "order", Key: k1, Path: "/v1/orders", Body: body("lamp"), End: EndCreated},
		{Name: "replay-200", Key: k1, Path: "/v1/orders?replay=200", Body: body("lamp"), End: endReplay200},
		// Must not fire: the replay is the original's 201 and order id.
		{Name: "order-2", Key: k2, Path: "/v1/orders", Body: body("desk"), End: EndCreated},
		{Name: "replay-201", Key: k2, Path: "/v1/orders", Body: body("desk"), End: EndCreated},
		// Must not fire: the 500 made nothing; the 201 after it is the original.
		{Name: "failed-first", Key: k3, Path: "/v1/orders?fail=500", Body: body("chair"), End: EndServerError},
		{Name: "after-failure", Key: k3, Path: "/v1/orders", Body: body("chair"), End: EndCreated},
	}
	recordNginx(t, "nginx-replay", plan, "replay-divergence", "payload-mismatch")
}

// TestNginxProvider puts nginx in front of the backend and a second
// nginx, an egress proxy logging in idem's canonical schema as the
// provider tier, between the backend and a payment provider. The backend
// calls the provider before it records a charge and passes no key of its
// own: a crash between the two makes the retry charge again.
func TestNginxProvider(t *testing.T) {
	provider := StartBackend(t)
	egress := startEgress(t, provider.Addr)
	b := startBackendWith(t, backendConfig{HashBodies: true, Provider: egress.URL})
	n := startNginx(t, b.Addr, Down(t))
	k1, k2 := capture.NewID(), capture.NewID()
	c1, c2 := `{"amount":1200,"currency":"eur"}`, `{"amount":4500,"currency":"eur"}`
	plan := []Step{
		// Must fire: the provider charged twice, the backend recorded once.
		{Name: "charge-crash", Key: k1, Path: "/v1/charges?fail=after-call", Body: c1, End: EndServerError},
		{Name: "charge-retry", Key: k1, Path: "/v1/charges", Body: c1, End: EndCreated},
		// Must not fire: one call; the retry is replayed from the record.
		{Name: "charge-ok", Key: k2, Path: "/v1/charges", Body: c2, End: EndCreated},
		{Name: "charge-replayed", Key: k2, Path: "/v1/charges", Body: c2, End: EndCreated},
	}
	sent := drive(t, n.URL, b, plan)
	capture.WaitLogged(t, sent, n.Log(nginxJSONLog))
	for i := range sent {
		for _, h := range provider.Hits() {
			if h.RequestID == sent[i].RequestID {
				sent[i].ProviderCalls++
			}
		}
	}
	if sent[0].ProviderCalls != 1 || sent[1].ProviderCalls != 1 || sent[2].ProviderCalls != 1 || sent[3].ProviderCalls != 0 {
		t.Fatalf("the provider got other calls than planned: %+v", sent)
	}
	capture.WaitLogged(t, sent[:3], egress.Log(egressLog))
	n.Stop()
	egress.Stop()
	run := run{
		Software: n.Software() + " (ingress and egress)", BackendLog: "app.jsonl", Sent: sent,
		Rules: []string{"external-duplicate", "payload-mismatch"},
		Logs:  []runLog{{File: nginxJSONLog, Capture: "nginx-egress-provider", Format: "nginx", Proxy: "nginx"}},
		Also:  []string{egressLog},
	}
	record(t, "nginx-egress-provider", run, map[string]string{nginxJSONLog: n.Log(nginxJSONLog), egressLog: egress.Log(egressLog), "app.jsonl": b.LogPath},
		"# ingress nginx.conf\n"+n.Config()+"\n# egress nginx.conf\n"+egress.Config(), "configs.txt")
}

// rulesFetches is a signed-in page (a session cookie from the page's
// response, a bearer token on every fetch) whose user double-clicks
// "order": two fetches at once, one payload, a fresh key each, both
// answered 201 (the handler takes 150 ms over them, so the second leaves
// before the first is answered however fast the machine). Beside it, one
// order alone, and an order whose fetch times out and is sent again under
// a new key.
func rulesFetches(token string) []fetch {
	auth := map[string]string{"Authorization": "Bearer " + token}
	k1, k2, k3, k4, k5 := capture.NewID(), capture.NewID(), capture.NewID(), capture.NewID(), capture.NewID()
	basket := `{"item":"basket-42","quantity":2}`
	retried := `{"item":"basket-77","quantity":1}`
	return []fetch{
		{Step: Step{Name: "double-click-1", Key: k1, Path: "/v1/orders?delay=150ms", Body: basket, Headers: auth, End: EndCreated}, Together: true},
		{Step: Step{Name: "double-click-2", Key: k2, Path: "/v1/orders?delay=150ms", Body: basket, Headers: auth, End: EndCreated}},
		{Step: Step{Name: "single", Key: k3, Path: "/v1/orders", Body: `{"item":"gift-card","quantity":1}`, Headers: auth, End: EndCreated}},
		{Step: Step{Name: "timeout", Key: k4, Path: "/v1/orders?delay=1200ms", Body: retried, Headers: auth,
			Timeout: 400 * time.Millisecond, End: EndClientTimeout}},
		{Step: Step{Name: "timeout-new-key", Key: k5, Path: "/v1/orders", Body: retried, Headers: auth, End: EndCreated}},
	}
}

func TestChromiumRules(t *testing.T) {
	ch := findChromium(t)
	// Made for this run, valid nowhere.
	token, session := "tok_"+strings.ReplaceAll(capture.NewID(), "-", ""), strings.ReplaceAll(capture.NewID(), "-", "")
	b := startBackendWith(t, backendConfig{SessionCookie: session})
	n := startNginx(t, b.Addr, Down(t))
	har := filepath.Join(t.TempDir(), "chromium.har")
	sent := ch.record(t, n.URL+"/", har, rulesFetches(token), func(what string) { t.Fatalf("har.mjs asked for %q", what) })
	capture.WaitLogged(t, sent, n.Log(nginxJSONLog))
	n.Stop()
	checkFetches(t, b, sent)
	// A double click: the second fetch left before the first was answered.
	if d1, d2 := sent[0], sent[1]; !d2.Start.Before(d1.End) {
		t.Fatalf("the double click's fetches did not overlap: %s–%s, then %s", d1.Start, d1.End, d2.Start)
	}
	run := run{
		Software: capture.Version("chromium", ch.Executable, "--version") + ", playwright-core " + playwrightVersion(t, ch),
		Logs:     []runLog{{File: "chromium.har", Capture: "chromium-rules", Format: "har"}},
		Also:     []string{nginxJSONLog}, BackendLog: "app.jsonl", Sent: sent,
		Rules:   []string{"secret-in-logs", "duplicate-submission", "retry-new-key", "payload-mismatch"},
		Secrets: []string{token, session},
	}
	record(t, "chromium-rules", run, map[string]string{"chromium.har": har, nginxJSONLog: n.Log(nginxJSONLog), "app.jsonl": b.LogPath}, n.Config(), n.ConfigName())
}
