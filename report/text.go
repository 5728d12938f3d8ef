package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/model"
)

// Text writes the report for a terminal (styled) or a pipe (plain).
func (r *Report) Text(w io.Writer, st styles, width int) {
	if width < 40 {
		width = 40
	}
	const title = "idem diagnose:"
	first, rest := r.summaryLine(), []string(nil)
	if !r.Compact { // on a terminal, within its width; piped, one line
		lines := wrapWords(title+" "+first, width)
		first = strings.TrimPrefix(lines[0], title+" ")
		rest = wrapWords(strings.Join(lines[1:], " "), width-2)
	}
	fmt.Fprintf(w, "%s %s\n", st.Title.Render(title), first)
	for _, l := range rest {
		fmt.Fprintf(w, "  %s\n", l)
	}
	seen := strings.Join(r.Summary.Tiers, ", ")
	if seen == "" {
		seen = "none"
	}
	fmt.Fprintf(w, "tiers seen: %s", seen)
	if len(r.Summary.MissingTiers) > 0 {
		fmt.Fprintf(w, "; %s", st.Warning.Render("missing: "+strings.Join(r.Summary.MissingTiers, ", ")))
	}
	fmt.Fprintln(w)
	inputsText(w, st, r.Inputs, width)
	if line := r.retriesLine(); line != "" {
		for _, l := range wrapWords(line, width) {
			fmt.Fprintf(w, "%s\n", l)
		}
	}
	if note := r.idlessNote(); note != "" {
		fmt.Fprintf(w, "%s\n", st.Warning.Render(note))
	}
	r.skipsText(w, st)
	JoinsText(w, st, r.Inputs)
	if explained(r.Inputs) {
		FieldsText(w, st, r.Inputs)
	}
	if len(r.Findings) == 0 {
		r.notEvaluatedText(w, st, width)
		if len(r.NotEvaluated) == 0 {
			fmt.Fprintf(w, "\n%s\n", st.OK.Render(r.verdictLine()))
			return
		}
		fmt.Fprintln(w)
		for _, l := range wrapWords(r.verdictLine(), width) {
			fmt.Fprintf(w, "%s\n", st.Warning.Render(l))
		}
		return
	}
	r.findingsText(w, st, width)
}

// explained reports whether the inputs were read with --explain-fields.
func explained(inputs []*model.Input) bool {
	for _, in := range inputs {
		if len(in.Fields) > 0 {
			return true
		}
	}
	return false
}

// notEvaluatedText names each rule that could not look, why, and what to
// log so that it can.
func (r *Report) notEvaluatedText(w io.Writer, st styles, width int) {
	if len(r.NotEvaluated) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s\n", st.Warning.Render(r.notEvaluatedHead()))
	for _, g := range r.notEvaluatedGroups() {
		for _, l := range wrapWords(strings.Join(g.Rules, ", "), width-2) {
			fmt.Fprintf(w, "  %s\n", st.Title.Render(l))
		}
		for _, l := range wrapWords("why: "+g.Why, width-4) {
			fmt.Fprintf(w, "    %s\n", l)
		}
		for _, l := range wrapWords("log: "+g.Log, width-4) {
			fmt.Fprintf(w, "    %s\n", st.Faint.Render(l))
		}
	}
}

func (r *Report) skipsText(w io.Writer, st styles) {
	for _, in := range r.Inputs {
		if len(in.Formats) > 1 {
			var parts []string
			for f, n := range in.Formats {
				parts = append(parts, fmt.Sprintf("%s %d", f, n))
			}
			sort.Strings(parts)
			fmt.Fprintf(w, "%s %s: %s\n", st.Faint.Render("formats:"), Safe(in.Path), strings.Join(parts, ", "))
		}
		if in.Err != nil {
			fmt.Fprintf(w, "%s %s: %s\n", st.Critical.Render("input cut short:"), Safe(in.Path), Safe(in.Err.Error()))
		}
		if in.RequestLines != nil {
			fmt.Fprintf(w, "%s %s: %s\n", st.Warning.Render("request lines no format reads:"), Safe(in.Path), Safe(RequestLinesNote(in)))
			if in.RequestLines.Pattern != "" {
				fmt.Fprintf(w, "  %s %s\n", st.Faint.Render("a --config to start from:"), Safe(ConfigJSON(ConfigPattern(in))))
			}
		}
		if in.Skipped == 0 {
			continue
		}
		fmt.Fprintf(w, "%s %s: %s skipped\n", st.Warning.Render("skipped lines:"), Safe(in.Path), Count(in.Skipped, "line", "lines"))
		for _, s := range in.SkipSamples {
			fmt.Fprintf(w, "  %s  %s\n", st.Faint.Render(Safe(s.Source.String())), s.Reason)
		}
		if in.Skipped > len(in.SkipSamples) {
			fmt.Fprintf(w, "  %s\n", st.Faint.Render(fmt.Sprintf("… and %d more", in.Skipped-len(in.SkipSamples))))
		}
	}
}

func sevStyle(st styles, s diagnose.Severity) interface{ Render(...string) string } {
	switch s {
	case diagnose.Critical:
		return st.Critical
	case diagnose.Warning:
		return st.Warning
	}
	return st.Info
}

// findingsText writes the per-rule summary, then one section per rule:
// its four columns once, then its findings, the first r.Limit in full and
// the rest counted.
func (r *Report) findingsText(w io.Writer, st styles, width int) {
	groups := groupByRule(r.Findings)
	fmt.Fprintln(w)
	summaryText(w, st, groups, width)
	r.notEvaluatedText(w, st, width) // beside the summary, before the detail
	more := 0
	for _, g := range groups {
		n := shown(len(g.Findings), r.Limit)
		sev, n0 := strings.ToUpper(g.Severity.String()), "("+count(len(g.Findings), "finding", "findings")+")"
		head := fmt.Sprintf("%s  %s", sevStyle(st, g.Severity).Render(sev), st.Label.Render(g.Rule.ID))
		if textWidth(sev+g.Rule.ID+g.Rule.Title+n0)+6 <= width {
			fmt.Fprintf(w, "\n%s  %s  %s\n", head, g.Rule.Title, st.Faint.Render(n0))
		} else {
			fmt.Fprintf(w, "\n%s  %s\n  %s\n", head, st.Faint.Render(n0), g.Rule.Title)
		}
		for _, col := range [][2]string{{"symptom", g.Rule.Symptom}, {"hypothesis", g.Rule.Hypothesis}, {"check", g.Rule.Check}, {"action", g.Rule.Action}} {
			for i, line := range wrapWords(col[1], max(20, width-14)) {
				label := ""
				if i == 0 {
					label = col[0]
				}
				fmt.Fprintf(w, "  %s %s\n", st.Faint.Render(fmt.Sprintf("%-11s", label)), line)
			}
		}
		for _, f := range g.Findings[:n] {
			findingText(w, st, f, width)
		}
		if rest := len(g.Findings) - n; rest > 0 {
			more += rest
			fmt.Fprintf(w, "\n  %s\n", st.Faint.Render(fmt.Sprintf("… and %s more (use --limit 0 or -o json)", thousands(rest))))
		}
	}
	if more > 0 && len(groups) > 1 {
		fmt.Fprintf(w, "\n%s\n", st.Faint.Render(fmt.Sprintf("%s of %s findings shown in full (--limit %d per rule).",
			thousands(len(r.Findings)-more), thousands(len(r.Findings)), r.Limit)))
	}
}

// summaryText is the overview a reader starts from: per rule, how many
// findings and intents, when, and the one to look at first.
func summaryText(w io.Writer, st styles, groups []*ruleGroup, width int) {
	day, oneDay := sameDay(groups)
	full := newGrid("rule", "severity", "findings", "intents", "first", "last", "worst example")
	full.header = true
	full.right[2], full.right[3] = true, true
	full.flex = 6
	for _, g := range groups {
		full.add(cell{g.Rule.ID, st.Label.Render}, cell{g.Severity.String(), sevStyle(st, g.Severity).Render},
			plain(thousands(len(g.Findings))), plain(thousands(g.Intents)),
			plain(groupTime(g.First, oneDay)), plain(groupTime(g.Last, oneDay)), plain(Safe(subject(g.Worst))))
	}
	if oneDay {
		fmt.Fprintf(w, "%s\n", st.Faint.Render("findings by rule (times on "+day+", UTC)"))
	} else {
		fmt.Fprintf(w, "%s\n", st.Faint.Render("findings by rule"))
	}
	if _, fits := full.widths(0, width); fits {
		full.write(w, st, 0, width)
		return
	}
	// Too narrow for the examples beside the counts: the counts as a table,
	// the examples under it.
	counts := newGrid(full.names[:6]...)
	counts.header = true
	counts.right = full.right
	examples := newGrid("rule", "worst example")
	examples.flex = 1
	for _, row := range full.rows {
		counts.add(row[:6]...)
		examples.add(row[0], row[6])
	}
	if _, fits := counts.widths(0, width); fits {
		counts.write(w, st, 0, width)
		fmt.Fprintf(w, "%s\n", st.Faint.Render("worst examples"))
		examples.write(w, st, 2, width)
		return
	}
	// Narrower still: three short lines per rule.
	for i, g := range groups {
		row := full.rows[i]
		fmt.Fprintf(w, "%s  %s  %s, %s\n", row[0].style(row[0].text), row[1].style(row[1].text),
			count(len(g.Findings), "finding", "findings"), count(g.Intents, "intent", "intents"))
		if !g.First.IsZero() {
			fmt.Fprintf(w, "  %s %s, %s %s\n", st.Faint.Render("first"), row[4].text, st.Faint.Render("last"), row[5].text)
		}
		lead := "  " + st.Faint.Render("worst") + " "
		for _, line := range wrapWords(row[6].text, width-8) {
			fmt.Fprintf(w, "%s%s\n", lead, line)
			lead = "        "
		}
	}
}

// findingText writes one finding: what it is about, what happened, and the
// evidence lines.
func findingText(w io.Writer, st styles, f *diagnose.Finding, width int) {
	fmt.Fprintln(w)
	lead := sevStyle(st, f.Severity).Render("●") + " "
	for i, line := range wrapWords(Safe(subject(f)), max(20, width-4)) {
		if i > 0 {
			lead = "  "
		}
		fmt.Fprintf(w, "  %s%s\n", lead, st.Code.Render(line))
	}
	for _, line := range wrapWords(Safe(f.Narrative), max(20, width-4)) {
		fmt.Fprintf(w, "    %s\n", line)
	}
	for _, rt := range f.Retries {
		for i, line := range wrapWords(Safe(retryText(rt)), max(20, width-6)) {
			lead := "  "
			if i == 0 {
				lead = "↻ "
			}
			fmt.Fprintf(w, "    %s%s\n", st.Faint.Render(lead), line)
		}
	}
	if len(f.Evidence) > 0 {
		evidenceText(w, st, "evidence", f.Evidence, 4, width)
	}
	// How sure the finding is, after what it rests on.
	lead = st.Faint.Render("confidence") + " "
	for _, line := range wrapWords(Safe(f.Confidence.Summary()), max(20, width-15)) {
		fmt.Fprintf(w, "    %s%s\n", lead, line)
		lead = strings.Repeat(" ", len("confidence "))
	}
}

// evidenceText writes observations under a label at indent, in the widest
// layout that fits: one line per observation; or its time, tier, status
// and request id on one line and what it says with its source on the
// next; or one "name: value" block per observation. Within one day, the
// day is said once and each line has the clock time.
func evidenceText(w io.Writer, st styles, label string, obs []*model.Observation, indent, width int) {
	day, oneDay := obsDay(obs)
	if oneDay {
		label += " (" + day + ")"
	}
	fmt.Fprintf(w, "%s%s\n", strings.Repeat(" ", indent), st.Faint.Render(label))
	indent += 2
	when := func(o *model.Observation) string { return rowTime(o, oneDay) }
	full := newGrid("time", "tier", "status", "request id", "detail", "source")
	full.flex = 4
	head := newGrid(full.names[:4]...)
	for _, o := range obs {
		row := []cell{plain(when(o)), plain(o.Tier.String()), {evidenceStatus(o), statusStyle(st, o)},
			plain(Safe(shorten(o.RequestID, 48))), plain(strings.TrimSpace(observationExtras(st, o))),
			{Safe(o.Source.String()), st.Faint.Render}}
		if row[3].text == "" {
			row[3].text = "-"
		}
		full.add(row...)
		head.add(row[:4]...)
	}
	if _, fits := full.widths(indent, width); fits {
		full.write(w, st, indent, width)
		return
	}
	if _, fits := head.widths(indent, width); !fits {
		full.stacked(w, st, indent, width)
		return
	}
	// Two lines per observation: the head aligned as a table, then what it
	// says and where, further in.
	var b strings.Builder
	for i, row := range full.rows {
		b.Reset()
		one := &grid{names: head.names, right: head.right, flex: -1, rows: head.rows[i : i+1]}
		w2, _ := head.widths(indent, width)
		one.writeWidths(&b, st, indent, w2)
		io.WriteString(w, b.String())
		room := width - indent - 2
		lines := wrapWords(row[4].text, room)
		src := row[5].text
		if n := len(lines); n > 0 && textWidth(lines[n-1])+2+textWidth(src) <= room {
			lines[n-1] += "  " + st.Faint.Render(src)
		} else {
			lines = append(lines, st.Faint.Render(src))
		}
		for _, line := range lines {
			fmt.Fprintf(w, "%s  %s\n", strings.Repeat(" ", indent), line)
		}
	}
}

// rowTime writes where a row stands on the timeline (Observation.At):
// the clock time within one day, the full time otherwise.
func rowTime(o *model.Observation, oneDay bool) string {
	if oneDay && !o.At().IsZero() {
		return o.At().UTC().Format("15:04:05.000Z")
	}
	return formatTime(o.At())
}

// obsDay is the one UTC day all the observations' times fall on, if any.
func obsDay(obs []*model.Observation) (string, bool) {
	day := ""
	for _, o := range obs {
		if o.At().IsZero() {
			continue
		}
		d := o.At().UTC().Format("2006-01-02")
		if day != "" && d != day {
			return "", false
		}
		day = d
	}
	return day, day != ""
}

func statusStyle(st styles, o *model.Observation) render {
	switch {
	case o.Outcome.Lost():
		return st.Critical.Render
	case o.Status >= 400:
		return st.Warning.Render
	case o.Status > 0:
		return st.OK.Render
	}
	return st.Faint.Render
}
