package diagnose_test

// Minimal cases beside each rule, in the manner of ShellCheck's
// verify/verifyNot: a few log lines built in Go, read by the real
// correlator, and the findings the rule must (or must not) make of them.
// Each rule_*_test.go holds one ruleCases table; allCases lists them.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/trace"
)

// allCases holds every rule's cases, in catalog order.
var allCases = []ruleCases{
	responseLostCases,
	retryNewKeyCases,
	duplicateSubmissionCases,
	nonAtomicCases,
	payloadMismatchCases,
	inProgressCases,
	externalDuplicateCases,
	unkeyedRetryCases,
	keyExpiredCases,
	attemptScopedKeyCases,
	lateCompletionCases,
	retryStormCases,
	replayDivergenceCases,
	proxyRetryCases,
	requestIDReusedCases,
	requestIDNotPropagatedCases,
	secretInLogsCases,
}

// ruleCases are one rule's minimal cases: fire must each make the findings
// they name; quiet are the near misses, one field away from firing, where
// the rule must stay silent.
type ruleCases struct {
	rule  string
	fire  []ruleCase
	quiet []ruleCase
}

// ruleCase is one input: log lines, read in order as one file.
type ruleCase struct {
	name string
	obs  []ob
	// inputs are the per-file summaries the reader would hand over
	// (secret-in-logs reads them); nil for most cases.
	inputs []*model.Input
	// opts changes the default thresholds, for cases about one.
	opts func(*diagnose.Options)
	// want are the rule's findings in report order (fire cases only).
	want []want
}

// want is one expected finding.
type want struct {
	severity diagnose.Severity
	keys     []string // Finding.Keys, in order
	says     string   // a phrase the narrative must hold, if any
	input    string   // the input a file finding names
	// conf is the finding's confidence level, if the case is about it;
	// lacks a phrase its Lacks must hold.
	conf, lacks string
}

// caseFile names the one file a case's lines come from.
const caseFile = "case.jsonl"

// t0 is when every case begins.
var t0 = time.Date(2026, 11, 30, 13, 30, 0, 0, time.UTC)

// ob is one log line under construction. Its methods return a changed
// copy, so a case reads as one expression per line.
type ob struct{ o model.Observation }

func line(t model.Tier, rid string) ob { return ob{model.Observation{Tier: t, RequestID: rid}} }

func client(rid string) ob   { return line(model.TierClient, rid) }
func proxy(rid string) ob    { return line(model.TierProxy, rid) }
func server(rid string) ob   { return line(model.TierServer, rid) }
func worker(rid string) ob   { return line(model.TierWorker, rid) }
func provider(rid string) ob { return line(model.TierProvider, rid) }

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// at is when the tier saw the request, in seconds after t0.
func (b ob) at(s float64) ob             { b.o.Time = t0.Add(seconds(s)); return b }
func (b ob) took(s float64) ob           { b.o.Duration = seconds(s); return b }
func (b ob) key(k string) ob             { b.o.Key = k; return b }
func (b ob) keyHashOf(k string) ob       { b.o.KeyHash = model.HashKey(k); return b }
func (b ob) req(method, route string) ob { b.o.Method, b.o.Route = method, route; return b }
func (b ob) post() ob                    { return b.req("POST", "/v1/orders") }
func (b ob) status(n int) ob             { b.o.Status = n; return b }
func (b ob) upstream(n int) ob           { b.o.UpstreamStatus = n; return b }
func (b ob) tries(n int) ob              { b.o.UpstreamTries = n; return b }
func (b ob) outcome(o model.Outcome) ob  { b.o.Outcome = o; return b }
func (b ob) fp(f string) ob              { b.o.Fingerprint = f; return b }
func (b ob) decision(d string) ob        { b.o.Decision = d; return b }
func (b ob) state(s string) ob           { b.o.State = s; return b }
func (b ob) result(id string) ob         { b.o.ResultID = id; return b }
func (b ob) effect(id string) ob         { b.o.Effect, b.o.ResultID = true, id; return b }
func (b ob) replayed() ob                { b.o.Replayed = true; return b }
func (b ob) retryAfter() ob              { b.o.RetryAfter = true; return b }
func (b ob) from(addr string) ob         { b.o.Client = addr; return b }
func (b ob) prev(k string) ob            { b.o.PreviousKey = k; return b }
func (b ob) msg(m string) ob             { b.o.Message = m; return b }
func (b ob) detail(d string) ob          { b.o.Detail = d; return b }
func (b ob) activity(wf, id string, n int) ob {
	b.o.Workflow = &model.Workflow{ID: wf, ActivityID: id, ActivityType: "Publish"}
	b.o.Attempt = n
	return b
}

// diagnose reads a case's lines through the correlator, as one file, and
// runs every rule over them.
func (c ruleCase) diagnose() *diagnose.Result {
	cr := trace.NewCorrelator(nil)
	for i, b := range c.obs {
		o := b.o
		o.Source = model.Source{File: caseFile, Line: i + 1}
		cr.Add(&o)
	}
	opts := diagnose.DefaultOptions()
	if c.opts != nil {
		c.opts(&opts)
	}
	return diagnose.Run(cr.Set(c.inputs), opts)
}

// run returns the findings of rule alone. The whole catalog runs, as in
// idem diagnose; no rule's findings depend on another's.
func (c ruleCase) run(rule *diagnose.Rule) []*diagnose.Finding {
	return diagnose.Filter{Rules: []string{rule.ID}}.Apply(c.diagnose().Findings)
}

// verify requires the case to make exactly the wanted findings, each with
// a narrative and with evidence drawn from the case's own lines.
func verify(t *testing.T, rule *diagnose.Rule, c ruleCase) {
	t.Helper()
	got := c.run(rule)
	if len(got) != len(c.want) {
		t.Fatalf("%s made %d findings, want %d:\n%s", rule.ID, len(got), len(c.want), describe(got))
	}
	for i, w := range c.want {
		f := got[i]
		if f.Severity != w.severity {
			t.Errorf("finding %d: severity %s, want %s: %s", i, f.Severity, w.severity, f.Narrative)
		}
		if !slices.Equal(f.Keys, w.keys) {
			t.Errorf("finding %d: keys %q, want %q", i, f.Keys, w.keys)
		}
		if f.Input != w.input {
			t.Errorf("finding %d: input %q, want %q", i, f.Input, w.input)
		}
		if !strings.Contains(f.Narrative, w.says) {
			t.Errorf("finding %d: narrative %q does not say %q", i, f.Narrative, w.says)
		}
		if w.conf != "" && f.Confidence.Level != w.conf {
			t.Errorf("finding %d: confidence %s, want %s: %s", i, f.Confidence.Summary(), w.conf, f.Narrative)
		}
		if w.lacks != "" && !strings.Contains(strings.Join(f.Confidence.Lacks, "; "), w.lacks) {
			t.Errorf("finding %d: confidence %q does not say it lacks %q", i, f.Confidence.Summary(), w.lacks)
		}
		wellFormed(t, f, len(c.obs))
	}
}

// wellFormed requires what every finding owes its reader: a narrative,
// the keys of the intents it implicates, and evidence (unless it is about
// a file) drawn from the lines read.
func wellFormed(t *testing.T, f *diagnose.Finding, lines int) {
	t.Helper()
	if f.Rule == nil || f.Narrative == "" {
		t.Errorf("finding without a rule or a narrative: %+v", f)
		return
	}
	// An inferred finding names what the logs lack to prove it.
	switch f.Confidence.Level {
	case diagnose.Proven:
	case diagnose.Inferred:
		if len(f.Confidence.RestsOn) == 0 || len(f.Confidence.Lacks) == 0 {
			t.Errorf("%s: inferred without saying what it rests on and lacks: %+v", f.Rule.ID, f.Confidence)
		}
	default:
		t.Errorf("%s: confidence %q, want proven or inferred", f.Rule.ID, f.Confidence.Level)
	}
	for _, in := range f.Intents {
		if !slices.Contains(f.Keys, in.Key) {
			t.Errorf("%s implicates intent %s but names keys %q", f.Rule.ID, in.Key, f.Keys)
		}
	}
	if f.Input == "" && len(f.Evidence) == 0 {
		t.Errorf("%s has no evidence: %s", f.Rule.ID, f.Narrative)
	}
	for _, o := range f.Evidence {
		if o.Source.File != caseFile || o.Source.Line < 1 || o.Source.Line > lines {
			t.Errorf("%s: evidence from %s, not a line read", f.Rule.ID, o.Source)
		}
	}
}

// verifyNot requires the case to make no finding of the rule.
func verifyNot(t *testing.T, rule *diagnose.Rule, c ruleCase) {
	t.Helper()
	if got := c.run(rule); len(got) > 0 {
		t.Errorf("%s fired on a near miss:\n%s", rule.ID, describe(got))
	}
}

func describe(findings []*diagnose.Finding) string {
	var b strings.Builder
	for _, f := range findings {
		fmt.Fprintf(&b, "  %s %q: %s\n", f.Severity, f.Keys, f.Narrative)
	}
	return b.String()
}

func TestRuleCases(t *testing.T) {
	for _, rc := range allCases {
		rule := diagnose.RuleByID(rc.rule)
		if rule == nil {
			t.Errorf("cases for unknown rule %q", rc.rule)
			continue
		}
		t.Run(rc.rule, func(t *testing.T) {
			for _, c := range rc.fire {
				t.Run("fires/"+c.name, func(t *testing.T) { verify(t, rule, c) })
			}
			for _, c := range rc.quiet {
				t.Run("quiet/"+c.name, func(t *testing.T) { verifyNot(t, rule, c) })
			}
		})
	}
}

// TestRulesAreComplete holds every rule of the catalog to being a whole
// unit: its documentation, its example scenario, and at least two cases
// that fire and two near misses, registered in allCases in catalog order.
func TestRulesAreComplete(t *testing.T) {
	rules := diagnose.Rules()
	if len(allCases) != len(rules) {
		t.Errorf("allCases has %d rules, the catalog %d", len(allCases), len(rules))
	}
	for i, r := range rules {
		if r.Evidence == "" {
			t.Errorf("%s: no Evidence", r.ID)
		}
		if r.Proof == "" || r.Inference == "" {
			t.Errorf("%s: docs/rules.md must say what proves it and what makes it an inference", r.ID)
		}
		if r.Example == "" {
			t.Errorf("%s: no Example", r.ID)
		} else if st, err := os.Stat(filepath.Join("..", "fixtures", "scenarios", r.Example)); err != nil || !st.IsDir() {
			t.Errorf("%s: Example %q is not a directory of fixtures/scenarios", r.ID, r.Example)
		}
		if i >= len(allCases) || allCases[i].rule != r.ID {
			t.Errorf("%s: not at place %d of allCases", r.ID, i)
			continue
		}
		rc := allCases[i]
		if len(rc.fire) < 2 || len(rc.quiet) < 2 {
			t.Errorf("%s: %d cases that fire and %d near misses, want at least 2 of each", r.ID, len(rc.fire), len(rc.quiet))
		}
		names := map[string]bool{}
		for _, c := range append(slices.Clone(rc.fire), rc.quiet...) {
			if c.name == "" || names[c.name] {
				t.Errorf("%s: case name %q is empty or used twice", r.ID, c.name)
			}
			names[c.name] = true
		}
		for _, c := range rc.fire {
			if len(c.want) == 0 {
				t.Errorf("%s: case %q fires but wants no finding", r.ID, c.name)
			}
		}
		for _, c := range rc.quiet {
			if len(c.want) > 0 {
				t.Errorf("%s: near miss %q wants findings", r.ID, c.name)
			}
		}
	}
}

// FuzzRules builds a few log lines from the fuzzer's bytes, each field
// picked from a small vocabulary so that lines meet, and requires every
// rule to finish without a panic and with findings that hold together.
func FuzzRules(f *testing.F) {
	f.Add([]byte("\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10"))
	f.Add([]byte("\x12\x34\x56\x78\x9a\xbc\xde\xf0\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\xcc\xdd\xee\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := ruleCase{obs: linesFrom(data)}
		if len(data) > 0 && data[0]&1 == 1 {
			c.inputs = []*model.Input{{Path: "a.jsonl", Secrets: map[string]int{"cookie": int(data[0])}}}
		}
		for _, f := range c.diagnose().Findings {
			wellFormed(t, f, len(c.obs))
		}
	})
}

var (
	fuzzRIDs     = []string{"", "r1", "r2", "r3"}
	fuzzKeys     = []string{"", "k-1", "k-2", "k-1:attempt-2", "k-1-try3"}
	fuzzMethods  = []string{"", "POST", "PATCH", "GET", "PUT"}
	fuzzStatuses = []int{0, 200, 201, 409, 422, 429, 499, 500, 504}
	fuzzFPs      = []string{"", "sha256:aaaa", "sha256:bbbb"}
	fuzzDecision = []string{"", "new", "replay", "in_progress", "conflict"}
	fuzzMsgs     = []string{"", "Activity complete after timeout.", "Publish completed", "Publishing"}
)

func linesFrom(data []byte) []ob {
	var out []ob
	for i := 0; i+8 <= len(data) && len(out) < 12; i += 8 {
		p := data[i : i+8]
		pick := func(b byte, n int) int { return int(b) % n }
		b := line(model.Tier(pick(p[0], 6)), fuzzRIDs[pick(p[1], len(fuzzRIDs))]).
			key(fuzzKeys[pick(p[2], len(fuzzKeys))]).
			req(fuzzMethods[pick(p[3], len(fuzzMethods))], "/v1/orders").
			status(fuzzStatuses[pick(p[4], len(fuzzStatuses))]).
			outcome(model.Outcome(pick(p[5], 10))).
			fp(fuzzFPs[pick(p[6], len(fuzzFPs))]).
			decision(fuzzDecision[pick(p[6]>>4, len(fuzzDecision))])
		if p[7]&0x80 == 0 {
			b = b.at(float64(p[7]&0x7f) * 7)
		}
		if p[7]&0x40 != 0 {
			b = b.took(float64(p[7]&0x0f) * 3)
		}
		if p[5]&0x80 != 0 {
			b = b.effect("res_" + string(rune('a'+p[5]%4)))
		}
		if p[4]&0x80 != 0 {
			b = b.activity("wf", string(rune('5'+p[4]%2)), int(p[3]%3))
			b = b.msg(fuzzMsgs[pick(p[2]>>4, len(fuzzMsgs))])
		}
		if p[3]&0x80 != 0 {
			b = b.from([]string{"10.0.0.7", "10.0.0.8"}[p[3]&1])
		}
		if p[2]&0x80 != 0 {
			b = b.replayed()
		}
		if p[1]&0x80 != 0 {
			b = b.retryAfter()
		}
		out = append(out, b)
	}
	return out
}
