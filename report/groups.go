package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/model"
)

// DefaultLimit is how many findings of each rule the text, Markdown and
// HTML reports show in full; the rest are counted (JSON has them all).
const DefaultLimit = 5

// ruleGroup is the findings of one rule at one severity: one row of the
// summary, one section of the report.
type ruleGroup struct {
	Rule     *diagnose.Rule
	Severity diagnose.Severity
	Findings []*diagnose.Finding
	Intents  int
	First    time.Time
	Last     time.Time
	// Worst is the finding to look at first: the most effects, then the
	// most deliveries, then the earliest.
	Worst *diagnose.Finding
}

// groupByRule groups findings by rule and severity, most severe first,
// then in the order the findings come (by time); each group's findings
// keep their order.
func groupByRule(findings []*diagnose.Finding) []*ruleGroup {
	type groupKey struct {
		rule string
		sev  diagnose.Severity
	}
	index := map[groupKey]*ruleGroup{}
	var groups []*ruleGroup
	intents := map[groupKey]map[*model.Intent]bool{}
	for _, f := range findings {
		k := groupKey{f.Rule.ID, f.Severity}
		g := index[k]
		if g == nil {
			g = &ruleGroup{Rule: f.Rule, Severity: f.Severity}
			index[k] = g
			intents[k] = map[*model.Intent]bool{}
			groups = append(groups, g)
		}
		g.Findings = append(g.Findings, f)
		for _, in := range f.Intents {
			intents[k][in] = true
		}
		first, last := findingSpan(f)
		if !first.IsZero() && (g.First.IsZero() || first.Before(g.First)) {
			g.First = first
		}
		if last.After(g.Last) {
			g.Last = last
		}
		if g.Worst == nil || worse(f, g.Worst) {
			g.Worst = f
		}
	}
	for k, g := range index {
		g.Intents = len(intents[k])
	}
	// Stable by severity; within one, the order of first appearance.
	out := make([]*ruleGroup, 0, len(groups))
	for _, sev := range []diagnose.Severity{diagnose.Critical, diagnose.Warning, diagnose.Info} {
		for _, g := range groups {
			if g.Severity == sev {
				out = append(out, g)
			}
		}
	}
	return out
}

// findingSpan is the time of a finding's first and last evidence (or its
// intent's start); zero when it has none (a finding about a file).
func findingSpan(f *diagnose.Finding) (first, last time.Time) {
	first = f.Start()
	last = first
	for _, o := range f.Evidence {
		if o.Time.IsZero() {
			continue
		}
		if first.IsZero() || o.Time.Before(first) {
			first = o.Time
		}
		if o.Time.After(last) {
			last = o.Time
		}
	}
	return first, last
}

// weight is what makes one finding worse than another of its rule.
func weight(f *diagnose.Finding) (effects, deliveries int) {
	for _, in := range f.Intents {
		effects += len(in.Effects())
		deliveries += in.Count()
	}
	return effects, deliveries
}

func worse(a, b *diagnose.Finding) bool {
	ea, da := weight(a)
	eb, db := weight(b)
	if ea != eb {
		return ea > eb
	}
	return da > db
}

// worstFew are the findings whose intents get a picture (a Mermaid
// diagram, an HTML timeline): the worst of each rule, most severe rules
// first, at most n.
func worstFew(groups []*ruleGroup, n int) map[*diagnose.Finding]bool {
	out := map[*diagnose.Finding]bool{}
	for _, g := range groups {
		if len(out) == n {
			break
		}
		if len(g.Worst.Intents) > 0 {
			out[g.Worst] = true
		}
	}
	return out
}

// subject names what a finding is about: its keys, or its input file.
func subject(f *diagnose.Finding) string {
	if len(f.Keys) > 0 {
		return "key " + strings.Join(f.Keys, ", ")
	}
	if f.Input != "" {
		return "input " + f.Input
	}
	return ""
}

// shown is how many of n findings a limit shows (0 is no limit).
func shown(n, limit int) int {
	if limit <= 0 || limit > n {
		return n
	}
	return limit
}

// groupSpan writes a group's first and last time; within one day, the
// day is given once by the caller and only the clock time is written.
func groupTime(t time.Time, oneDay bool) string {
	if t.IsZero() {
		return "-"
	}
	if oneDay {
		return t.UTC().Format("15:04:05.000")
	}
	return formatTime(t)
}

// sameDay reports the one UTC day every group's times fall on, if any.
func sameDay(groups []*ruleGroup) (string, bool) {
	day := ""
	for _, g := range groups {
		for _, t := range []time.Time{g.First, g.Last} {
			if t.IsZero() {
				continue
			}
			d := t.UTC().Format("2006-01-02")
			if day != "" && d != day {
				return "", false
			}
			day = d
		}
	}
	return day, day != ""
}

// thousands writes n with thousands separators: 9,112.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return thousands(n) + " " + many
}
