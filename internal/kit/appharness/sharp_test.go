package appharness

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/internal/kit/capture"
)

// TestChecksCatchWrongFacts tampers with what the harness recorded of a
// capture, one fact at a time, and requires the check to say so: the
// checks compare with the harness's record, not with what idem read.
func TestChecksCatchWrongFacts(t *testing.T) {
	tests := []struct {
		name   string
		lib    string
		tamper func(c *captureRecord)
		want   string // the fact that must fail
	}{
		{"another order id", "slog", func(c *captureRecord) { c.Done[0].OrderID = "ord_other" }, "slog/result-id"},
		{"another status", "slog", func(c *captureRecord) { c.Done[0].Status = 200 }, "slog/status"},
		{"a longer delay", "slog", func(c *captureRecord) { c.Sent[0].Delay *= 4 }, "slog/duration"},
		// slog's start is a known gap: the check is shown on a library idem reads right.
		{"sent later", "pino-http-header", func(c *captureRecord) {
			c.Sent[0].Start, c.Sent[0].End = c.Sent[0].Start.Add(time.Second), c.Sent[0].End.Add(time.Second)
		}, "pino-http-header/start"},
		{"another key", "slog", func(c *captureRecord) { c.Sent[0].Key = "key-other" }, "slog/key"},
		{"a replay that made an order", "slog", func(c *captureRecord) { c.Done[2].Created = true }, "slog/effect"},
		{"another format", "slog", func(c *captureRecord) { c.Format = "zap" }, "slog/format"},
		{"one step less", "slog", func(c *captureRecord) { c.Sent = c.Sent[1:] }, "slog/deliveries"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := loadCapture(t, filepath.Join(fixturesDir, tt.lib))
			tt.tamper(c)
			errs := capture.Failures(t, func(tb testing.TB) { checkHTTP(tb, c) })
			for _, e := range errs {
				if strings.HasPrefix(e, tt.want+":") {
					return
				}
			}
			t.Errorf("no %s failure; the check reported %q", tt.want, errs)
		})
	}
}

// TestTemporalChecksCatchWrongFacts does the same for the Temporal capture.
func TestTemporalChecksCatchWrongFacts(t *testing.T) {
	tests := []struct {
		name   string
		tamper func(ats []Attempt)
		want   string
	}{
		{"another charge id", func(ats []Attempt) { ats[1].ResultID = "ch_other" }, "temporal/intent-effect"},
		{"another run", func(ats []Attempt) { ats[1].RunID = "other-run" }, "temporal/ids"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := loadTemporal(t)
			tt.tamper(c.Attempts)
			errs := capture.Failures(t, func(tb testing.TB) { checkTemporal(tb, c) })
			for _, e := range errs {
				if strings.HasPrefix(e, tt.want+":") {
					return
				}
			}
			t.Errorf("no %s failure; the check reported %q", tt.want, errs)
		})
	}
}
