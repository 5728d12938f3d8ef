package formats

import "testing"

// TestTraceIDShapes: each way a tier writes a trace id comes out as the
// id the others write; an all-zero W3C id and a word are none.
func TestTraceIDShapes(t *testing.T) {
	for in, want := range map[string]string{
		"Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1": "1-5759e988-bd862e3fe1be46a994272793",
		"00-00000000000000000000000000000000-00f067aa0ba902b7-01":                    "",
		"5759e988bd862e3f":    "5759e988bd862e3f",
		"1234567890123456789": "1234567890123456789",
		"not a trace":         "",
	} {
		if got := traceID(in); got != want {
			t.Errorf("traceID(%q) = %q, want %q", in, got, want)
		}
	}
}
