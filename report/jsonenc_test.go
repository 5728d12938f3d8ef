package report

import (
	"bytes"
	"encoding/json"
	"testing"
)

// stdJSON is encoding/json's encoding made terminal-safe, which the
// hand-written encoder must match byte for byte.
func stdJSON(t testing.TB, v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return jsonSafe(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

func TestFindingEncoderMatchesJSON(t *testing.T) {
	hostile := "a\"b\\c\x00\x1f\b\f\n\r\t<>&\u2028\u2029\xff\xfe é 🎉 \x1b[31m \x7f \u009b \u202e \u2066 \u200f"
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
	for _, s := range []string{"", "plain", "\"\\", "\x00\x7f\x80", "\u009b\u202e\u2069", "\u2028\u2029", "\xed\xa0\x80", "é\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := appendJSONString(nil, s), stdJSON(t, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
}

func TestJSONIsTerminalSafe(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain é 🎉", `"plain é 🎉"`},
		{"del \x7f", `"del \u007f"`},
		{"csi \u009b31m", `"csi \u009b31m"`},
		{"bidi \u202eevil\u202c", `"bidi \u202eevil\u202c"`},
		{"isolates \u2066\u2069 marks \u200e\u200f", `"isolates \u2066\u2069 marks \u200e\u200f"`},
		{"kept \u00a0 \u2010", "\"kept \u00a0 \u2010\""}, // printable: kept as they are
	} {
		if got := string(appendJSONString(nil, tc.in)); got != tc.want {
			t.Errorf("appendJSONString(%q) = %s, want %s", tc.in, got, tc.want)
		}
		var back string
		if err := json.Unmarshal([]byte(tc.want), &back); err != nil || back != tc.in {
			t.Errorf("%s decodes to %q (%v), want %q", tc.want, back, err, tc.in)
		}
		var b bytes.Buffer
		if err := WriteJSON(&b, map[string]string{"v": tc.in}, true); err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b.Bytes(), []byte(tc.want)) {
			t.Errorf("WriteJSON(%q) = %s, want it to hold %s", tc.in, b.Bytes(), tc.want)
		}
	}
}
