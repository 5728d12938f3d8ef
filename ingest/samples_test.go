package ingest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestFormatSamples reads fixtures/formats/<format>.* and checks every
// line is recognised as that format, with nothing skipped.
func TestFormatSamples(t *testing.T) {
	paths, _ := filepath.Glob("../fixtures/formats/*.*")
	n := 0
	for _, p := range paths {
		if strings.HasSuffix(p, ".md") {
			continue
		}
		n++
		want := strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
		inputs, err := Read(context.Background(), []string{p}, Options{}, &counter{})
		if err != nil {
			t.Fatal(err)
		}
		in := inputs[0]
		if in.Skipped != 0 || in.Observations == 0 {
			t.Errorf("%s: %d observations, %d skipped %v", p, in.Observations, in.Skipped, in.SkipSamples)
		}
		for f := range in.Formats {
			if f != want && !(want == "otlp" && f == "otel") {
				t.Errorf("%s: lines recognised as %s, want %s (%v)", p, f, want, in.Formats)
			}
		}
	}
	if n < 14 {
		t.Errorf("only %d format samples", n)
	}
}
