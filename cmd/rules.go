package cmd

import (
	"fmt"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/report"
	"github.com/spf13/cobra"
)

// rulesOptions are the inputs of `idem rules`.
type rulesOptions struct {
	Factory *Factory
	Format  string
	ID      string
}

// newCmdRules builds `idem rules [ID]`. runF replaces the run function in
// tests; the flags are validated before either runs.
func newCmdRules(f *Factory, runF func(*rulesOptions) error) *cobra.Command {
	opts := &rulesOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "rules [ID]",
		Short: "List the diagnosis rules, or explain one",
		Long: `List every rule idem diagnose runs, with its stable ID and usual severity.
Name one rule to see its symptom, hypothesis, check and bounded action.
docs/rules.md documents each with its evidence and an example.`,
		Example: `  idem rules
  idem rules response-lost
  idem rules -o json | jq -r '.[].id'`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.ID = args[0]
			}
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runRules(opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Format, "format", "o", "text", "output format: text or json")
	return cmd
}

type ruleJSON struct {
	ID         string `json:"id"`
	Title      string `json:"title"`
	Severity   string `json:"severity"`
	Symptom    string `json:"symptom"`
	Hypothesis string `json:"hypothesis"`
	Check      string `json:"check"`
	Action     string `json:"action"`
}

// validate checks the format and the rule id before anything is written.
func (o *rulesOptions) validate() error {
	switch o.Format {
	case "text", "json":
	default:
		return usagef("invalid --format %q: want text or json", o.Format)
	}
	if o.ID != "" && diagnose.RuleByID(o.ID) == nil {
		return usagef("unknown rule %q (run 'idem rules' for the list)", report.Safe(o.ID))
	}
	return nil
}

func runRules(opts *rulesOptions) error {
	io := opts.Factory.IO
	rules := diagnose.Rules()
	if opts.ID != "" {
		rules = []*diagnose.Rule{diagnose.RuleByID(opts.ID)}
	}
	if opts.Format == "json" {
		var out []ruleJSON
		for _, r := range rules {
			out = append(out, ruleJSON{r.ID, r.Title, r.Severity.String(), r.Symptom, r.Hypothesis, r.Check, r.Action})
		}
		return report.WriteJSON(io.Out, out, io.IsStdoutTTY())
	}
	st := report.NewStyles(io.Out, io.ColorEnabled())
	if opts.ID == "" {
		width := 0
		for _, r := range rules {
			width = max(width, len(r.ID))
		}
		for _, r := range rules {
			fmt.Fprintf(io.Out, "%s %-9s %s\n", st.Label.Render(fmt.Sprintf("%-*s", width, r.ID)), r.Severity, r.Title) // pad before styling: escapes have no width
		}
		return nil
	}
	r := rules[0]
	fmt.Fprintf(io.Out, "%s  %s (usually %s)\n\n", st.Label.Render(r.ID), r.Title, r.Severity)
	for _, col := range [][2]string{{"symptom", r.Symptom}, {"hypothesis", r.Hypothesis}, {"check", r.Check}, {"action", r.Action}} {
		fmt.Fprintf(io.Out, "%-11s %s\n", col[0], col[1])
	}
	return nil
}
