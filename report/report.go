package report

import (
	"fmt"
	"strings"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/model"
)

// The diagnosis report, and what every renderer says of it the same way:
// the summary line, the counts by severity, a status cell.

// Report is a diagnosis ready to render.
type Report struct {
	Inputs   []*model.Input
	Summary  diagnose.Summary
	Findings []*diagnose.Finding
	// NotEvaluated lists the rules that could not look at these logs.
	NotEvaluated []diagnose.NotEvaluated
	// Compact is set for a pipe: JSON on one line instead of indented,
	// the text's summary line on one line rather than wrapped at the
	// terminal's width, for scripts that read it.
	Compact bool
	// Limit is how many findings of each rule text, Markdown and HTML show
	// in full (0: all; DefaultLimit is what idem diagnose uses). JSON
	// always has every finding.
	Limit int
}

// summaryLine is the one-line count of what was read and found.
func (r *Report) summaryLine() string {
	s := r.Summary
	aside := ""
	if s.FilteredOut > 0 {
		aside = fmt.Sprintf(", %d with findings filtered out", s.FilteredOut)
	}
	// An intent outside --since/--until is neither healthy nor with
	// findings: the line says so, or its counts would not add up.
	if s.OutOfWindow > 0 {
		aside += fmt.Sprintf(", %d out of the window", s.OutOfWindow)
	}
	if s.Unplaced > 0 {
		aside += fmt.Sprintf(", %d not placed in the window", s.Unplaced)
	}
	line := fmt.Sprintf("%s, %s (%d skipped, %d ignored), %s (%d unkeyed), %s (%d with findings, %d without%s); %s",
		Count(s.Inputs, "input", "inputs"), Count(s.Lines, "line", "lines"), s.Skipped, s.Ignored,
		Count(s.Deliveries, "delivery", "deliveries"), s.Unkeyed, Count(s.Intents, "intent", "intents"), s.WithFindings, s.Healthy,
		aside, r.findingCounts())
	if s.OwnTraffic > 0 {
		line += fmt.Sprintf("; %s of idem replay's own traffic set apart", Count(s.OwnTraffic, "delivery", "deliveries"))
	}
	return line
}

// idlessNote says how many request lines joined nothing for want of a
// request id and a key, and where the fix is; "" when none.
func (r *Report) idlessNote() string {
	var parts []string
	for _, t := range []string{"client", "proxy", "server"} {
		if n := r.Summary.Idless[t]; n > 0 {
			parts = append(parts, Count(n, t+" line", t+" lines"))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "no request id and no key: " + strings.Join(parts, ", ") + " joined nothing; make that tier log them (the format's setup in 'idem help formats' and docs/formats.md)"
}

// verdictLine is what the report says when it has no finding: "No
// findings." only when every rule could look and no filter set a
// finding aside.
func (r *Report) verdictLine() string {
	n, aside := len(r.NotEvaluated), r.Summary.FilteredOut
	if n == 0 && aside == 0 {
		return "No findings."
	}
	s := "No findings"
	if aside > 0 {
		s += fmt.Sprintf(" in what the filters kept (%s with findings filtered out)", Count(aside, "intent", "intents"))
	}
	if n == 0 {
		return s + "."
	}
	decides := 0
	for _, ne := range r.NotEvaluated {
		if ne.Rule.Decides() {
			decides++
		}
	}
	s += fmt.Sprintf(" from the rules that could look; %s could not (see \"not evaluated\")", Count(n, "rule", "rules"))
	if decides > 0 {
		return s + ": inconclusive."
	}
	return s + "."
}

// notEvaluatedGroup is the rules that could not look for one reason.
type notEvaluatedGroup struct {
	Rules    []string
	Why, Log string
}

// notEvaluatedGroups gathers the rules that could not look by why and
// what to log, in catalog order: ten rules missing one tier are one line.
func (r *Report) notEvaluatedGroups() []notEvaluatedGroup {
	var out []notEvaluatedGroup
	at := map[[2]string]int{}
	for _, ne := range r.NotEvaluated {
		k := [2]string{ne.Why, ne.Log}
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, notEvaluatedGroup{Why: ne.Why, Log: ne.Log})
		}
		out[i].Rules = append(out[i].Rules, ne.Rule.ID)
	}
	return out
}

// notEvaluatedHead introduces the rules that could not look.
func (r *Report) notEvaluatedHead() string {
	return fmt.Sprintf("not evaluated: %s could not look at these logs", Count(len(r.NotEvaluated), "rule", "rules"))
}

// findingCounts says how many findings there are, by severity; "no
// findings" alone only when every rule could look.
func (r *Report) findingCounts() string {
	s := r.Summary
	if s.Findings == 0 && s.FilteredOut > 0 {
		return "no findings in what the filters kept"
	}
	if s.Findings == 0 && len(r.NotEvaluated) > 0 {
		return fmt.Sprintf("no findings from the rules that could look (%s could not)", Count(len(r.NotEvaluated), "rule", "rules"))
	}
	if s.Findings == 0 {
		return "no findings"
	}
	var parts []string
	for _, c := range []struct {
		n    int
		name string
	}{{s.Critical, "critical"}, {s.Warning, "warning"}, {s.Info, "info"}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.name))
		}
	}
	return Count(s.Findings, "finding", "findings") + ": " + strings.Join(parts, ", ")
}

// Count writes n with its noun, one or many: "1 finding", "2 findings".
// Every count a report or a command prints is said this way.
func Count(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

func evidenceStatus(o *model.Observation) string {
	switch {
	case o.Outcome.Lost():
		return o.Outcome.String()
	case o.Status > 0:
		return fmt.Sprint(o.Status)
	}
	return "-"
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

// retriesLine counts the retries by the layer that sent them, and which
// of them made a second effect: "retries: 1 by the proxy (1 made a
// duplicate), 2 by a client library"; "" when there were none.
func (r *Report) retriesLine() string {
	var parts []string
	for _, l := range diagnose.Layers {
		n := r.Summary.RetriesByLayer[string(l)]
		if n == 0 {
			continue
		}
		part := fmt.Sprintf("%d by %s", n, l.Words())
		if d := r.Summary.DuplicatesByLayer[string(l)]; d > 0 {
			part += fmt.Sprintf(" (%d made a duplicate)", d)
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return ""
	}
	return "retries: " + strings.Join(parts, ", ")
}

// retryText is one retry of a finding in words: who sent it, when, why.
func retryText(rt diagnose.Retry) string { return retryJSONText(retryJSON(rt)) }
