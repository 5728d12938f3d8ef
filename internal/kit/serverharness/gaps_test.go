package serverharness

import (
	"testing"

	"github.com/idem-cli/idem/internal/kit/capture"
)

// knownGaps are the rules idem misses today on the real captures, keyed
// capture/rule/key-role (see expectations; path.Match patterns), each with
// why. The assertions they name log instead of failing; remove an entry
// once idem is fixed (the test fails while it stays).
var knownGaps = capture.Gaps{}

func TestKnownGapsAreWellFormed(t *testing.T) { knownGaps.Lint(t) }
