package cmd

import (
	"strings"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/formats"
	"github.com/spf13/cobra"
)

// registerCompletions teaches shell completion the values idem's flags and
// arguments take, so `idem diagnose --rule <TAB>` offers rule IDs.
func registerCompletions(root *cobra.Command) {
	ruleIDs := func() []string {
		var ids []string
		for _, r := range diagnose.Rules() {
			ids = append(ids, r.ID+"\t"+r.Title)
		}
		return ids
	}
	tiers := []string{"client", "proxy", "server", "worker", "provider"}
	outputs := map[string][]string{
		"diagnose": {"text", "markdown", "json", "html"},
		"trace":    {"text", "json"},
		"rules":    {"text", "json"},
		"replay":   {"text", "markdown", "json"},
	}
	for _, c := range root.Commands() {
		name := c.Name()
		if f, ok := outputs[name]; ok && c.Flags().Lookup("format") != nil {
			_ = c.RegisterFlagCompletionFunc("format", fixed(f))
		}
		if c.Flags().Lookup("rule") != nil {
			_ = c.RegisterFlagCompletionFunc("rule", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
				return ruleIDs(), cobra.ShellCompDirectiveNoFileComp
			})
		}
		for _, flag := range []string{"tier", "input-tier"} {
			// Elsewhere than diagnose, --tier is FILE=TIER: the shell's
			// own completion of file names is the right start.
			if c.Flags().Lookup(flag) != nil && (flag != "tier" || name == "diagnose") {
				_ = c.RegisterFlagCompletionFunc(flag, fixed(tiers))
			}
		}
		if c.Flags().Lookup("input-format") != nil {
			_ = c.RegisterFlagCompletionFunc("input-format", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
				return formats.Names(), cobra.ShellCompDirectiveNoFileComp
			})
		}
		if c.Flags().Lookup("fail-on") != nil {
			_ = c.RegisterFlagCompletionFunc("fail-on", fixed([]string{"info", "warning", "critical"}))
		}
		if name == "rules" {
			c.ValidArgsFunction = func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
				if len(args) > 0 {
					return nil, cobra.ShellCompDirectiveNoFileComp
				}
				return ruleIDs(), cobra.ShellCompDirectiveNoFileComp
			}
		}
	}
	_ = root.RegisterFlagCompletionFunc("color", fixed([]string{"auto", "always", "never"}))

	// cobra's help command completes runnable commands only; add the topics.
	root.InitDefaultHelpCmd()
	for _, c := range root.Commands() {
		if c.Name() != "help" {
			continue
		}
		c.ValidArgsFunction = func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []string
			for _, sub := range root.Commands() {
				if sub.Hidden || sub.Name() == "help" || !strings.HasPrefix(sub.Name(), toComplete) {
					continue
				}
				out = append(out, sub.Name()+"\t"+sub.Short)
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		}
	}
}

func fixed(values []string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}
