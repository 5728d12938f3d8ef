package diagnose_test

import (
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/model"
)

// TestAnIntentOutsideTheWindowIsNeverHealthy: an order whose response was
// lost at 13:30 (a finding), a replayed order at 13:31 (built, healthy),
// and a plain answered order at 14:30 (only counted). A window from 14:00
// shows none of the first two and calls neither healthy; the plain order
// only counted cannot be placed against a window that cuts the lines'
// span, so it is not called healthy either. The counts always add up.
func TestAnIntentOutsideTheWindowIsNeverHealthy(t *testing.T) {
	c := ruleCase{obs: []ob{
		proxy("r1").key("k-1").post().at(0).took(30).status(504).outcome(model.OutcomeUpstreamTimeout),
		server("r1").key("k-1").post().at(0.1).took(1).status(201).result("ord_1"),
		server("r2").key("k-2").post().at(60).took(0.1).status(201).result("ord_2"),
		server("r4").key("k-3").post().at(3600).took(0.1).status(201),
	}}
	full := c.diagnose()
	if len(full.Findings) == 0 {
		t.Fatal("the lost response made no finding")
	}
	adds := func(name string, s diagnose.Summary) {
		t.Helper()
		if s.Intents != s.WithFindings+s.Healthy+s.FilteredOut+s.OutOfWindow+s.Unplaced {
			t.Errorf("%s: %d intents, but %d with findings + %d healthy + %d filtered out + %d out of window + %d unplaced",
				name, s.Intents, s.WithFindings, s.Healthy, s.FilteredOut, s.OutOfWindow, s.Unplaced)
		}
	}
	adds("no filter", full.Summary)
	for _, tc := range []struct {
		name                      string
		fl                        diagnose.Filter
		healthy, outside, unplace int
	}{
		// From 14:00: k-1's finding is set aside (filtered out), k-2 is
		// out of the window, k-3 cannot be placed.
		{"a window from 14:00", diagnose.Filter{Since: t0.Add(30 * time.Minute)}, 0, 1, 1},
		{"a window until 13:30:30", diagnose.Filter{Until: t0.Add(30 * time.Second)}, 0, 1, 1},
		{"a window holding every line", diagnose.Filter{Since: t0.Add(-time.Hour), Until: t0.Add(2 * time.Hour)}, full.Summary.Healthy, 0, 0},
	} {
		s := full.Filter(tc.fl).Summary
		adds(tc.name, s)
		if s.Healthy != tc.healthy || s.OutOfWindow != tc.outside || s.Unplaced != tc.unplace {
			t.Errorf("%s: %d healthy, %d out of window, %d unplaced; want %d, %d, %d", tc.name, s.Healthy, s.OutOfWindow, s.Unplaced, tc.healthy, tc.outside, tc.unplace)
		}
	}
}

// TestDoubleChargeWithoutAFingerprintIsInferred: the scenario's retry
// under a new key rests on the 504, the caller and the two result ids,
// and says it lacks the payloads.
func TestDoubleChargeWithoutAFingerprintIsInferred(t *testing.T) {
	res := diagnose.Run(loadScenario(t, "retry-new-key-unlogged-payload"), diagnose.DefaultOptions())
	for _, f := range res.Findings {
		if f.Rule.ID != "retry-new-key" {
			continue
		}
		c := f.Confidence
		if c.Level != diagnose.Inferred || !strings.Contains(c.Summary(), "same client 203.0.113.50") ||
			!strings.Contains(c.Summary(), "2 result ids first seen") || !strings.Contains(c.Summary(), "lacks the payloads") {
			t.Errorf("confidence %q", c.Summary())
		}
		return
	}
	t.Fatal("no retry-new-key finding")
}

// TestWindowOnARealCapture cuts the real nginx capture's span in half:
// whatever falls out of the window is neither shown nor healthy, and the
// counts add up to the intents read.
func TestWindowOnARealCapture(t *testing.T) {
	full, set := diagnoseFiles(t, "../fixtures/real/nginx/access.json.log", "../fixtures/real/nginx/app.jsonl")
	first, last := set.Span()
	mid := first.Add(last.Sub(first) / 2)
	for _, fl := range []diagnose.Filter{{Since: mid}, {Until: mid}} {
		s := full.Filter(fl).Summary
		if s.Intents != s.WithFindings+s.Healthy+s.FilteredOut+s.OutOfWindow+s.Unplaced {
			t.Errorf("%+v: the counts do not add up: %+v", fl, s)
		}
		if s.OutOfWindow == 0 || s.Healthy >= full.Summary.Healthy {
			t.Errorf("%+v: %d out of window, %d healthy of %d: half the capture is outside", fl, s.OutOfWindow, s.Healthy, full.Summary.Healthy)
		}
	}
}
