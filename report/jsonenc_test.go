package report

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/load"
	"github.com/idem-cli/idem/model"
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

// The compact report writes each finding straight from the diagnosis: the
// same bytes as encoding what findingJSON builds, on every scenario, the
// hostile fixtures and findings made to hold every field.
func TestFindingOfMatchesFindingJSON(t *testing.T) {
	var findings []*diagnose.Finding
	for _, glob := range []string{"../fixtures/scenarios/*/*", "../fixtures/hostile/*"} {
		paths, _ := filepath.Glob(glob)
		for _, p := range paths {
			if strings.HasSuffix(p, ".md") {
				continue
			}
			set, err := load.Files(context.Background(), []string{p}, load.Options{Read: ingest.Options{}, Build: diagnose.DefaultOptions().Build()})
			if err != nil {
				continue // some hostile inputs are not logs at all
			}
			findings = append(findings, diagnose.Run(set, diagnose.DefaultOptions()).Findings...)
		}
	}
	if len(findings) < 20 {
		t.Fatalf("only %d findings in the fixtures", len(findings))
	}
	hostile := "a\"b\\c\x00\x1f\n\u2028\xff \x1b[31m \u202e Authorization: Bearer abcdefghij 4242424242424242"
	rule := &diagnose.Rule{ID: "r", Title: hostile, Symptom: "S", Hypothesis: "H", Check: "C", Action: "A"}
	obs := []*model.Observation{
		{Source: model.Source{File: hostile, Line: 7, Entry: 3}, Tier: model.TierClient, RequestID: hostile, Decision: hostile,
			ResultID: "sk_live_abcdefghijkl", Detail: hostile, Effect: true, Status: -1, Outcome: model.OutcomeTimeout},
		{Source: model.Source{File: "a.log", Line: 1}, Time: time.Date(10000, 1, 2, 3, 4, 5, 6e6, time.UTC)},
		{Source: model.Source{File: "postgres://u:pw@db/x", Line: 4242424242424242}, Time: time.Date(-1, 12, 31, 23, 59, 59, 999999999, time.FixedZone("x", 3600))},
		{Time: time.Date(2026, 11, 30, 9, 14, 2, 118999999, time.FixedZone("y", -7*3600))},
	}
	findings = append(findings,
		&diagnose.Finding{Rule: rule, Severity: diagnose.Critical, Keys: []string{hostile, ""}, Narrative: hostile, Input: hostile,
			Counts: map[string]int{"z": 3, hostile: -1, "a": 0}, Evidence: obs},
		&diagnose.Finding{Rule: rule, Intents: []*model.Intent{{ID: "token=abcdef"}}},
		&diagnose.Finding{Rule: rule, Retries: []diagnose.Retry{
			{Delivery: &model.Delivery{RequestID: hostile}, Layer: diagnose.LayerClientLibrary, Why: hostile, After: 1234567 * time.Microsecond, Duplicate: true},
			{Delivery: &model.Delivery{RequestID: "r-2"}, Layer: diagnose.LayerUnknown, After: 1<<62 + 7},
			{Delivery: &model.Delivery{}, Layer: diagnose.LayerProxy, After: time.Microsecond},
		}},
	)
	w := newFindingWriter(findings)
	for _, f := range findings {
		want := stdJSON(t, findingJSON(f))
		if got := appendFindingWith(nil, f, nil); !bytes.Equal(got, want) {
			t.Errorf("appendFindingWith\n%s\nencoding/json of findingJSON\n%s", got, want)
		}
		if got := w.append(nil, f); !bytes.Equal(got, want) {
			t.Errorf("findingWriter\n%s\nencoding/json of findingJSON\n%s", got, want)
		}
	}
}

// FuzzAppendTime checks the hand-written time against time.Format.
func FuzzAppendTime(f *testing.F) {
	for _, sec := range []int64{0, 1, -1, 1764494042, -62135596800, 253402300799} {
		f.Add(sec, int64(999999999), 0)
	}
	f.Add(int64(-62135596801), int64(0), 3600)
	f.Add(int64(253402300800), int64(5e8), -60)
	f.Fuzz(func(t *testing.T, sec, nsec int64, offset int) {
		tm := time.Unix(sec, nsec).In(time.FixedZone("z", offset%(24*3600)))
		want := "-"
		if !tm.IsZero() {
			want = tm.UTC().Format(timeLayout)
		}
		if got := formatTime(tm); got != want {
			t.Fatalf("FormatTime(%v) = %s, want %s", tm, got, want)
		}
	})
}

// FuzzPlainWord checks the eight-byte test against reading byte by byte.
func FuzzPlainWord(f *testing.F) {
	for _, s := range []string{"abcdefgh", "abcdefg\"", "\\bcdefgh", "abc\x1fefgh", "abcdefg\x7f", "\xffbcdefgh", " ~~~~~~~", "\x00\x00\x00\x00\x00\x00\x00\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for len(s) < 8 {
			s += "a"
		}
		want := true
		for i := 0; i < 8; i++ {
			if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x7f {
				want = false
			}
		}
		if got := plainWord(s[:8]); got != want {
			t.Fatalf("plainWord(%q) = %v, want %v", s[:8], got, want)
		}
	})
}
