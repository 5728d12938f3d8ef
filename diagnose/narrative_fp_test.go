package diagnose_test

import (
	"strings"
	"testing"

	"github.com/idem-cli/idem/model"
)

// TestNewKeyNarrativeNamesTheFingerprintItMatched: the rule matched the
// intents on their payload's fingerprint, so the narrative names it, even
// where the first intent's first delivery (a 502 that never reached the
// server) carries none.
func TestNewKeyNarrativeNamesTheFingerprintItMatched(t *testing.T) {
	c := ruleCase{name: "a 502 first, then the timed-out order and its retry under a new key", obs: append([]ob{
		proxy("r0").key("k-1").post().from("10.0.0.7").at(-5).took(0.1).status(502).outcome(model.OutcomeUpstreamReset),
	}, newKeyRetry(60, "10.0.0.7", "sha256:aaaa")...)}
	found := false
	for _, f := range c.diagnose().Findings {
		if f.Rule.ID != "retry-new-key" {
			continue
		}
		found = true
		if !strings.Contains(f.Narrative, "(fingerprint sha256:aaaa)") {
			t.Errorf("the narrative does not name the fingerprint it matched on: %s", f.Narrative)
		}
	}
	if !found {
		t.Fatal("retry-new-key did not fire")
	}
}
