package report

import (
	"bytes"
	"encoding/json"
	"testing"
)

func stdJSON(t testing.TB, v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func TestFindingEncoderMatchesJSON(t *testing.T) {
	hostile := "a\"b\\c\x00\x1f\b\f\n\r\t<>&\u2028\u2029\xff\xfe é 🎉 \x1b[31m"
	for _, fj := range []FindingJSON{
		{},
		{Rule: "response-lost", Severity: "warning", Intent: "k", Keys: []string{"k"}, Title: "T", Symptom: "S",
			Hypothesis: "H", Check: "C", Action: "A", Narrative: "N", Evidence: []EvidenceJSON{}},
		{Rule: hostile, Severity: hostile, Intent: hostile, Keys: []string{hostile, "", "x"}, Title: hostile, Symptom: hostile,
			Hypothesis: hostile, Check: hostile, Action: hostile, Narrative: hostile, Input: hostile,
			Counts: map[string]int{"z": 3, hostile: -1, "a": 0},
			Evidence: []EvidenceJSON{
				{Source: hostile, Tier: "proxy", RequestID: hostile, Time: "2026-11-30T00:00:00Z", Status: 499, Outcome: hostile},
				{Source: "s", Decision: hostile, ResultID: "r", Effect: true, Detail: hostile, Status: -1},
			}},
	} {
		if got, want := appendFinding(nil, &fj), stdJSON(t, fj); !bytes.Equal(got, want) {
			t.Errorf("hand-written\n%s\nencoding/json\n%s", got, want)
		}
	}
}

// FuzzAppendJSONString checks the string quoting against encoding/json's.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", "\"\\", "\x00\x7f\x80", "\u2028\u2029", "\xed\xa0\x80", "é\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := appendJSONString(nil, s), stdJSON(t, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
}
