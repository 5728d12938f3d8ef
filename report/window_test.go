package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/report"
)

// TestSummarySaysWhatTheWindowLeftOut: the intents outside --since and
// --until, and those the window cannot place, are counted on the text
// summary's line, so that with findings, without, filtered out and out
// of the window add up to the intents read.
func TestSummarySaysWhatTheWindowLeftOut(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    diagnose.Summary
		want string
	}{
		{"out of the window", diagnose.Summary{Intents: 5, WithFindings: 1, Healthy: 1, OutOfWindow: 3}, "5 intents (1 with findings, 1 without, 3 out of the window)"},
		{"unplaced too", diagnose.Summary{Intents: 4, Healthy: 1, OutOfWindow: 1, Unplaced: 2}, "4 intents (0 with findings, 1 without, 1 out of the window, 2 not placed in the window)"},
		{"no window", diagnose.Summary{Intents: 2, Healthy: 2}, "2 intents (0 with findings, 2 without)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var text bytes.Buffer
			r := &report.Report{Summary: tc.s}
			r.Text(&text, report.NewStyles(&text, false), 200)
			if first, _, _ := strings.Cut(text.String(), "\n"); !strings.Contains(first, tc.want) {
				t.Errorf("summary %q does not say %q", first, tc.want)
			}
		})
	}
}
