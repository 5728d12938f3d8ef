package formats

import (
	"testing"

	"github.com/idem-cli/idem/trace"
)

func TestHAROutcomes(t *testing.T) {
	for _, tt := range []struct {
		status int
		err    string
		want   trace.Outcome
	}{
		{0, "net::ERR_TIMED_OUT", trace.OutcomeTimeout},
		{0, "net::ERR_CONNECTION_TIMED_OUT", trace.OutcomeTimeout},
		{0, "net::ERR_CONNECTION_RESET", trace.OutcomeReset},
		{0, "net::ERR_EMPTY_RESPONSE", trace.OutcomeReset},
		{0, "net::ERR_CONNECTION_REFUSED", trace.OutcomeNotDelivered},
		{200, "net::ERR_ABORTED", trace.OutcomeAborted},
		{0, "net::ERR_FAILED", trace.OutcomeError},
		{0, "", trace.OutcomeAborted}, // Firefox: status 0, no _error
		{201, "", trace.OutcomeOK},
	} {
		if got := harOutcome(tt.status, tt.err); got != tt.want {
			t.Errorf("harOutcome(%d, %q) = %s, want %s", tt.status, tt.err, got, tt.want)
		}
	}
}
