package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/model"
)

// TestSummaryLineFitsTheTerminal: on a terminal the summary line is
// wrapped at its width, each line within it; piped (Compact), it stays
// one line for the scripts that read it.
func TestSummaryLineFitsTheTerminal(t *testing.T) {
	sum := diagnose.Summary{Inputs: 3, Lines: 148, Deliveries: 2, Intents: 2, WithFindings: 2, Tiers: []string{"client", "proxy", "server"}}
	for _, width := range []int{40, 60, 80} {
		var b bytes.Buffer
		r := &Report{Summary: sum}
		r.Text(&b, NewStyles(&b, false), width)
		lines := strings.Split(b.String(), "\n")
		if !strings.HasPrefix(lines[0], "idem diagnose: 3 inputs") {
			t.Fatalf("width %d: the report does not start with its summary:\n%s", width, b.String())
		}
		for i, l := range lines[:3] {
			if textWidth(l) > width {
				t.Errorf("width %d: line %d is %d wide: %q", width, i+1, textWidth(l), l)
			}
		}
		b.Reset()
		r.Compact = true
		r.Text(&b, NewStyles(&b, false), width)
		first, _, _ := strings.Cut(b.String(), "\n")
		if want := "idem diagnose: " + r.summaryLine(); first != want {
			t.Errorf("width %d, piped: first line %q, want %q", width, first, want)
		}
	}
}

// TestOutcomeCellSaysAnErrorWasAnswered: "ok" in the outcome column
// means only that an answer came; next to a 504 it reads as success, so
// an error status's answer is "answered".
func TestOutcomeCellSaysAnErrorWasAnswered(t *testing.T) {
	tests := []struct {
		outcome model.Outcome
		status  int
		want    string
	}{
		{model.OutcomeOK, 201, "ok"},
		{model.OutcomeOK, 304, "ok"},
		{model.OutcomeOK, 504, "answered"},
		{model.OutcomeOK, 409, "answered"},
		{model.OutcomeOK, 0, "ok"},
		{model.OutcomeUpstreamTimeout, 504, "upstream_timeout"},
		{model.OutcomeTimeout, 0, "timeout"},
		{model.OutcomeUnknown, 500, "-"},
	}
	for _, tc := range tests {
		if got := cellOutcome(&model.Observation{Outcome: tc.outcome, Status: tc.status}); got != tc.want {
			t.Errorf("%v %d: %q, want %q", tc.outcome, tc.status, got, tc.want)
		}
	}
}
