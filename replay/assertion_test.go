package replay

import (
	"bytes"
	"encoding/json"
	"testing"
)

// The idem.replay/v1 shape of an assertion predates its Status: "pass"
// always, and a flag for each status that is neither pass nor fail.
func TestAssertionJSONShape(t *testing.T) {
	for _, tt := range []struct {
		status status
		word   string
		json   string
	}{
		{Pass, "PASS", `{"probe":"mismatch","name":"n","pass":true,"expected":"<e & f>","actual":"a"}`},
		{Fail, "FAIL", `{"probe":"mismatch","name":"n","pass":false,"expected":"<e & f>","actual":"a"}`},
		{Skip, "SKIP", `{"probe":"mismatch","name":"n","pass":false,"skipped":true,"expected":"<e & f>","actual":"a"}`},
		{Info, "INFO", `{"probe":"mismatch","name":"n","pass":false,"info":true,"expected":"<e & f>","actual":"a"}`},
		{Inconclusive, "INCONCLUSIVE", `{"probe":"mismatch","name":"n","pass":false,"inconclusive":true,"expected":"<e & f>","actual":"a"}`},
	} {
		t.Run(tt.word, func(t *testing.T) {
			a := Assertion{Probe: "mismatch", Name: "n", Status: tt.status, Expected: "<e & f>", Actual: "a"}
			if got := a.outcome(); got != tt.word {
				t.Errorf("Outcome() = %q, want %q", got, tt.word)
			}
			// The report's encoder does not escape HTML; the assertion
			// must not escape it either.
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(a); err != nil {
				t.Fatal(err)
			}
			if got := string(bytes.TrimSuffix(b.Bytes(), []byte("\n"))); got != tt.json {
				t.Errorf("encoded\n got %s\nwant %s", got, tt.json)
			}
			var back Assertion
			if err := json.Unmarshal(b.Bytes(), &back); err != nil || back != a {
				t.Errorf("decoded %+v (%v), want %+v", back, err, a)
			}
		})
	}
	// Without a probe, the field is left out, as before.
	b, err := json.Marshal(Assertion{Name: "status", Status: Pass, Expected: "201", Actual: "201"})
	if want := `{"name":"status","pass":true,"expected":"201","actual":"201"}`; err != nil || string(b) != want {
		t.Errorf("got %s (%v), want %s", b, err, want)
	}
}
