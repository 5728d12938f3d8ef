package diagnose_test

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/idem-cli/idem/diagnose"
)

var update = flag.Bool("update", false, "rewrite docs/rules.md from the catalog")

// scenarioOf names the fixture that shows each rule.
var scenarioOf = map[string]string{
	"response-lost": "response-lost", "retry-new-key": "retry-new-key", "non-atomic-reservation": "non-atomic-reservation",
	"payload-mismatch": "payload-mismatch", "in-progress-retry": "in-progress-stuck", "external-duplicate": "external-duplicate",
	"unkeyed-retry": "unkeyed-retry", "key-expired": "key-expired", "attempt-scoped-key": "attempt-scoped-key",
	"late-completion": "late-completion", "retry-storm": "retry-storm", "replay-divergence": "replay-divergence",
	"request-id-reused": "request-id-reused", "secret-in-logs": "secret-in-logs",
}

// ruleEvidence says what each rule reads; docs/rules.md prints it.
var ruleEvidence = map[string]string{
	"response-lost":          "A delivery whose outermost tier lost the response (HAR status 0 or `_error`, proxy 499/504/502, Envoy DC/UT/UC, Traefik/Caddy 499) while the same delivery made an effect or got a 2xx at the server. Severity is info when a later delivery with the same key got the stored result and the intent made one effect.",
	"retry-new-key":          "Two or more intents under different keys whose deliveries share a payload fingerprint (compared within one tier), method and route, from the same client where known, starting within `--retry-window`, each with an effect.",
	"non-atomic-reservation": "One key with one fingerprint and two or more deliveries that made effects, the later one starting (at the same tier's clock) before the earlier one finished.",
	"payload-mismatch":       "One key whose deliveries carry different fingerprints at one tier. Critical when the second payload made an effect or got a success (a replay for a different command); warning when the server answered 400/409/417/422 first.",
	"in-progress-retry":      "A delivery answered \"in progress\": a decision such as `in_progress`, or 409 with `Retry-After` or an in-progress state. Critical (stuck) when no effect, `completed` state or server 2xx for the key follows.",
	"external-duplicate":     "Two or more provider-tier calls or effects for one intent while the server and worker tiers recorded at most one effect.",
	"unkeyed-retry":          "POST or PATCH deliveries without a key, with one fingerprint, method and route (and client where known), within `--retry-window`, where an earlier one lost its response and two or more made effects.",
	"key-expired":            "A delivery of a key that had completed made another effect afterwards (not concurrently), or was decided `new` after completion.",
	"attempt-scoped-key":     "Keys that differ only by an attempt suffix (`:attempt-2`, `-try3`), or different keys on the attempts of one Temporal activity (WorkflowID + ActivityID).",
	"late-completion":        "A worker line `Activity complete after timeout.`, or an activity attempt that reported completion after the next attempt had begun.",
	"retry-storm":            "An intent with more deliveries than `--retry-budget`, or deliveries later than `--deadline` after the first.",
	"replay-divergence":      "A later delivery with the same key and fingerprint, without an effect of its own, whose server status or result id differs from the original's.",
	"request-id-reused":      "One request id seen with two keys, or at one tier at times more than five minutes apart.",
	"secret-in-logs":         "Per input, the field paths holding Authorization, Cookie, Set-Cookie, API-key, token, password or secret values, or whole request bodies, with counts. Values are never shown.",
}

func rulesDoc(t *testing.T) string {
	var b strings.Builder
	b.WriteString("# Rules\n\n")
	b.WriteString("`idem diagnose` runs every rule below over the correlated intents. Each has a\n")
	b.WriteString("stable ID (use it with `--rule`), a usual severity, the four columns of the\n")
	b.WriteString("diagnosis table, the evidence it needs, and an example from `fixtures/scenarios/`.\n")
	b.WriteString("A rule that lacks its evidence says nothing; the report names missing tiers.\n\n")
	b.WriteString("This page is generated from the catalog: `go test ./diagnose -run TestRulesDoc -update`.\n\n")
	b.WriteString("| id | severity | title |\n|---|---|---|\n")
	for _, r := range diagnose.Rules() {
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s |\n", r.ID, r.ID, r.Severity, r.Title)
	}
	for _, r := range diagnose.Rules() {
		fmt.Fprintf(&b, "\n## %s\n\n**%s.** Usually %s.\n\n", r.ID, r.Title, r.Severity)
		fmt.Fprintf(&b, "| symptom | hypothesis | check | bounded action |\n|---|---|---|---|\n| %s | %s | %s | %s |\n\n",
			r.Symptom, r.Hypothesis, r.Check, r.Action)
		fmt.Fprintf(&b, "**Evidence.** %s\n", ruleEvidence[r.ID])
		if len(r.Needs) > 0 {
			var tiers []string
			for _, n := range r.Needs {
				tiers = append(tiers, n.String())
			}
			fmt.Fprintf(&b, "It needs the %s tier.\n", strings.Join(tiers, ", "))
		}
		sc := scenarioOf[r.ID]
		res := diagnose.Run(loadScenario(t, sc), diagnose.DefaultOptions())
		for _, f := range res.Findings {
			if f.Rule == r {
				fmt.Fprintf(&b, "\n**Example** (`idem diagnose fixtures/scenarios/%s/*`, %s):\n\n> %s\n", sc, f.Severity, f.Narrative)
				break
			}
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
	for _, r := range diagnose.Rules() {
		if ruleEvidence[r.ID] == "" || scenarioOf[r.ID] == "" {
			t.Errorf("rule %s is not documented", r.ID)
		}
	}
}
