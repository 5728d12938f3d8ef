package grammarharness

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/formats"
	"github.com/idem-cli/idem/internal/kit/capture"
	"github.com/idem-cli/idem/internal/kit/harness"
	"github.com/idem-cli/idem/model"
)

// knownGaps are the facts idem reads wrong from these captures today,
// by check id (capture/step/fact), each with why.
var knownGaps = capture.Gaps{}

func TestKnownGapsAreWellFormed(t *testing.T) { knownGaps.Lint(t) }

// verifyRun checks each log of run (saved in dir), alone and joined with
// the backend's log, against what the harness sent.
func verifyRun(t *testing.T, dir string, run run) {
	t.Helper()
	for _, l := range run.Logs {
		t.Run(l.Capture, func(t *testing.T) { verifyLog(t, dir, run, l) })
	}
}

func verifyLog(t *testing.T, dir string, run run, l log) {
	file := filepath.Join(dir, l.File)
	read := func(paths ...string) *capture.Reading {
		t.Helper()
		var cfg *formats.Config
		if l.Config != "" {
			c, err := loadConfig(filepath.Join(dir, l.Config))
			if err != nil {
				t.Fatal(err)
			}
			cfg = c
		}
		r, err := capture.ReadWith(context.Background(), cfg, paths...)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := read(file)
	lines := r.Lines(file)
	c := knownGaps.Facts(t, l.Capture)
	in := r.Input(file)
	if in == nil {
		t.Fatalf("no summary for %s", file)
	}
	c.Check("input/format", in.Format == l.Format, "read as %q, want %q", in.Format, l.Format)
	for _, sk := range in.SkipSamples {
		c.Check("input/skipped", false, "%s: %s", sk.Source, sk.Reason)
	}
	c.Check("input/observations", len(r.From(file)) == len(run.Sent), "%d observations from %d requests", len(r.From(file)), len(run.Sent))
	// Where the log names no request, its twin's line of the same number
	// does (the proxy writes both in one order).
	named := lines
	if l.Twin != "" {
		twin, err := capture.ReadLines(filepath.Join(dir, l.Twin))
		if err != nil {
			t.Fatal(err)
		}
		if len(twin) != len(lines) {
			t.Fatalf("%s has %d lines, its twin %s %d: the capture is broken, not idem", l.File, len(lines), l.Twin, len(twin))
		}
		named = twin
	}
	for _, s := range run.Sent {
		line := capture.LineOf(named, s.RequestID)
		if line == 0 {
			t.Fatalf("%s logged no line with request id %s (step %s): the capture is broken, not idem", l.File, s.RequestID, s.Step)
		}
		obs := r.At(file, line)
		if len(obs) != 1 {
			c.Check(s.Step+"/read", false, "%s:%d gave %d observations, want 1: %s", l.File, line, len(obs), lines[line-1])
			continue
		}
		verifyObservation(c, l, s, obs[0], lines[line-1])
	}
	keys, byKey := capture.ByKey(run.Sent, func(s capture.Sent) string { return s.Key })
	if l.Twin != "" {
		return // no id and no key: no delivery, intent or join is proved by its lines alone
	}
	c.Check("alone/deliveries", r.Set.DeliveryCount() == len(run.Sent), "%d deliveries from %d requests", r.Set.DeliveryCount(), len(run.Sent))
	if run.BackendLog == "" {
		for _, k := range keys {
			if k != "" {
				c.Intent(byKey[k][0].Step+"/intent", r.Set, k, capture.RequestIDs(byKey[k]))
			}
		}
		return
	}
	joined := read(file, filepath.Join(dir, run.BackendLog))
	c.Check("joined/deliveries", joined.Set.DeliveryCount() == len(run.Sent), "%d deliveries from %d requests, with the backend's log",
		joined.Set.DeliveryCount(), len(run.Sent))
	for _, k := range keys {
		if k == "" {
			continue
		}
		in := c.Intent(byKey[k][0].Step+"/intent", joined.Set, k, capture.RequestIDs(byKey[k]))
		if in == nil {
			continue
		}
		for _, s := range byKey[k] {
			for _, d := range in.Deliveries {
				if d.RequestID == s.RequestID {
					c.Check(s.Step+"/joined_server", (d.At(model.TierServer) != nil) == s.Reached, "reached the backend: %v; tiers %s",
						s.Reached, capture.Tiers(d))
				}
			}
		}
	}
}

// verifyObservation checks one request's line: the ids, the request, the
// status the client got, when it started and how long it took.
func verifyObservation(c *capture.Facts, l log, s capture.Sent, o *model.Observation, raw string) {
	at := func(fact string) string { return s.Step + "/" + fact }
	c.Check(at("format"), o.Format == l.Format, "format %q, want %q: %s", o.Format, l.Format, raw)
	c.Check(at("tier"), o.Tier == model.TierProxy, "tier %s, want proxy: %s", o.Tier, raw)
	wantID, wantKey := s.RequestID, s.Key
	if l.Twin != "" {
		wantID, wantKey = "", "" // the format logs neither
	}
	c.Check(at("request_id"), o.RequestID == wantID, "request id %q, want %q: %s", o.RequestID, wantID, raw)
	c.Check(at("key"), o.Key == wantKey, "key %q, want %q: %s", o.Key, wantKey, raw)
	c.Check(at("method"), o.Method == s.HTTPMethod(), "method %q, want %s: %s", o.Method, s.HTTPMethod(), raw)
	c.Check(at("route"), o.Route == s.Route(), "route %q, want %q: %s", o.Route, s.Route(), raw)
	slack := 250 * time.Millisecond
	if l.SecondsOnly {
		slack = 1100 * time.Millisecond
	}
	switch {
	case s.Ended == capture.EndedResponse:
		// What the proxy sent is what the client got.
		c.Check(at("status"), o.Status == s.Status, "status %d, the client got %d: %s", o.Status, s.Status, raw)
		if s.Status < 500 {
			c.Check(at("outcome"), o.Outcome == model.OutcomeOK, "outcome %s, the client got %d: %s", o.Outcome, s.Status, raw)
		}
		end := o.Time.Add(o.Duration)
		c.Check(at("duration"), o.Duration >= 0 && o.Duration <= s.Elapsed()+250*time.Millisecond && end.Before(s.End.Add(slack)),
			"duration %s ending at %s, the client waited %s until %s: %s", o.Duration, end.UTC().Format(time.RFC3339Nano), s.Elapsed(),
			s.End.UTC().Format(time.RFC3339Nano), raw)
	case harness.EndOf(s) == harness.EndClientTimeout && !l.NoAbort:
		c.Check(at("outcome"), o.Outcome == model.OutcomeClientClosed, "outcome %s, but the client gave up after %s: %s", o.Outcome, s.Elapsed(), raw)
	}
	if harness.EndOf(s) == harness.EndRefused && l.Undelivered {
		c.Check(at("undelivered"), o.Outcome == model.OutcomeNotDelivered, "outcome %s, but no server had the request (it reached the backend: %v): %s",
			o.Outcome, s.Reached, raw)
	}
	// The proxy's start lies in the client's interval: after the client
	// sent (less the log's precision), before it got its answer or gave
	// up; a proxy may start late (a cold JVM), never early.
	c.Check(at("time"), !o.Time.Before(s.Start.Add(-slack)) && o.Time.Before(s.End.Add(slack)), "start %s, sent at %s, ended at %s: %s",
		o.Time.UTC().Format(time.RFC3339Nano), s.Start.UTC().Format(time.RFC3339Nano), s.End.UTC().Format(time.RFC3339Nano), raw)
	if strings.Contains(raw, s.Key) && s.Key != "" {
		c.Check(at("key_logged"), o.Key != "", "the line holds the key, idem read none: %s", raw)
	}
}
