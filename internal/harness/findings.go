package harness

import (
	"slices"
	"strings"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/model"
)

// Names reports whether f implicates every one of keys: among its keys,
// its intents' keys, or in its narrative.
func Names(f *diagnose.Finding, keys ...string) bool {
	for _, k := range keys {
		named := slices.Contains(f.Keys, k) || strings.Contains(f.Narrative, k) ||
			slices.ContainsFunc(f.Intents, func(in *model.Intent) bool { return in.Key == k })
		if !named {
			return false
		}
	}
	return true
}

// Findings lists fs a line each (rule, severity, narrative), for a test's
// failure message.
func Findings(fs []*diagnose.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("  " + f.Rule.ID + " (" + f.Severity.String() + "): " + f.Narrative + "\n")
	}
	return b.String()
}
