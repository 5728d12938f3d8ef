package spanharness

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/internal/kit/capture"
	"github.com/idem-cli/idem/model"
)

// profile is what the harness knows of how a library records spans.
type profile struct {
	// keyOnLoss says the client's span records the key of a request that
	// got no response. Node's http instrumentation captures the client's
	// request headers when the response arrives, so its span of a
	// request the client gave up on has none (the server's span has it,
	// and the trace joins them).
	keyOnLoss bool
}

var profiles = map[string]profile{
	"go-otelhttp": {keyOnLoss: true},
	"node-http":   {},
}

// Tolerances of the time checks: rounding covers Zipkin's and Jaeger's
// microseconds; slack the time between the client's clock reading and
// its span's start, on a loaded machine.
const (
	slack    = 150 * time.Millisecond
	rounding = time.Millisecond
)

// check reads each span file of a capture on its own, and beside the
// service's log where it kept one, and checks what idem makes of it.
func check(t *testing.T, c *captureRecord) {
	t.Helper()
	for _, format := range []string{"otlp-traces", "zipkin", "jaeger"} {
		path := c.path(format)
		if path == "" {
			continue
		}
		t.Run(format, func(t *testing.T) {
			checkRead(t, c, format, format, path)
			if log := filepath.Join(c.Dir, appLog); fileExists(log) {
				checkRead(t, c, format+"+app", format, path, log)
			}
		})
	}
}

// checkRead reads paths (spans of format, and perhaps a log beside them)
// and checks, for every step: its delivery holds the client's span and
// the service's, each with its method, route, key, status or loss and
// times; the effect the service recorded; the log's lines of the request
// where a log is read; then the intents the keys make, and the findings
// the traffic calls for.
func checkRead(t *testing.T, c *captureRecord, name, format string, paths ...string) {
	t.Helper()
	f := knownGaps.Facts(t, c.Library+"/"+name)
	r := capture.MustRead(t, paths...)
	for _, in := range r.Inputs {
		f.Check("skipped", in.Skipped == 0, "%s: %d lines skipped: %v", in.Path, in.Skipped, in.SkipSamples)
	}
	if in := r.Input(paths[0]); in != nil {
		f.Check("input-format", in.Format == format, "%s reads as %q (%v), want %q", paths[0], in.Format, in.Formats, format)
	}
	done := map[string]capture.Effect{}
	for _, d := range c.Done {
		done[d.Step] = d
	}
	keys, byKey := capture.ByKey(c.Sent, func(s capture.Sent) string { return s.Key })
	dels := r.Deliveries(keys)
	for _, s := range c.Sent {
		want := deliveryName(c.Sent, s)
		d := dels[want]
		where := fmt.Sprintf("step %s (%s)", s.Step, s.TraceParent)
		if !f.Check("delivery", d != nil, "no delivery %s; deliveries: %v; %s", want, capture.IDs(dels), where) {
			continue
		}
		where += ", delivery " + want + " [" + capture.Tiers(d) + "]"
		checkSpan(f, c.Library, d.At(model.TierClient), format, s, where, model.TierClient, done[s.Step])
		checkSpan(f, c.Library, d.At(model.TierServer), format, s, where, model.TierServer, done[s.Step])
		wantEffect := ""
		if done[s.Step].Created {
			wantEffect = done[s.Step].OrderID
		}
		f.Check("delivery-effect", capture.EffectIDs(uniqueEffects(d.Effects())) == wantEffect,
			"effects [%s], want [%s]; %s", capture.EffectIDs(d.Effects()), wantEffect, where)
		if len(paths) > 1 {
			// The log's line of the request joins its delivery.
			logged := slices.ContainsFunc(d.Observations, func(o *model.Observation) bool {
				return o.Source.File == paths[1] && o.ResultID == done[s.Step].OrderID
			})
			f.Check("log-join", logged, "the service's line of the request is not in its delivery; %s", where)
		}
	}
	for _, k := range keys {
		var want []string
		created := ""
		for _, s := range byKey[k] {
			want = append(want, deliveryName(c.Sent, s))
			if done[s.Step].Created {
				created = done[s.Step].OrderID
			}
		}
		if in := f.Intent("intent", r.Set, k, want); in != nil {
			f.Check("intent-effect", capture.EffectIDs(uniqueEffects(in.Effects())) == created,
				"key %s: effects [%s], want [%s]", k, capture.EffectIDs(in.Effects()), created)
		}
	}
	f.Check("deliveries", r.Set.DeliveryCount() == len(c.Sent), "%d deliveries, want %d (one per request sent): %v",
		r.Set.DeliveryCount(), len(c.Sent), capture.IDs(dels))
	must, clean := expectations(c)
	capture.CheckRules(f, expected(f, diagnose.Run(r.Set, diagnose.DefaultOptions()).Findings, must), must, clean, true)
}

// expected keeps the findings the traffic calls for; one it does not call
// for fails as check <rule>/unexpected, which a known gap may name, and
// is left out of what CheckRules is given.
func expected(f *capture.Facts, findings []*diagnose.Finding, must []capture.Expectation) []*diagnose.Finding {
	var out []*diagnose.Finding
	for _, fd := range findings {
		called := slices.ContainsFunc(must, func(e capture.Expectation) bool { return e.Rule == fd.Rule.ID && capture.Names(fd, e.Keys...) })
		if f.Check(fd.Rule.ID+"/unexpected", called, "%s fires where the traffic calls for no such rule: %s", fd.Rule.ID, fd.Narrative) {
			out = append(out, fd)
		}
	}
	return out
}

// checkSpan checks the span of tier in a step's delivery: its format,
// method, route and key; how it ended (the client's timeout, or the
// status each side saw); when it started and how long it took, against
// the client's clock.
func checkSpan(f *capture.Facts, lib string, o *model.Observation, format string, s capture.Sent, where string, tier model.Tier, done capture.Effect) {
	id := tier.String()
	if !f.Check(id, o != nil, "no %s span; %s", tier, where) {
		return
	}
	where = fmt.Sprintf("%s span %s; %s", tier, o.Source, where)
	f.Check(id+"-format", o.Format == format, "format %q, want %q; %s", o.Format, format, where)
	f.Check(id+"-method", o.Method == s.HTTPMethod(), "method %q, want %s; %s", o.Method, s.HTTPMethod(), where)
	f.Check(id+"-route", o.Route == s.Route(), "route %q, want %s; %s", o.Route, s.Route(), where)
	if tier == model.TierServer || s.Ended == capture.EndedResponse || profiles[lib].keyOnLoss {
		f.Check(id+"-key", o.Key == s.Key, "key %q, want %q; %s", o.Key, s.Key, where)
	}
	early := s.Start.Add(-rounding)
	switch {
	case tier == model.TierClient && s.Ended == capture.EndedTimeout:
		// Lost, in the words the client's span has: Go's "context
		// deadline exceeded" is a timeout; Node's AbortSignal.timeout
		// ends the span as an AbortError, an abort.
		f.Check("client-lost", o.Outcome.Lost() && o.Status == 0,
			"outcome %s status %d, want the client's giving up; %s", o.Outcome, o.Status, where)
		f.Check("client-duration", o.Duration >= s.Timeout-rounding && o.Duration <= s.Elapsed()+slack,
			"duration %s, want %s..%s (the client's patience); %s", o.Duration, s.Timeout, s.Elapsed(), where)
	case tier == model.TierClient:
		f.Check("client-status", o.Status == s.Status && o.Outcome == model.OutcomeOK, "status %d %s, want %d; %s", o.Status, o.Outcome, s.Status, where)
		f.Check("client-duration", o.Duration >= s.Delay && o.Duration <= s.Elapsed()+slack,
			"duration %s, want %s..%s; %s", o.Duration, s.Delay, s.Elapsed(), where)
	default:
		f.Check("server-status", o.Status == done.Status && o.Outcome == model.OutcomeOK, "status %d %s, want %d (the service's); %s",
			o.Status, o.Outcome, done.Status, where)
		f.Check("server-duration", o.Duration >= s.Delay-rounding, "duration %s, want at least the service's work %s; %s", o.Duration, s.Delay, where)
	}
	// The client's span starts when it sent; the server's while the
	// client waited (a loaded machine may hold the request a while).
	late := slack
	if tier != model.TierClient {
		late += s.Elapsed()
	}
	f.Check(id+"-start", !o.Time.Before(early) && !o.Time.After(s.Start.Add(late)),
		"start %s, want %s..+%s (while the client waited); %s", o.Time.UTC().Format(time.RFC3339Nano), s.Start.UTC().Format(time.RFC3339Nano), late, where)
}

// uniqueEffects are the effects with distinct result ids: the span's
// event and the service's log line may both say it made the order.
func uniqueEffects(obs []*model.Observation) []*model.Observation {
	var out []*model.Observation
	for _, o := range obs {
		if !slices.ContainsFunc(out, func(x *model.Observation) bool { return x.ResultID == o.ResultID }) {
			out = append(out, o)
		}
	}
	return out
}

// expectations are the findings the traffic calls for, from what was sent
// and what the service recorded: a response lost after the service made
// the order (information only when a retry with the key got the stored
// order back and made none, and no retry under another key made a second);
// a retry of the same payload under a new key after the loss, each key
// with an order: two orders, critical (spans carry no payload to
// fingerprint, only the same client, method and route). The
// clean step's key no finding may name.
func expectations(c *captureRecord) ([]capture.Expectation, []capture.Clean) {
	var must []capture.Expectation
	var clean []capture.Clean
	done := map[string]capture.Effect{}
	for _, d := range c.Done {
		done[d.Step] = d
	}
	for i, s := range c.Sent {
		d := done[s.Step]
		if s.Ended != capture.EndedTimeout || !d.Created {
			continue
		}
		sev, duplicated := diagnose.Warning, false
		for _, later := range c.Sent[i+1:] {
			if later.Key == s.Key && later.Answered() && !done[later.Step].Created && done[later.Step].OrderID == d.OrderID {
				sev = diagnose.Info
			}
			if later.Key != s.Key && later.Body == s.Body && done[later.Step].Created {
				// Two orders are two effects: critical, though only the
				// payloads' being one is likely (spans carry none).
				duplicated = true
				must = capture.Expect(must, capture.Expectation{Rule: "retry-new-key", Role: "new key", Keys: []string{s.Key, later.Key},
					Severity: diagnose.Critical})
			}
		}
		if duplicated {
			sev = diagnose.Warning // the key held, but the loss led to a duplicate
		}
		must = capture.Expect(must, capture.Expectation{Rule: "response-lost", Role: "lost response", Keys: []string{s.Key}, Severity: sev})
	}
	for _, s := range c.Sent {
		if !slices.ContainsFunc(must, func(e capture.Expectation) bool { return slices.Contains(e.Keys, s.Key) }) {
			clean = append(clean, capture.Clean{Key: s.Key, Why: "answered at once, one order"})
		}
	}
	return must, clean
}
