package formats

import (
	"testing"

	"github.com/idem-cli/idem/model"
)

// TestPreviousKeyByVocabulary reads the key a line names as the one its
// send retries, by any of its names at any depth, and nothing where no
// such name is written.
func TestPreviousKeyByVocabulary(t *testing.T) {
	for _, tc := range []struct{ name, line, key, prev string }{
		{"slog, top level", `{"time":"2026-12-08T01:00:00Z","level":"INFO","msg":"charge","request_id":"r-1","idempotency_key":"k-2","previous_key":"k-1"}`, "k-2", "k-1"},
		{"camel case under meta", `{"message":"retrying","meta":{"idempotencyKey":"k-4","previousKey":"k-3"}}`, "k-4", "k-3"},
		{"retry_of", `{"msg":"pay","idempotency_key":"k-6","retry_of":"k-5"}`, "k-6", "k-5"},
		{"original_idempotency_key, quoted form", `{"msg":"pay","idempotency_key":"k-8","original_idempotency_key":"\"k-7\""}`, "k-8", "k-7"},
		{"logfmt", `time=2026-12-08T01:00:00Z level=info msg=pay idempotency_key=k-10 previous_key=k-9`, "k-10", "k-9"},
		{"no such name", `{"msg":"pay","idempotency_key":"k-11","previous_order":"ord_1"}`, "k-11", ""},
	} {
		p := NewParser(nil, nil)
		var res Result
		p.Into(&res)
		p.Line([]byte(tc.line), model.Source{File: "v", Line: 1})
		if len(res.Obs) != 1 {
			t.Errorf("%s: %d observations, want 1", tc.name, len(res.Obs))
			continue
		}
		if o := res.Obs[0]; o.Key != tc.key || o.PreviousKey != tc.prev {
			t.Errorf("%s: key %q previous %q, want %q %q", tc.name, o.Key, o.PreviousKey, tc.key, tc.prev)
		}
	}
}
