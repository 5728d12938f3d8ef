package diagnose_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/load"
)

var update = flag.Bool("update", false, "rewrite docs/rules.md from the catalog")

func rulesDoc(t *testing.T) string {
	var b strings.Builder
	b.WriteString("# Rules\n\n")
	b.WriteString("`idem diagnose` runs every rule below over the correlated intents. Each has a\n")
	b.WriteString("stable ID (use it with `--rule`), a usual severity, the four columns of the\n")
	b.WriteString("diagnosis table, the evidence it needs, and an example from `fixtures/scenarios/`.\n")
	b.WriteString("A rule that lacks its evidence says nothing, and the report says so: each rule\n")
	b.WriteString("declares what it must read to look (its \"To look\" line below), the inputs\n")
	b.WriteString("say which tiers and fields they supplied, and a rule that could not look and\n")
	b.WriteString("found nothing is listed under \"not evaluated\" (`not_evaluated` in JSON) with\n")
	b.WriteString("why and what to log. \"No findings.\" is said only when every rule could look.\n\n")
	b.WriteString("Every rule but the hygiene one (`secret-in-logs`) decides the verdict: when one\n")
	b.WriteString("could not look and no finding fails `--fail-on`, `idem diagnose` exits 3,\n")
	b.WriteString("inconclusive. The rules of the worker and provider tiers are evaluated only\n")
	b.WriteString("where those tiers are logged: most systems have neither, and their absence is\n")
	b.WriteString("no gap in the evidence of the others.\n\n")
	b.WriteString("An effect is a result id first seen: a line naming a result id that an earlier\n")
	b.WriteString("delivery made (a replay's own \"replaying stored response\", a second key's answer\n")
	b.WriteString("with the old order) is that effect again, under whichever key, never a new one.\n\n")
	b.WriteString("Each finding says how sure it is (`confidence` in JSON, a line under each finding\n")
	b.WriteString("elsewhere): `proven` where the logs show it, `inferred` where it is read from what\n")
	b.WriteString("they suggest, with what it rests on and what the logs lack to prove it. Each rule\n")
	b.WriteString("below says what proves it and when it is an inference.\n\n")
	b.WriteString("This page is generated from the catalog: `go test ./diagnose -run TestRulesDoc -update`.\n")
	b.WriteString("Each rule lives in its own `diagnose/rule_*.go` with this documentation, and its\n")
	b.WriteString("minimal cases (log lines that must make it fire, and near misses that must not)\n")
	b.WriteString("sit beside it in `rule_*_test.go`.\n\n")
	b.WriteString("The last column names the captures of real software (under `fixtures/real/`,\n")
	b.WriteString("each recorded by a harness that ran the software on 127.0.0.1) on which the\n")
	b.WriteString("rule fires; the test that writes this page checks it does.\n\n")
	b.WriteString("| id | severity | title | proven on real captures |\n|---|---|---|---|\n")
	for _, r := range diagnose.Rules() {
		on := capturesCell(provenOn[r.ID], func(c string) {
			if !firesOnCapture(t, r, c) {
				t.Errorf("rule %s does not fire on the real capture %s", r.ID, c)
			}
		})
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s | %s |\n", r.ID, r.ID, r.Severity, r.Title, on)
	}
	b.WriteString("\n## Who sent each retry\n\n")
	b.WriteString("Every retry (each delivery of an intent after its first, and a proxy's own second\n")
	b.WriteString("attempt at one delivery) is attributed to the layer that sent it, from what that\n")
	b.WriteString("layer left in the logs, never from a logger's or a client's name. Each finding\n")
	b.WriteString("lists its intents' retries (`↻` in text, `retries` in JSON), `idem trace` shows\n")
	b.WriteString("them per delivery, and the summary counts them by layer, with those that made a\n")
	b.WriteString("duplicate, so that a report answers \"fix the proxy\" or \"fix the client\" at a\n")
	b.WriteString("glance. Where a line shows that the previous send ended, lost, just as the retry\n")
	b.WriteString("began (a 499 one client timeout in, a proxy's 504), the retry says whose timeout\n")
	b.WriteString("set it off. A send the server refused as another payload under a key that had\n")
	b.WriteString("succeeded (`payload-mismatch`'s refusal) is another action, not a retry: it is not\n")
	b.WriteString("counted. Nor is a note: a line with the key and nothing of a request (no request\n")
	b.WriteString("id, method, route, status, duration or attempt), such as \"order failed, submitting\n")
	b.WriteString("again\", joins the send it is about.\n\n")
	b.WriteString("| layer | what says so | proven on real captures |\n|---|---|---|\n")
	for _, l := range diagnose.Layers {
		on := capturesCell(attributedOn[l], func(c string) {
			if !attributesOnCapture(t, l, c) {
				t.Errorf("no retry of the real capture %s is attributed to %s", c, l)
			}
		})
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", l, l.Evidence(), on)
	}
	for _, r := range diagnose.Rules() {
		fmt.Fprintf(&b, "\n## %s\n\n**%s.** Usually %s.\n\n", r.ID, r.Title, r.Severity)
		fmt.Fprintf(&b, "| symptom | hypothesis | check | bounded action |\n|---|---|---|---|\n| %s | %s | %s | %s |\n\n",
			r.Symptom, r.Hypothesis, r.Check, r.Action)
		fmt.Fprintf(&b, "**Evidence.** %s\n\n", r.Evidence)
		fmt.Fprintf(&b, "**Proven by.** %s **Inferred when.** %s\n", r.Proof, r.Inference)
		if len(r.Needs) > 0 {
			var tiers []string
			for _, n := range r.Needs {
				tiers = append(tiers, n.String())
			}
			fmt.Fprintf(&b, "It needs the %s tier.\n", strings.Join(tiers, ", "))
		}
		if reads := r.Reads(); len(reads) > 0 {
			fmt.Fprintf(&b, "To look, it reads: %s.\n", strings.Join(reads, "; "))
		}
		if r.Example == "" {
			continue
		}
		res := diagnose.Run(loadScenario(t, r.Example), diagnose.DefaultOptions())
		shown := false
		for _, f := range res.Findings {
			if f.Rule == r {
				fmt.Fprintf(&b, "\n**Example** (`idem diagnose fixtures/scenarios/%s/*`, %s):\n\n> %s\n", r.Example, f.Severity, f.Narrative)
				shown = true
				break
			}
		}
		if !shown {
			t.Errorf("rule %s: its example scenario %s does not show it", r.ID, r.Example)
		}
	}
	return b.String()
}

func TestRulesDoc(t *testing.T) {
	got := rulesDoc(t)
	path := "../docs/rules.md"
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, _ := os.ReadFile(path)
	if string(want) != got {
		t.Errorf("docs/rules.md is out of date with the catalog: go test ./diagnose -run TestRulesDoc -update")
	}
}

// provenOn names, per rule, the captures of real software it fires on:
// folders under fixtures/real/ that a harness recorded (see their READMEs
// for what was sent and how each request ended).
// attributedOn names the captures on which a retry is attributed to
// each layer, with what the capture shows in brackets.
var attributedOn = map[diagnose.Layer][]string{
	diagnose.LayerBrowser: {"chromium (a fetch retried under its key by the page)"},
	diagnose.LayerClientLibrary: {"sdk-openai/no-store (openai 6.49's x-stainless-retry-count: 1)", "sdk-aws/no-store (@aws-sdk/client-dynamodb's amz-sdk-request: attempt=2; max=2)",
		"sdk-stripe/no-store (stripe 23.1 resending under its stripe-node-retry- key)", "sdk-openai/store", "sdk-aws/store-completed", "sdk-stripe/store"},
	diagnose.LayerProxy: {"proxy-retry-nginx", "proxy-retry-haproxy", "proxy-retry-caddy (seen through two effects under one request id: Caddy logs no attempt count)",
		"proxy-retry-haproxy-same-server"},
	diagnose.LayerClient:         {"nginx (the harness's client, through nginx)", "express-idempotency"},
	diagnose.LayerWorkflowEngine: {"temporal (the Go SDK's activity attempts)"},
}

var provenOn = map[string][]string{
	"response-lost":          {"nginx (nginx 1.22, a client timeout and an abort)", "caddy", "chain (Caddy → HAProxy → nginx)", "chromium (Chromium 156 via playwright-core)", "nginx-slog", "pino-http", "express-idempotency (1.0.6 with pino-http behind nginx)", "node-idempotency (@node-idempotency/core 1.0.11 with pino-http behind nginx)", "fiber (Fiber v2.52's idempotency middleware behind Caddy 2.6)", "nginx-winston (winston with express-winston, read by the vocabulary)", "nginx-restify (bunyan with restify)", "nginx-monolog (Monolog's context)", "nginx-rails (lograge)", "nginx-logback (logstash-logback-encoder)", "slog (no tier logged the loss: the 1.5 s answer, then the same key: inferred)", "zap"},
	"retry-new-key":          {"nginx", "chain", "nginx-slog", "express-idempotency", "node-idempotency", "chromium-rules (a fetch timed out, then a new key)", "fiber (no tier logs payloads: two order ids after a lost response)", "fiber-payload-hash", "nginx-winston", "nginx-flask (python-json-logger)", "nginx-morgan", "pino-http (no proxy and no payload: the server saw the client go, then the same address under a new key made a second order)"},
	"payload-mismatch":       {"chromium (a retry under the same key with another body)", "express-idempotency (its 417 for another body)", "node-idempotency (its fingerprint mismatch, answered 422)", "fiber-payload-hash (Fiber's middleware replays the first body's 201 to another body)", "nginx-winston (express-winston's logged bodies)", "nginx-structlog-stdlib (the service's logged fingerprints)"},
	"in-progress-retry":      {"express-idempotency (its bare 409 to a concurrent duplicate)", "node-idempotency (its REQUEST_IN_PROGRESS, answered 409)"},
	"key-expired":            {"node-idempotency (a retry past a 3 s cacheTTLMS)", "fiber (a retry past the middleware's 2 s Lifetime)"},
	"non-atomic-reservation": {"node-idempotency (two duplicates let through together once the key expired)"},
	"retry-storm":            {"express-idempotency (sixteen duplicates of one key at once)", "node-idempotency", "nginx-retries (one key sent 6 times in a few ms through nginx)"},
	"duplicate-submission":   {"node-idempotency (two answered submissions under two keys)", "chromium-rules (a double click: two fetches at once under fresh keys, both 201)"},
	"unkeyed-retry":          {"node-idempotency (a POST without a key retried after a timeout)", "nginx-retries (unkeyed POSTs sent again after a client timeout and after nginx's 504)", "nginx-winston", "nginx-log4js"},
	"secret-in-logs":         {"chromium-rules (Chromium's HAR of a signed-in page: a bearer token and a session cookie)", "nginx-winston (express-winston's meta.req.headers.authorization)", "nginx-restify (restify's audit req.headers.authorization)"},
	"replay-divergence":      {"nginx-replay (behind nginx, a backend replaying 200 for its 201)"},
	"external-duplicate":     {"nginx-egress-provider (an egress nginx logging the provider tier; a crash between the call and the record)"},
	"proxy-retry": {"proxy-retry-nginx (nginx 1.22, proxy_next_upstream error timeout non_idempotent: two orders on two instances)",
		"proxy-retry-haproxy (HAProxy 2.6, retry-on all-retryable-errors with option redispatch: %rc +1, two orders)",
		"proxy-retry-caddy (Caddy 2.6, lb_retries with lb_retry_match: the POST resent, without its body, to the second instance)",
		"proxy-retry-haproxy-same-server (the retry on the same instance, whose store replays it: the warning)"},
	"request-id-reused":         {"nginx-request-id-reused (one X-Request-Id on two orders, logged by nginx as $http_x_request_id)"},
	"request-id-not-propagated": {"nginx-zerolog (zerolog's hlog.RequestIDHandler behind nginx)"},
	"attempt-scoped-key":        {"temporal (Go SDK test environment)"},
	"late-completion":           {"temporal"},
}

// firesOnCapture runs every rule on a capture's logs and reports whether
// r fired; c is the folder's name, then an optional note in parentheses.
// capturesCell is the table cell naming captures, "name (note)" each,
// after check has looked at each one.
func capturesCell(captures []string, check func(c string)) string {
	var on []string
	for _, c := range captures {
		check(c)
		name, note, _ := strings.Cut(c, " (")
		if note != "" {
			note = " (" + note
		}
		on = append(on, "`"+name+"`"+note)
	}
	if len(on) == 0 {
		return "scenarios and cases only"
	}
	return strings.Join(on, ", ")
}

func firesOnCapture(t *testing.T, r *diagnose.Rule, c string) bool {
	t.Helper()
	for _, f := range runCapture(t, c).Findings {
		if f.Rule == r {
			return true
		}
	}
	return false
}

// attributesOnCapture reports whether the diagnosis of capture c says
// layer l sent one of its retries.
func attributesOnCapture(t *testing.T, l diagnose.Layer, c string) bool {
	t.Helper()
	for _, rt := range runCapture(t, c).Retries() {
		if rt.Layer == l {
			return true
		}
	}
	return false
}

// runCapture diagnoses the logs of the capture c names under fixtures/real.
func runCapture(t *testing.T, c string) *diagnose.Result {
	t.Helper()
	dir := filepath.Join("..", "fixtures", "real", strings.TrimSpace(strings.SplitN(c, " (", 2)[0]))
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("capture %s: %v", c, err)
	}
	var paths []string
	for _, e := range entries {
		switch name := e.Name(); {
		case e.IsDir(), strings.HasSuffix(name, ".md"), name == "run.json", name == "harness.json", strings.HasPrefix(name, "package"):
		case strings.HasSuffix(name, ".conf"), strings.HasSuffix(name, ".cfg"), strings.HasSuffix(name, ".txt"), strings.HasSuffix(name, "Caddyfile"), name == "Caddyfile":
		default:
			paths = append(paths, filepath.Join(dir, name))
		}
	}
	set, err := load.Files(context.Background(), paths, load.Options{Read: ingest.Options{}, Build: diagnose.DefaultOptions().Build()})
	if err != nil {
		t.Fatal(err)
	}
	return diagnose.Run(set, diagnose.DefaultOptions())
}
