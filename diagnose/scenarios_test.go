package diagnose_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/load"
	"github.com/idem-cli/idem/model"
)

func loadScenario(t *testing.T, name string) *model.Set {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "fixtures", "scenarios", name, "*"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("scenario %s: no files", name)
	}
	set, err := load.Files(context.Background(), paths, load.Options{Read: ingest.Options{}, Build: diagnose.DefaultOptions().Build()})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range set.Inputs {
		if in.Skipped > 0 {
			t.Errorf("%s: %d lines skipped: %v", in.Path, in.Skipped, in.SkipSamples)
		}
	}
	return set
}

// effectRules are the rules that explain a duplicate effect: a scenario
// for one of them must not set off another.
var effectRules = map[string]bool{"retry-new-key": true, "non-atomic-reservation": true, "payload-mismatch": true,
	"external-duplicate": true, "unkeyed-retry": true, "key-expired": true, "attempt-scoped-key": true}

func TestScenarios(t *testing.T) {
	tests := []struct {
		scenario string
		rule     string   // the scenario's own rule
		key      string   // a key its finding must name ("" for file findings)
		severity string   // the severity of that finding
		all      []string // every rule that fires, sorted
	}{
		{"healthy", "", "", "", nil},
		{"response-lost", "response-lost", "3b7d1f0e-6a2c-4f9e-b1d3-5e7f9a0b1c2d", "warning", []string{"response-lost"}},
		{"retry-new-key", "retry-new-key", "c0ffee00-7777-4888-9999-aaaabbbbcccc", "critical", []string{"response-lost", "retry-new-key"}},
		{"retry-new-key-unlogged-payload", "retry-new-key", "pay-2f9c41d0-7b1e-4c3a-8d55-1a2b3c4d5e02", "critical", []string{"response-lost", "retry-new-key"}},
		{"retry-new-key-named", "retry-new-key", "pay-81d2a7c4-5e02", "critical", []string{"response-lost", "retry-new-key"}},
		{"non-atomic-reservation", "non-atomic-reservation", "d0ub1e00-c1ic-4k00-8000-000000000001", "critical", []string{"non-atomic-reservation"}},
		{"payload-mismatch", "payload-mismatch", "e1e2e3e4-f5f6-4a7b-8c9d-0e1f2a3b4c5d", "critical", []string{"payload-mismatch"}},
		{"in-progress-stuck", "in-progress-retry", "0f1e2d3c-4b5a-4968-8776-655443322110", "critical", []string{"in-progress-retry"}},
		{"external-duplicate", "external-duplicate", "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9", "critical", []string{"external-duplicate"}},
		{"unkeyed-retry", "unkeyed-retry", "", "critical", []string{"unkeyed-retry"}},
		{"key-expired", "key-expired", "77aa88bb-99cc-4ddd-8eee-ffff00001111", "critical", []string{"key-expired", "retry-storm"}},
		{"attempt-scoped-key", "attempt-scoped-key", "article-107:r1:publish:attempt-2", "critical", []string{"attempt-scoped-key"}},
		{"late-completion", "late-completion", "article-108:r1:publish", "warning", []string{"in-progress-retry", "late-completion"}},
		{"retry-storm", "retry-storm", "aa11bb22-cc33-4d44-8e55-ff6677889900", "warning", []string{"retry-storm"}},
		{"replay-divergence", "replay-divergence", "4d5e6f70-8192-4a3b-9c4d-5e6f708192a3", "warning", []string{"replay-divergence"}},
		{"proxy-retry", "proxy-retry", "6b1d2f3a-4c5e-4f70-8192-a3b4c5d6e7f8", "critical", []string{"proxy-retry"}},
		{"request-id-reused", "request-id-reused", "0c0c0c0c-aaaa-4bbb-8ccc-dddddddd0002", "warning", []string{"request-id-reused"}},
		{"secret-in-logs", "secret-in-logs", "", "warning", []string{"secret-in-logs"}},
		{"request-id-not-propagated", "request-id-not-propagated", "9d8c7b6a-1111-4222-8333-000000000001", "info", []string{"request-id-not-propagated"}},
		{"duplicate-submission", "duplicate-submission", "a1b2c3d4-0002-4000-8000-000000000002", "warning", []string{"duplicate-submission"}},
		{"note-not-a-trip", "response-lost", "pay-note-0001", "info", []string{"response-lost"}},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			res := diagnose.Run(loadScenario(t, tt.scenario), diagnose.DefaultOptions())
			var got []string
			for _, f := range res.Findings {
				got = append(got, f.Rule.ID)
			}
			sort.Strings(got)
			if strings.Join(got, ",") != strings.Join(tt.all, ",") {
				t.Fatalf("rules fired %v, want %v", got, tt.all)
			}
			if tt.rule == "" {
				if res.Summary.Healthy != res.Summary.Intents || res.Summary.Intents == 0 {
					t.Errorf("healthy: %+v", res.Summary)
				}
				return
			}
			covered[tt.rule] = true
			var own *diagnose.Finding
			for _, f := range res.Findings {
				if f.Rule.ID == tt.rule {
					own = f
				}
				if f.Rule.ID != tt.rule && effectRules[f.Rule.ID] {
					t.Errorf("another effect rule fired: %s", f.Rule.ID)
				}
			}
			if own.Severity.String() != tt.severity {
				t.Errorf("severity %s, want %s", own.Severity, tt.severity)
			}
			if tt.key != "" && !slices.Contains(own.Keys, tt.key) {
				t.Errorf("finding names keys %v, want %s among them", own.Keys, tt.key)
			}
			if own.Narrative == "" || (own.Rule.ID != "secret-in-logs" && len(own.Evidence) == 0) {
				t.Errorf("finding without narrative or evidence: %+v", own)
			}
			for _, o := range own.Evidence {
				if o.Source.File == "" || o.Source.Line == 0 {
					t.Errorf("evidence without file:line: %+v", o)
				}
			}
		})
	}
	for _, r := range diagnose.Rules() {
		if !covered[r.ID] {
			t.Errorf("rule %s has no scenario", r.ID)
		}
	}
}

func TestResponseLostRecoveredIsInfo(t *testing.T) {
	paths, _ := filepath.Glob("../fixtures/incident/*")
	set, err := load.Files(context.Background(), paths, load.Options{Read: ingest.Options{}, Build: diagnose.DefaultOptions().Build()})
	if err != nil {
		t.Fatal(err)
	}
	res := diagnose.Run(set, diagnose.DefaultOptions())
	var f *diagnose.Finding
	for _, x := range res.Findings {
		if x.Rule.ID == "response-lost" {
			f = x
		}
	}
	if f == nil || f.Severity != diagnose.Info || !strings.Contains(f.Narrative, "got the stored result") {
		t.Fatalf("response-lost on the incident: %+v", f)
	}
	// The info finding names one of the two intents: one with findings,
	// one without, and the counts add up.
	if s := res.Summary; s.Deliveries != 4 || s.Intents != 2 || s.WithFindings != 1 || s.Healthy != 1 || s.Ignored != 1 {
		t.Errorf("summary %+v", s)
	}
	for _, sc := range []string{"incident", "scenarios/retry-new-key", "scenarios/late-completion", "scenarios/secret-in-logs"} {
		paths, _ := filepath.Glob(filepath.Join("..", "fixtures", sc, "*"))
		set, err := load.Files(context.Background(), paths, load.Options{Read: ingest.Options{}, Build: diagnose.DefaultOptions().Build()})
		if err != nil {
			t.Fatal(err)
		}
		s := diagnose.Run(set, diagnose.DefaultOptions()).Summary
		byRule := 0
		for _, n := range s.ByRule {
			byRule += n
		}
		if s.Intents != s.WithFindings+s.Healthy || s.Findings != s.Critical+s.Warning+s.Info || s.Findings != byRule {
			t.Errorf("%s: the summary does not add up: %+v", sc, s)
		}
	}
}

func TestThresholds(t *testing.T) {
	set := loadScenario(t, "retry-storm")
	opts := diagnose.DefaultOptions()
	opts.RetryBudget = 20
	opts.Deadline = 10 * 60e9
	if res := diagnose.Run(set, opts); len(res.Findings) != 0 {
		t.Errorf("raised budget and deadline still fire: %v", res.Findings[0].Narrative)
	}
}

func TestFilter(t *testing.T) {
	res := diagnose.Run(loadScenario(t, "retry-new-key"), diagnose.DefaultOptions())
	if got := (diagnose.Filter{Rules: []string{"retry-new-key"}}).Apply(res.Findings); len(got) != 1 {
		t.Errorf("rule filter kept %d", len(got))
	}
	if got := (diagnose.Filter{Keys: []string{"c0ffee00-1111-4222-8333-444455556666"}}).Apply(res.Findings); len(got) != 2 {
		t.Errorf("key filter kept %d, want both findings naming the first key", len(got))
	}
	if got := (diagnose.Filter{Tier: model.TierProvider}).Apply(res.Findings); len(got) != 0 {
		t.Errorf("tier filter kept %d", len(got))
	}
	if got := (diagnose.Filter{}).Apply(res.Findings); !slices.Equal(got, res.Findings) {
		t.Errorf("the empty filter kept %d of %d", len(got), len(res.Findings))
	}
	first := res.Findings[0].Start()
	if got := (diagnose.Filter{Since: first.Add(time.Nanosecond)}).Apply(res.Findings); len(got) >= len(res.Findings) {
		t.Errorf("--since after the first finding kept all %d", len(got))
	}
}

func globScenario(t *testing.T, name string) []string {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join("..", "fixtures", "scenarios", name, "*"))
	return paths
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestLinesWithoutIDsAreCounted: proxy lines with neither a request id
// nor a key join nothing; the summary counts them by tier, so the report
// can say how to log them.
func TestLinesWithoutIDsAreCounted(t *testing.T) {
	lines := `{"time_iso8601":"2026-11-30T10:00:00+00:00","request_method":"POST","request_uri":"/v1/orders","status":"201","request_time":"0.1","remote_addr":"1.2.3.4"}` + "\n" +
		`{"time_iso8601":"2026-11-30T10:00:01+00:00","request_method":"POST","request_uri":"/v1/orders","status":"201","request_time":"0.1","remote_addr":"1.2.3.4","http_x_request_id":"r-1"}` + "\n"
	set, err := load.Files(context.Background(), []string{"-"}, load.Options{Read: ingest.Options{Stdin: strings.NewReader(lines)}, Build: diagnose.DefaultOptions().Build()})
	if err != nil {
		t.Fatal(err)
	}
	s := diagnose.Run(set, diagnose.DefaultOptions()).Summary
	if s.Idless["proxy"] != 1 || s.Deliveries != 1 {
		t.Errorf("lines without ids %v, deliveries %d; want 1 proxy line and 1 delivery", s.Idless, s.Deliveries)
	}
}

// TestANoteIsNotATrip: the service's note about the key ("the caller will
// submit again": no request id, method, route or status) joins the send it
// is about. The caller sent twice, as nginx shows, and nothing else: two
// deliveries, one retry, the caller's.
func TestANoteIsNotATrip(t *testing.T) {
	res := diagnose.Run(loadScenario(t, "note-not-a-trip"), diagnose.DefaultOptions())
	if res.Summary.Deliveries != 2 {
		t.Errorf("%d deliveries, want the 2 nginx logged", res.Summary.Deliveries)
	}
	if got := res.Summary.RetriesByLayer; len(got) != 1 || got["client"] != 1 {
		t.Errorf("retries by layer %v, want the caller's one", got)
	}
}
