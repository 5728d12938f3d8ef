package spanharness

import (
	"testing"

	"github.com/idem-cli/idem/internal/kit/capture"
)

// knownGaps are the facts idem gets wrong today on these captures, keyed
// library/read/fact, each with why. The assertions they name log instead
// of failing; remove an entry once the reading code is fixed (the test
// fails while it stays).
var knownGaps = capture.Gaps{
	"node-http/*/server-status":                  gapNodeClose,
	"node-http/*/server-duration":                gapNodeClose,
	"node-http/*/delivery-effect":                gapNodeClose,
	"node-http/*/intent-effect":                  gapNodeClose,
	"node-http/*/replay-divergence/unexpected":   gapNodeClose,
	"node-http/*/retry-new-key/new key/severity": gapNodeClose, // one order seen, so two effects are not shown
}

// gapNodeClose: the spans of Node's lost request say what did not happen.
const gapNodeClose = capture.Timing + "when the client's abort reaches the server before the handler answers, Node's http instrumentation ends the server's span there, with the " +
	"response's default status 200 and before the handler has answered or made its order (an event added later is dropped); " +
	"idem takes that 200 for the server's answer, so the lost attempt shows no order and its replay (201) looks divergent"

func TestKnownGapsAreWellFormed(t *testing.T) { knownGaps.Lint(t) }
