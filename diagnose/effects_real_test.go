package diagnose_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idem-cli/idem/diagnose"
)

// TestEffectsAreResultsFirstSeenOnARealCapture reads nginx-replay (Debian's
// nginx before a backend that answers replays with the stored order) as
// captured, then with its backend's lines reworded as other servers write
// them: every line naming an order marked an effect, and the replays'
// lines saying "replaying stored response". Each key's effects are the
// orders the harness's ledger (run.json) says were made under it, and the
// findings stay those of the capture as recorded: a line naming an order
// that already exists is not a new effect.
func TestEffectsAreResultsFirstSeenOnARealCapture(t *testing.T) {
	dir := filepath.Join("..", "fixtures", "real", "nginx-replay")
	var run struct {
		Sent []struct {
			Name, Key string
			RequestID string `json:"request_id"`
			Status    int
			ResultID  string `json:"result_id"`
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &run); err != nil {
		t.Fatal(err)
	}
	// What the ledger says each key made: the orders its 2xx answers
	// carried, each once.
	made := map[string][]string{}
	replays := map[string]bool{}
	for _, s := range run.Sent {
		if strings.HasPrefix(s.Name, "replay") {
			replays[s.RequestID] = true
		}
		if s.Status/100 == 2 && s.ResultID != "" && !slices.Contains(made[s.Key], s.ResultID) {
			made[s.Key] = append(made[s.Key], s.ResultID)
		}
	}
	if len(made) != 3 || len(replays) != 2 {
		t.Fatalf("ledger: %d keys made orders and %d replays, want 3 and 2", len(made), len(replays))
	}
	app, err := os.ReadFile(filepath.Join(dir, "app.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	reword := func(name string, edit func(m map[string]any)) string {
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(string(app)), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatal(err)
			}
			edit(m)
			b, _ := json.Marshal(m)
			out = append(out, string(b))
		}
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	access := filepath.Join(dir, "access.json.log")
	var want []string
	for i, tc := range []struct {
		name string
		app  string
	}{
		{"as captured", filepath.Join(dir, "app.jsonl")},
		{"every line naming an order marked an effect", reword("effects.jsonl", func(m map[string]any) {
			if m["result_id"] != nil {
				m["effect"] = true
			}
		})},
		{"the replays' lines say they replay a stored response", reword("replaying.jsonl", func(m map[string]any) {
			if id, _ := m["request_id"].(string); replays[id] {
				m["msg"] = "replaying stored response"
			}
		})},
	} {
		res, set := diagnoseFiles(t, access, tc.app)
		for key, orders := range made {
			ins := set.FindIntent(key)
			if len(ins) != 1 {
				t.Fatalf("%s: key %s is %d intents", tc.name, key, len(ins))
			}
			var got []string
			for _, o := range diagnose.Effects(set, ins[0]) {
				got = append(got, o.ResultID)
			}
			if !slices.Equal(got, orders) {
				t.Errorf("%s: key %s made %v, the ledger says %v", tc.name, key, got, orders)
			}
		}
		var rules []string
		for _, f := range res.Findings {
			rules = append(rules, f.Rule.ID+" "+strings.Join(f.Keys, ","))
		}
		if i == 0 {
			want = rules
			if len(want) == 0 {
				t.Fatal("the capture as recorded makes no finding")
			}
		} else if !slices.Equal(rules, want) {
			t.Errorf("%s: findings %q, as captured %q", tc.name, rules, want)
		}
	}
}
