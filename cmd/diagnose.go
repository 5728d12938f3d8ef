package cmd

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/logstore"
	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/report"
	"github.com/spf13/cobra"
)

// diagnoseOptions are the inputs of `idem diagnose`.
type diagnoseOptions struct {
	Factory *Factory
	Paths   []string
	Format  string
	Keys    []string
	Rules   []string
	Tier    string
	Since   string
	Until   string
	FailOn  string
	// FailOnHygiene lets hygiene findings (secrets in the logs) count
	// toward --fail-on; by default only the incident's findings do.
	FailOnHygiene bool
	Limit         int
	Rule          diagnose.Options
	Input         inputFlags
	// tierArgs are --tier's values: a bare TIER keeps the findings with
	// evidence from it (Tier), FILE=TIER corrects one input's tier
	// (Input.TierOf).
	tierArgs []string
}

// newCmdDiagnose builds `idem diagnose [FILE...]`.
func newCmdDiagnose(f *Factory, runF func(*diagnoseOptions) error) *cobra.Command {
	opts := &diagnoseOptions{Factory: f, Rule: diagnose.DefaultOptions()}
	cmd := &cobra.Command{
		Use:   "diagnose [FILE...]",
		Short: "Say what went wrong with retries and idempotency, with evidence",
		Long: `Read logs from any tiers, correlate deliveries into intents, and run every
rule of the diagnosis table over them (see 'idem rules'). Each finding says
what happened (with times and ids), the symptom, the hypothesis, how to check
it, the bounded action to take, and the log lines behind it (file:line).

With no FILE, or with -, standard input is read. Output is styled on a
terminal and plain when piped; -o markdown is made to paste into an incident,
-o html is one self-contained page with a timeline per finding
(docs/report-html.md), -o json is the idem.report/v1 schema
(docs/report-json.md). Text, Markdown and HTML lead with a summary per rule
and show the first --limit findings of each rule in full; JSON has them all.

A rule that could not look (no tier or field to decide on) is named under
"not evaluated" with why and what to log; "No findings." is said only when
every rule could look.

Exit codes: 0 no finding at or above --fail-on, 1 findings, 2 usage error,
an input that could not be read, or nothing to diagnose: no line of any
input was recognised, 3 inconclusive: no finding at or above --fail-on but
a rule that decides the verdict could not look (see 'idem help exit-codes').`,
		Example: `  idem diagnose fixtures/incident/*
  idem diagnose -o markdown client.har access.log.gz app.jsonl > incident.md
  idem diagnose -o html --limit 20 client.har access.log.gz app.jsonl > incident.html
  idem diagnose --rule response-lost,retry-new-key --since 2026-11-30T09:00:00Z logs.jsonl
  kubectl logs deploy/api | idem diagnose -o json - | jq '.findings[].rule'`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			if err := opts.splitTiers(); err != nil {
				return err
			}
			if err := opts.validate(); err != nil {
				return err
			}
			if err := opts.Input.validateTiers(args); err != nil {
				return err
			}
			if err := opts.Input.Store.validate(args); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runDiagnose(cmd, opts)
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&opts.Format, "format", "o", "text", "output format: text, markdown, json or html")
	fs.IntVar(&opts.Limit, "limit", report.DefaultLimit, "findings of each rule shown in full in text, markdown and html (0: all; json has all)")
	fs.StringSliceVar(&opts.Keys, "key", nil, "only findings about these keys")
	fs.StringSliceVar(&opts.Rules, "rule", nil, "only these rules (see 'idem rules')")
	fs.StringArrayVar(&opts.tierArgs, "tier", nil, "TIER: only findings with evidence from this tier; FILE=TIER: correct one input's tier (repeatable)")
	fs.StringVar(&opts.Since, "since", "", "only intents that started at or after this time (RFC 3339, or a duration before now such as 2h)")
	fs.StringVar(&opts.Until, "until", "", "only intents that started at or before this time (RFC 3339, or a duration before now)")
	fs.StringVar(&opts.FailOn, "fail-on", "warning", "exit 1 when a finding is at least this severe: info, warning or critical")
	fs.BoolVar(&opts.FailOnHygiene, "fail-on-hygiene", false, "let hygiene findings (secret-in-logs) fail --fail-on too")
	fs.DurationVar(&opts.Rule.RetryWindow, "retry-window", opts.Rule.RetryWindow, "how far apart two intents may start and be one user's retry")
	fs.IntVar(&opts.Rule.RetryBudget, "retry-budget", opts.Rule.RetryBudget, "deliveries one intent may take before retry-storm")
	fs.DurationVar(&opts.Rule.Deadline, "deadline", opts.Rule.Deadline, "how long after its first delivery an intent may be retried")
	opts.Input.register(cmd)
	opts.Input.Store.register(cmd)
	return cmd
}

// splitTiers sorts --tier's values into the filter and the inputs'
// corrections.
func (o *diagnoseOptions) splitTiers() error {
	for _, v := range o.tierArgs {
		if strings.Contains(v, "=") {
			o.Input.TierOf = append(o.Input.TierOf, v)
			continue
		}
		if o.Tier != "" && o.Tier != v {
			return usagef("--tier %s and --tier %s: findings are kept for one tier (FILE=TIER corrects an input's)", o.Tier, v)
		}
		o.Tier = v
	}
	return nil
}

func (o *diagnoseOptions) validate() error {
	switch o.Format {
	case "text", "markdown", "md", "json", "html":
	default:
		return usagef("invalid --format %q: want text, markdown, json or html", o.Format)
	}
	if o.Limit < 0 {
		return usagef("--limit must be 0 (all) or more")
	}
	if _, err := diagnose.ParseSeverity(o.FailOn); err != nil {
		return &usageError{Err: fmt.Errorf("--fail-on: %w", err)}
	}
	for _, r := range o.Rules {
		if diagnose.RuleByID(r) == nil {
			var ids []string
			for _, x := range diagnose.Rules() {
				ids = append(ids, x.ID)
			}
			return usagef("unknown rule %q (known: %s)", r, strings.Join(ids, ", "))
		}
	}
	if o.Tier != "" {
		if _, err := model.ParseTier(o.Tier); err != nil {
			return &usageError{Err: fmt.Errorf("--tier: %w", err)}
		}
	}
	if o.Rule.RetryBudget < 1 || o.Rule.RetryWindow <= 0 || o.Rule.Deadline <= 0 {
		return usagef("--retry-budget, --retry-window and --deadline must be positive")
	}
	return nil
}

// parseWhen reads --since/--until: an RFC 3339 time or a duration before now.
func parseWhen(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		return now.Add(-d), nil
	}
	if t, ok := model.ParseTime(s); ok {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("cannot read time %q: use RFC 3339 (2026-11-30T09:00:00Z) or a duration (2h)", s)
}

func runDiagnose(cmd *cobra.Command, opts *diagnoseOptions) error {
	f := opts.Factory
	var filter diagnose.Filter
	var err error
	if filter.Since, err = parseWhen(opts.Since, f.Now()); err != nil {
		return &usageError{Err: fmt.Errorf("--since: %w", err)}
	}
	if filter.Until, err = parseWhen(opts.Until, f.Now()); err != nil {
		return &usageError{Err: fmt.Errorf("--until: %w", err)}
	}
	if opts.Tier != "" {
		filter.Tier, _ = model.ParseTier(opts.Tier)
	}
	filter.Keys, filter.Rules = opts.Keys, opts.Rules
	opts.Input.window = logstore.Window{Start: filter.Since, End: filter.Until}

	build := opts.Rule.Build() // --retry-window and the rest widen what is built
	opts.Input.build = &build
	set, err := readInputs(cmd.Context(), f, &opts.Input, opts.Paths)
	if err != nil {
		return err
	}
	if err := nothingToDiagnose(set); err != nil {
		warnInputs(f.IO.ErrOut, set)
		return err
	}
	missing := missingKeys(set, opts.Keys)
	set.LookupsDone() // the rules read the built intents alone
	full := diagnose.Run(set, opts.Rule)
	res := full.Filter(filter)
	// An input that could not be read is said before the report, where
	// it is seen, not after its last finding.
	unreadable := warnInputs(f.IO.ErrOut, set)
	rep := &report.Report{Inputs: set.Inputs, Summary: res.Summary, Findings: res.Findings, NotEvaluated: res.NotEvaluated,
		Compact: !f.IO.IsStdoutTTY(), Limit: opts.Limit}
	out := f.IO.Out
	switch opts.Format {
	case "json":
		if err := rep.JSON(out); err != nil {
			return err
		}
	case "markdown", "md":
		rep.Markdown(out)
	case "html":
		if err := rep.HTML(out); err != nil {
			return err
		}
	default:
		rep.Text(out, report.NewStyles(out, f.IO.ColorEnabled()), f.IO.TerminalWidth())
	}
	if unreadable {
		return &codeError{Code: exitError}
	}
	for _, k := range missing {
		fmt.Fprintf(f.IO.ErrOut, "idem: no intent has key %s (as a raw key or its hash)\n", report.Safe(k))
	}
	if len(missing) > 0 && len(missing) == len(opts.Keys) {
		return &codeError{Code: exitError}
	}
	for _, note := range filterNotes(set, full, res, filter) {
		fmt.Fprintf(f.IO.ErrOut, "idem: %s\n", note)
	}
	if len(opts.Rules) > 0 && len(rep.Findings) == 0 {
		fmt.Fprintf(f.IO.ErrOut, "idem: --rule %s found nothing in %d intents\n", report.Safe(strings.Join(opts.Rules, ",")), res.Summary.Intents)
	}
	failOn, _ := diagnose.ParseSeverity(opts.FailOn)
	for _, fd := range rep.Findings {
		if fd.Severity >= failOn && (!fd.Rule.Hygiene || opts.FailOnHygiene) {
			return &codeError{Code: exitFindings}
		}
	}
	if res.Inconclusive() {
		return &codeError{Code: exitInconclusive}
	}
	return nil
}

// filterNotes says where --since, --until or --tier emptied the report:
// a window no line falls in, a tier no input has, or findings the
// filters all set aside. A report emptied by a filter must not read as
// a clean bill of health.
func filterNotes(set *model.Set, full, res *diagnose.Result, fl diagnose.Filter) []string {
	var window []string
	if !fl.Since.IsZero() {
		window = append(window, "--since "+fl.Since.UTC().Format(time.RFC3339))
	}
	if !fl.Until.IsZero() {
		window = append(window, "--until "+fl.Until.UTC().Format(time.RFC3339))
	}
	named := window
	if fl.Tier != model.TierUnknown {
		named = append(slices.Clip(named), "--tier "+fl.Tier.String())
	}
	if len(named) == 0 {
		return nil
	}
	var notes []string
	if first, last := set.Span(); len(window) > 0 && !first.IsZero() &&
		(!fl.Until.IsZero() && fl.Until.Before(first) || !fl.Since.IsZero() && fl.Since.After(last)) {
		notes = append(notes, fmt.Sprintf("%s: no line of the inputs falls in that window (they run from %s to %s)",
			strings.Join(window, " "), first.UTC().Format(time.RFC3339Nano), last.UTC().Format(time.RFC3339Nano)))
	}
	if fl.Tier != model.TierUnknown && !set.Tiers[fl.Tier] {
		var seen []string
		for t := model.TierClient; t <= model.TierProvider; t++ {
			if set.Tiers[t] {
				seen = append(seen, t.String())
			}
		}
		notes = append(notes, fmt.Sprintf("--tier %s: no input has %s lines (tiers seen: %s)", fl.Tier, fl.Tier, strings.Join(seen, ", ")))
	}
	if base := (diagnose.Filter{Keys: fl.Keys, Rules: fl.Rules}).Apply(full.Findings); len(base) > 0 && len(res.Findings) == 0 {
		notes = append(notes, fmt.Sprintf("%s kept none of the %s; the intents they name are counted apart, not healthy",
			strings.Join(named, " "), report.Count(len(base), "finding", "findings")))
	}
	return notes
}

// missingKeys lists the --key values no intent carries, raw or hashed.
func missingKeys(set *model.Set, keys []string) []string {
	var out []string
	for _, k := range keys {
		if len(set.FindIntent(k)) == 0 {
			out = append(out, k)
		}
	}
	return out
}
