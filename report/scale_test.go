package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/model"
)

// manyFindings is a report of n findings of each named rule, one intent
// each; the intent of finding i has i%7+1 deliveries, so the worst is
// known.
func manyFindings(n int, rules ...string) *Report {
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	var findings []*diagnose.Finding
	for _, id := range rules {
		rule := diagnose.RuleByID(id)
		for i := range n {
			key := fmt.Sprintf("%s-key-%05d", id, i)
			in := &model.Intent{ID: key, Key: key}
			for d := range i%7 + 1 {
				rid := fmt.Sprintf("req-%s-%d", key, d)
				o := &model.Observation{Tier: model.TierProxy, Time: t0.Add(time.Duration(i)*time.Second + time.Duration(d)*time.Millisecond),
					RequestID: rid, Key: key, Status: 502, Outcome: model.OutcomeUpstreamReset, Source: model.Source{File: "access.log", Line: i*7 + d + 1}}
				in.Deliveries = append(in.Deliveries, &model.Delivery{RequestID: rid, Key: key, Observations: []*model.Observation{o}})
			}
			findings = append(findings, &diagnose.Finding{Rule: rule, Severity: rule.Severity, Intents: []*model.Intent{in}, Keys: []string{key},
				Narrative: "what happened to " + key, Evidence: in.Deliveries[0].Observations})
		}
	}
	return &Report{Findings: findings, Summary: diagnose.Summary{Findings: len(findings)}}
}

func TestTextLimitsFindingsPerRule(t *testing.T) {
	for _, tc := range []struct {
		name   string
		limit  int
		full   int
		more   []string
		noMore bool
	}{
		{"default limit", DefaultLimit, 2 * DefaultLimit,
			[]string{"… and 9,995 more (use --limit 0 or -o json)", "10 of 20,000 findings shown in full (--limit 5 per rule)."}, false},
		{"limit 1", 1, 2, []string{"… and 9,999 more"}, false},
		{"no limit", 0, 20000, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := manyFindings(10000, "retry-storm", "unkeyed-retry")
			r.Limit = tc.limit
			var b bytes.Buffer
			r.Text(&b, NewStyles(&b, false), 80)
			out := b.String()
			if got := strings.Count(out, "● key"); got != tc.full {
				t.Errorf("%d findings in full, want %d", got, tc.full)
			}
			for _, w := range tc.more {
				if !strings.Contains(out, w) {
					t.Errorf("no %q in the report", w)
				}
			}
			if tc.noMore && strings.Contains(out, "more (use --limit") {
				t.Errorf("a report without a limit counts findings it left out")
			}
			// The four columns are written once per rule, not per finding.
			if got := strings.Count(out, "hypothesis"); got != 2 {
				t.Errorf("the four columns appear %d times, want once per rule (2)", got)
			}
			if tc.limit > 0 && strings.Count(out, "\n") > 200 {
				t.Errorf("a limited report of 20,000 findings is %d lines long", strings.Count(out, "\n"))
			}
		})
	}
}

func TestSummaryLeadsWithEachRule(t *testing.T) {
	r := manyFindings(30, "unkeyed-retry", "retry-storm")
	r.Limit = 2
	var b bytes.Buffer
	r.Text(&b, NewStyles(&b, false), 120)
	out := b.String()
	summary, _, _ := strings.Cut(out, "\nCRITICAL")
	for _, want := range []string{
		"findings by rule (times on 2026-11-30, UTC)",
		"rule           severity  findings  intents  first         last          worst example",
		// The worst example has the most deliveries: i%7 == 6.
		"unkeyed-retry  critical        30       30  09:00:00.000  09:00:29.000  key unkeyed-retry-key-00006",
		"retry-storm    warning         30       30  09:00:00.000  09:00:29.000  key retry-storm-key-00006",
	} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, summary)
		}
	}
	if strings.Index(out, "findings by rule") > strings.Index(out, "symptom") {
		t.Errorf("the summary does not come before the details")
	}
}

// TestNarrowEvidenceNeverSplitsIDs lays evidence with long ids out at
// several widths: every id and path stays whole on one line.
func TestNarrowEvidenceNeverSplitsIDs(t *testing.T) {
	r := manyFindings(3, "retry-storm")
	long := "req-" + strings.Repeat("0123456789", 4)
	path := "/var/log/some/very/long/path/to/the/ingress/access.log"
	for _, f := range r.Findings {
		for _, o := range f.Evidence {
			o.RequestID, o.Source.File = long, path
		}
	}
	for _, width := range []int{40, 60, 80, 100, 120, 200} {
		var b bytes.Buffer
		r.Text(&b, NewStyles(&b, false), width)
		out := b.String()
		for _, id := range []string{long, path + ":1"} {
			if !strings.Contains(out, id) {
				t.Errorf("at %d columns %q was split or cut:\n%s", width, id, out)
			}
		}
	}
}

func TestMarkdownAtScale(t *testing.T) {
	r := manyFindings(10000, "retry-storm", "unkeyed-retry", "request-id-reused")
	r.Limit = DefaultLimit
	var b bytes.Buffer
	r.Markdown(&b)
	out := b.String()
	for _, want := range []string{
		"### Findings by rule",
		"| `unkeyed-retry` | critical | 10000 | 10000 |",
		"<details><summary>9,995 more findings of retry-storm</summary>",
		"… and 9,795 more: `idem diagnose -o json` has every finding.",
		"</details>",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the Markdown lacks %q", want)
		}
	}
	if got := strings.Count(out, "| symptom | hypothesis | check | bounded action |"); got != 3 {
		t.Errorf("%d four-column tables, want one per rule (3)", got)
	}
	if got := strings.Count(out, "```mermaid"); got != 3 {
		t.Errorf("%d diagrams, want 3 (the worst of each rule)", got)
	}
	if got := strings.Count(out, "\n| "); got > 3*(2+DefaultLimit+2+200+2)+20 {
		t.Errorf("%d table rows for 30,000 findings", got)
	}
	if len(out) > 1<<20 {
		t.Errorf("the Markdown of 30,000 findings is %d bytes", len(out))
	}
	// With no limit every finding has a row.
	r.Limit = 0
	b.Reset()
	r.Markdown(&b)
	if got := strings.Count(b.String(), "what happened to "); got < 30000 {
		t.Errorf("--limit 0 shows %d findings, want all 30,000", got)
	}
}
