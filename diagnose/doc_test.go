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

func rulesDoc(t *testing.T) string {
	var b strings.Builder
	b.WriteString("# Rules\n\n")
	b.WriteString("`idem diagnose` runs every rule below over the correlated intents. Each has a\n")
	b.WriteString("stable ID (use it with `--rule`), a usual severity, the four columns of the\n")
	b.WriteString("diagnosis table, the evidence it needs, and an example from `fixtures/scenarios/`.\n")
	b.WriteString("A rule that lacks its evidence says nothing; the report names missing tiers.\n\n")
	b.WriteString("This page is generated from the catalog: `go test ./diagnose -run TestRulesDoc -update`.\n")
	b.WriteString("Each rule lives in its own `diagnose/rule_*.go` with this documentation, and its\n")
	b.WriteString("minimal cases (log lines that must make it fire, and near misses that must not)\n")
	b.WriteString("sit beside it in `rule_*_test.go`.\n\n")
	b.WriteString("| id | severity | title |\n|---|---|---|\n")
	for _, r := range diagnose.Rules() {
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s |\n", r.ID, r.ID, r.Severity, r.Title)
	}
	for _, r := range diagnose.Rules() {
		fmt.Fprintf(&b, "\n## %s\n\n**%s.** Usually %s.\n\n", r.ID, r.Title, r.Severity)
		fmt.Fprintf(&b, "| symptom | hypothesis | check | bounded action |\n|---|---|---|---|\n| %s | %s | %s | %s |\n\n",
			r.Symptom, r.Hypothesis, r.Check, r.Action)
		fmt.Fprintf(&b, "**Evidence.** %s\n", r.Evidence)
		if len(r.Needs) > 0 {
			var tiers []string
			for _, n := range r.Needs {
				tiers = append(tiers, n.String())
			}
			fmt.Fprintf(&b, "It needs the %s tier.\n", strings.Join(tiers, ", "))
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
