package diagnose_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/load"
	"github.com/idem-cli/idem/model"
)

// What each input supplied decides which rules could look: the rest are
// named, with why and what to log, and "no findings" is then inconclusive.
func TestNotEvaluated(t *testing.T) {
	const (
		id      = model.FieldRequestID
		key     = model.FieldKey
		status  = model.FieldStatus
		fp      = model.FieldFingerprint
		result  = model.FieldResult
		effect  = model.FieldEffect
		precise = model.FieldPrecise
		client  = model.FieldClient
	)
	server := model.Supply{File: "app.jsonl", Tier: model.TierServer, Lines: 4, Fields: id | key | status | result | effect | precise}
	proxy := model.Supply{File: "access.log", Tier: model.TierProxy, Lines: 2, Fields: id | key | status | client | precise}
	har := model.Supply{File: "client.har", Tier: model.TierClient, Lines: 2, Fields: id | key | status | fp | precise}
	tests := []struct {
		name     string
		supplies []model.Supply
		// want names each rule not evaluated and a word of why.
		want         map[string]string
		inconclusive bool
	}{
		{"every tier and field: every rule looks", []model.Supply{har, proxy, server}, map[string]string{}, false},
		{"the application log alone", []model.Supply{server}, map[string]string{
			"response-lost":             "no client or proxy log",
			"retry-new-key":             "payload fingerprint",
			"duplicate-submission":      "payload fingerprint",
			"payload-mismatch":          "payload fingerprint",
			"unkeyed-retry":             "payload fingerprint",
			"request-id-not-propagated": "no input holds the proxy tier's lines",
		}, true},
		{"a combined access log alone, no key logged", []model.Supply{{File: "access.log", Tier: model.TierProxy, Fields: status | client}}, map[string]string{
			"response-lost":             "no input holds the server tier's lines",
			"retry-new-key":             "no input holds the server tier's lines",
			"duplicate-submission":      "server tier",
			"non-atomic-reservation":    "server tier",
			"payload-mismatch":          "server tier",
			"in-progress-retry":         "server tier",
			"unkeyed-retry":             "server tier",
			"key-expired":               "server tier",
			"replay-divergence":         "server tier",
			"request-id-not-propagated": "server tier",
			"retry-storm":               "no line carries an Idempotency-Key",
			"request-id-reused":         "no line carries a request id",
			"proxy-retry":               "no line carries a request id",
		}, true},
		// Who sent each request stands in for the payloads where none
		// is logged: a likely unkeyed retry can still be seen.
		{"proxy and server without payloads: a likely retry can still be seen", []model.Supply{proxy, server}, map[string]string{
			"duplicate-submission": "payload fingerprint",
			"payload-mismatch":     "payload fingerprint",
		}, true},
		// request-id-not-propagated is about how logs are kept: named,
		// it does not make the run inconclusive; proxy-retry, which
		// could not see the proxy's own retry, does.
		{"proxy without ids and server: no join", []model.Supply{{File: "access.log", Tier: model.TierProxy, Fields: status | client | precise}, server, har}, map[string]string{
			"request-id-not-propagated": "do not both log",
			"proxy-retry":               "neither what its upstreams answered nor how many it tried",
		}, true},
		{"proxy without ids that logs its upstreams' answers", []model.Supply{{File: "access.log", Tier: model.TierProxy, Fields: status | client | precise | model.FieldUpstream}, server, har}, map[string]string{
			"request-id-not-propagated": "do not both log",
		}, false},
		{"a server that writes seconds", []model.Supply{har, proxy, {File: "app.log", Tier: model.TierServer, Fields: server.Fields &^ precise}}, map[string]string{
			"non-atomic-reservation": "to the second",
		}, true},
		{"a worker's log: its rules look, the others could not", []model.Supply{{File: "worker.jsonl", Tier: model.TierWorker, Fields: key | precise}}, map[string]string{
			"response-lost": "server tier", "retry-new-key": "server tier", "duplicate-submission": "server tier",
			"non-atomic-reservation": "server tier", "payload-mismatch": "server tier", "in-progress-retry": "server tier",
			"unkeyed-retry": "server tier", "key-expired": "server tier", "replay-divergence": "server tier",
			"request-id-not-propagated": "proxy tier", "request-id-reused": "request id", "proxy-retry": "request id",
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := &model.Set{Tiers: map[model.Tier]bool{}, Supplies: tt.supplies}
			for _, s := range tt.supplies {
				set.Tiers[s.Tier] = true
			}
			res := diagnose.Run(set, diagnose.DefaultOptions())
			got := map[string]string{}
			for _, ne := range res.NotEvaluated {
				got[ne.Rule.ID] = ne.Why
				if ne.Log == "" {
					t.Errorf("%s: no word of what to log", ne.Rule.ID)
				}
			}
			for id, why := range tt.want {
				if !strings.Contains(got[id], why) {
					t.Errorf("%s: why %q, want it to say %q", id, got[id], why)
				}
			}
			for id, why := range got {
				if _, ok := tt.want[id]; !ok {
					t.Errorf("%s not evaluated (%s), want it to look", id, why)
				}
			}
			if res.Inconclusive() != tt.inconclusive || res.Summary.Inconclusive != tt.inconclusive ||
				res.Summary.NotEvaluated != len(res.NotEvaluated) {
				t.Errorf("inconclusive %v (summary %v, %d not evaluated), want %v", res.Inconclusive(), res.Summary.Inconclusive,
					res.Summary.NotEvaluated, tt.inconclusive)
			}
			// --rule keeps only what it names.
			f := res.Filter(diagnose.Filter{Rules: []string{"key-expired"}})
			if _, ok := tt.want["key-expired"]; ok != (len(f.NotEvaluated) == 1) {
				t.Errorf("--rule key-expired kept %d not evaluated", len(f.NotEvaluated))
			}
		})
	}
}

// A rule that found something looked, whatever the inputs supplied; the
// hygiene rule never makes a run inconclusive.
func TestFoundIsEvaluated(t *testing.T) {
	res := diagnose.Run(loadScenario(t, "retry-storm"), diagnose.DefaultOptions())
	for _, ne := range res.NotEvaluated {
		for _, f := range res.Findings {
			if f.Rule == ne.Rule {
				t.Errorf("%s found something and is listed as not evaluated", ne.Rule.ID)
			}
		}
	}
	for _, r := range diagnose.Rules() {
		if r.Hygiene == r.Decides() {
			t.Errorf("%s: hygiene %v, decides %v", r.ID, r.Hygiene, r.Decides())
		}
	}
}

// On real captures: the combined log or the backend's log alone could not
// show what the harness sent; all of them together let the rules about a
// lost response and a retry look.
func TestNotEvaluatedOnRealCaptures(t *testing.T) {
	dir := filepath.Join("..", "fixtures", "real", "nginx")
	tests := []struct {
		files []string
		want  []string // rules not evaluated
		not   []string // rules that looked
	}{
		{[]string{"access.combined.log"}, []string{"response-lost", "retry-new-key", "key-expired"}, []string{"retry-storm"}},
		{[]string{"app.jsonl"}, []string{"response-lost", "retry-new-key", "payload-mismatch"}, []string{"key-expired", "non-atomic-reservation"}},
		{[]string{"access.json.log", "app.jsonl"}, []string{"payload-mismatch"}, []string{"response-lost", "retry-new-key", "key-expired", "request-id-not-propagated"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.files, "+"), func(t *testing.T) {
			var paths []string
			for _, f := range tt.files {
				paths = append(paths, filepath.Join(dir, f))
			}
			set, err := load.Files(context.Background(), paths, load.Options{Read: ingest.Options{}, Build: diagnose.DefaultOptions().Build()})
			if err != nil {
				t.Fatal(err)
			}
			res := diagnose.Run(set, diagnose.DefaultOptions())
			var got []string
			for _, ne := range res.NotEvaluated {
				got = append(got, ne.Rule.ID)
			}
			for _, w := range tt.want {
				if !slices.Contains(got, w) {
					t.Errorf("%s looked; not evaluated: %v", w, got)
				}
			}
			for _, n := range tt.not {
				if slices.Contains(got, n) {
					t.Errorf("%s could not look; not evaluated: %v", n, got)
				}
			}
			if !res.Inconclusive() {
				t.Errorf("not inconclusive: %v", got)
			}
		})
	}
}
