package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/model"
)

// Markdown writes the report to paste into an incident channel or ticket.
// Every piece of log content goes through MD, so no log line can add rows,
// links or markup.
func (r *Report) Markdown(w io.Writer) {
	s := r.Summary
	fmt.Fprintf(w, "## idem diagnosis\n\n")
	fmt.Fprintf(w, "| inputs | lines | skipped | ignored | deliveries | unkeyed | intents | with findings | without | critical | warning | info |\n")
	fmt.Fprintf(w, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(w, "| %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d |\n\n", s.Inputs, s.Lines, s.Skipped, s.Ignored, s.Deliveries,
		s.Unkeyed, s.Intents, s.WithFindings, s.Healthy, s.Critical, s.Warning, s.Info)
	if s.FilteredOut > 0 {
		fmt.Fprintf(w, "Filtered out: %s with findings that the filters set aside, counted neither with findings nor without.\n\n",
			Count(s.FilteredOut, "intent", "intents"))
	}
	if s.OwnTraffic > 0 {
		fmt.Fprintf(w, "%s of idem replay's own traffic (request ids idem-replay-…, probe keys) were set apart, not diagnosed.\n\n",
			Count(s.OwnTraffic, "delivery", "deliveries"))
	}
	fmt.Fprintf(w, "Tiers seen: %s.", strings.Join(s.Tiers, ", "))
	if len(s.MissingTiers) > 0 {
		fmt.Fprintf(w, " Missing: %s, so what happened there could not be seen.", strings.Join(s.MissingTiers, ", "))
	}
	fmt.Fprintf(w, "\n\n")
	if line := r.retriesLine(); line != "" {
		fmt.Fprintf(w, "%s.\n\n", md(strings.ToUpper(line[:1])+line[1:]))
	}
	if note := r.idlessNote(); note != "" {
		fmt.Fprintf(w, "**%s**\n\n", md(note))
	}
	fmt.Fprintf(w, "| input | format | tier | lines | skipped |\n|---|---|---|---:|---:|\n")
	for _, in := range r.Inputs {
		fmt.Fprintf(w, "| %s | %s | %s | %d | %d |\n", md(in.Path), md(in.Format), tierWord(in), in.Lines, in.Skipped)
	}
	for _, in := range r.Inputs {
		for _, sk := range in.SkipSamples {
			fmt.Fprintf(w, "\n- skipped %s: %s", md(sk.Source.String()), md(sk.Reason))
		}
		if in.RequestLines != nil {
			fmt.Fprintf(w, "\n- %s: %s", md(in.Path), md(RequestLinesNote(in)))
			if in.RequestLines.Pattern != "" {
				// A code span shows the pattern as it is; it holds no backtick.
				fmt.Fprintf(w, "; a `--config` to start from: `%s`", strings.ReplaceAll(Safe(ConfigJSON(ConfigPattern(in))), "`", "'"))
			}
		}
	}
	fmt.Fprintln(w)
	if len(r.NotEvaluated) > 0 {
		fmt.Fprintf(w, "\n### Not evaluated\n\n%s:\n\n| rule | why | what to log |\n|---|---|---|\n", md(strings.TrimPrefix(r.notEvaluatedHead(), "not evaluated: ")))
		for _, g := range r.notEvaluatedGroups() {
			fmt.Fprintf(w, "| `%s` | %s | %s |\n", strings.Join(g.Rules, "`, `"), md(g.Why), md(g.Log))
		}
	}
	if len(r.Findings) == 0 {
		fmt.Fprintf(w, "\n%s\n", md(r.verdictLine()))
		return
	}
	r.findingsMarkdown(w)
}

// mdTail bounds the rows of one rule's folded tail: a ticket or a chat
// message has a size limit long before 15,000 rows.
const mdTail = 200

// mdPictures is how many findings get an evidence table and a diagram.
const mdPictures = 3

// findingsMarkdown writes the per-rule summary, then one section per rule:
// its four columns once, a short table of its first findings, the rest
// folded in <details>, and evidence with a diagram for the worst few.
func (r *Report) findingsMarkdown(w io.Writer) {
	groups := groupByRule(r.Findings)
	pictured := worstFew(groups, mdPictures)
	fmt.Fprintf(w, "\n### Findings by rule\n\n| rule | severity | findings | intents | first | last | worst example |\n|---|---|---:|---:|---|---|---|\n")
	for _, g := range groups {
		fmt.Fprintf(w, "| `%s` | %s | %d | %d | %s | %s | %s |\n", g.Rule.ID, g.Severity, len(g.Findings), g.Intents,
			formatTime(g.First), formatTime(g.Last), md(subject(g.Worst)))
	}
	for _, g := range groups {
		fmt.Fprintf(w, "\n### %s: `%s` (%s), %s\n\n", g.Severity, g.Rule.ID, g.Rule.Title, count(len(g.Findings), "finding", "findings"))
		fmt.Fprintf(w, "| symptom | hypothesis | check | bounded action |\n|---|---|---|---|\n")
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", md(g.Rule.Symptom), md(g.Rule.Hypothesis), md(g.Rule.Check), md(g.Rule.Action))
		n := shown(len(g.Findings), r.Limit)
		findingRows(w, g.Findings[:n], 0)
		if rest := g.Findings[n:]; len(rest) > 0 {
			noun := "findings"
			if len(rest) == 1 {
				noun = "finding"
			}
			fmt.Fprintf(w, "\n<details><summary>%s more %s of %s</summary>\n", thousands(len(rest)), noun, g.Rule.ID)
			folded := rest[:min(len(rest), mdTail)]
			findingRows(w, folded, n)
			if left := len(rest) - len(folded); left > 0 {
				fmt.Fprintf(w, "\n… and %s more: `idem diagnose -o json` has every finding.\n", thousands(left))
			}
			fmt.Fprintf(w, "\n</details>\n")
		}
		for _, f := range g.Findings {
			if pictured[f] || (len(f.Intents) == 0 && f == g.Worst && len(f.Evidence) > 0) {
				findingPicture(w, f)
			}
		}
	}
}

// findingRows is a short table of findings: what each is about, when it
// started and what happened. from numbers the rows.
func findingRows(w io.Writer, findings []*diagnose.Finding, from int) {
	if len(findings) == 0 {
		return
	}
	fmt.Fprintf(w, "\n| # | about | started | what happened |\n|---:|---|---|---|\n")
	for i, f := range findings {
		first, _ := findingSpan(f)
		fmt.Fprintf(w, "| %d | %s | %s | %s |\n", from+i+1, md(subject(f)), formatTime(first), md(f.Narrative))
	}
}

// findingPicture is the evidence table and sequence diagram of a finding.
func findingPicture(w io.Writer, f *diagnose.Finding) {
	fmt.Fprintf(w, "\n#### %s\n\n**What happened.** %s\n", md(subject(f)), md(f.Narrative))
	fmt.Fprintf(w, "\n**Confidence.** %s\n", md(f.Confidence.Summary()))
	for _, rt := range f.Retries {
		fmt.Fprintf(w, "\n- %s", md(retryText(rt)))
	}
	if len(f.Retries) > 0 {
		fmt.Fprintln(w)
	}
	if len(f.Evidence) > 0 {
		fmt.Fprintf(w, "\n**Evidence**\n\n| time | tier | request id | status | outcome | decision | result | source |\n|---|---|---|---:|---|---|---|---|\n")
		for _, o := range f.Evidence {
			result := md(o.ResultID)
			if o.Effect {
				result += " (effect)"
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", formatTime(o.At()), o.Tier, md(o.RequestID), statusOrDash(o.Status),
				cellOutcome(o), md(o.Decision), result, md(o.Source.String()))
		}
	}
	if len(f.Intents) > 0 {
		fmt.Fprintf(w, "\n```mermaid\n%s```\n", sequenceDiagram(f.Intents))
	}
}

// markdownLinkSafe is the last step of MD: it breaks what GitHub-flavoured
// Markdown would turn into a link by itself (bare URLs, www. names, email
// addresses) with backslash escapes, which render as the characters they
// escape, so the text reads the same and links nowhere.
func markdownLinkSafe(s string) string {
	if !strings.Contains(s, "://") && !strings.Contains(s, "@") && !strings.Contains(strings.ToLower(s), "www.") {
		return s
	}
	var b strings.Builder
	lower := strings.ToLower(s)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ':' && strings.HasPrefix(s[i+1:], "//"):
			b.WriteString(`\:`)
		case c == '@':
			b.WriteString(`\@`)
		case c == '.' && i >= 3 && lower[i-3:i] == "www":
			b.WriteString(`\.`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// cellOutcome shows "-" where a line says nothing of a response. Ok only
// means that an answer came (model.OutcomeOK): a client's 504, or any
// error status, is "answered" beside its status, never "ok".
func cellOutcome(o *model.Observation) string {
	switch {
	case o.Outcome == model.OutcomeUnknown:
		return "-"
	case o.Outcome == model.OutcomeOK && o.Status >= 400:
		return "answered"
	}
	return o.Outcome.String()
}
