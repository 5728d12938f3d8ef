package harness

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/internal/kit/capture"
	"github.com/idem-cli/idem/model"
)

// What a proxy answers for each way the harness makes a request end, and
// what that means in idem's model. The statuses are the proxies'
// documented answers; 0 is "no response was sent" (the client had gone).
func wantStatus(proxy string, e end) int {
	switch e {
	case EndCreated:
		return 201
	case endReplay200:
		return 200
	case EndServerError:
		return 500
	case EndUpstreamDrop:
		return 502
	case endUpstreamTimeout:
		return 504
	case EndRefused:
		if proxy == "haproxy" {
			return 503
		}
		return 502
	}
	return 0
}

// wantOutcomes are the outcomes that are right for a step: more than one
// only where the log itself cannot tell them apart (nginx and Caddy log a
// refused upstream as a 502, as they log a reset one).
func wantOutcomes(proxy string, e end) []model.Outcome {
	switch e {
	case EndCreated, EndServerError, endReplay200:
		return []model.Outcome{model.OutcomeOK}
	case EndClientTimeout, endClientAbort:
		return []model.Outcome{model.OutcomeClientClosed}
	case EndUpstreamDrop:
		return []model.Outcome{model.OutcomeUpstreamReset}
	case endUpstreamTimeout:
		return []model.Outcome{model.OutcomeUpstreamTimeout}
	case EndRefused:
		if proxy == "haproxy" {
			return []model.Outcome{model.OutcomeNotDelivered}
		}
		return []model.Outcome{model.OutcomeNotDelivered, model.OutcomeUpstreamReset}
	}
	return nil
}

// wantUpstream is what the backend answered the proxy, where the harness
// knows it; -1 when the backend never answered (any 2xx is then wrong).
func wantUpstream(e end) int {
	switch e {
	case EndCreated:
		return 201
	case endReplay200:
		return 200
	case EndServerError:
		return 500
	case EndUpstreamDrop, EndRefused:
		return 502
	case endUpstreamTimeout:
		return 504
	}
	return -1
}

// hasUpstream is whether the log format writes $upstream_status.
func hasUpstream(l runLog) bool { return l.Proxy == "nginx" }

// timeSlack is how far a log's start time may be from when the harness
// sent the request: the combined and ingress formats write whole seconds.
const timeSlack = 1100 * time.Millisecond

// verifyProxyRun checks what idem reads from each proxy log of run
// (saved in dir), alone and joined with the backend's log, against what
// the harness sent.
func verifyProxyRun(t *testing.T, dir string, run run) {
	t.Helper()
	for _, l := range run.Logs {
		t.Run(l.Capture, func(t *testing.T) {
			verifyProxyLog(t, dir, run, l)
		})
	}
	if run.Chain {
		t.Run("chain", func(t *testing.T) { verifyChain(t, dir, run) })
	}
}

// verifyChain reads every hop's log with the backend's: each request is
// one delivery holding one line of each hop (and the backend's lines when
// it got there), each key one intent.
func verifyChain(t *testing.T, dir string, run run) {
	t.Helper()
	paths := []string{}
	for _, l := range run.Logs {
		paths = append(paths, filepath.Join(dir, l.File))
	}
	paths = append(paths, filepath.Join(dir, run.BackendLog))
	r := capture.MustRead(t, paths...)
	c := knownGaps.Facts(t, "chain")
	c.Check("all/deliveries", r.Set.DeliveryCount() == len(run.Sent), "%d deliveries from %d requests", r.Set.DeliveryCount(), len(run.Sent))
	for _, s := range run.Sent {
		if s.Key == "" {
			continue
		}
		in := c.OneIntent(s.Step+"/intent", r.Set, s.Key)
		if in == nil {
			continue
		}
		var d *model.Delivery
		for _, x := range in.Deliveries {
			if x.RequestID == s.RequestID {
				d = x
			}
		}
		if d == nil {
			c.Check(s.Step+"/delivery", false, "intent %s has no delivery %s", s.Key, s.RequestID)
			continue
		}
		formats := map[string]int{}
		for _, o := range d.Observations {
			if o.Tier == model.TierProxy {
				formats[o.Format]++
			}
		}
		for _, l := range run.Logs {
			c.Check(s.Step+"/hops", formats[l.Format] == 1, "%d %s lines in delivery %s, want 1 (tiers %s)", formats[l.Format], l.Format, s.RequestID, capture.Tiers(d))
		}
		c.Check(s.Step+"/joined_server", (d.At(model.TierServer) != nil) == s.Reached, "reached the backend: %v; tiers %s", s.Reached, capture.Tiers(d))
	}
}

func verifyProxyLog(t *testing.T, dir string, run run, l runLog) {
	file := filepath.Join(dir, l.File)
	r := capture.MustRead(t, file)
	lines := r.Lines(file)
	joined := r
	if run.BackendLog != "" {
		joined = capture.MustRead(t, file, filepath.Join(dir, run.BackendLog))
	}
	c := knownGaps.Facts(t, l.Capture)

	in := r.Input(file)
	if in == nil {
		t.Fatalf("no summary for %s", file)
	}
	// Lines about no request (a proxy's startup notices) may be skipped;
	// a request's line never.
	for _, sk := range in.SkipSamples {
		if l := lines[sk.Source.Line-1]; sentIn(run, l) {
			c.Check("input/skipped", false, "%s: %s: %s", sk.Source, sk.Reason, l)
		}
	}
	if l.Format != "" {
		c.Check("input/format", in.Format == l.Format, "read as %q, want %q", in.Format, l.Format)
	}
	c.Check("input/observations", len(r.From(file)) == len(run.Sent),
		"%d observations from %d requests", len(r.From(file)), len(run.Sent))

	for _, s := range run.Sent {
		line := capture.LineOf(lines, s.RequestID)
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
	verifyCorrelation(c, run, l, r, joined)
}

func verifyObservation(c *capture.Facts, l runLog, s capture.Sent, o *model.Observation, raw string) {
	at := func(fact string) string { return s.Step + "/" + fact }
	c.Check(at("tier"), o.Tier == model.TierProxy, "tier %s, want proxy: %s", o.Tier, raw)
	c.Check(at("request_id"), o.RequestID == s.RequestID, "request id %q, want %q: %s", o.RequestID, s.RequestID, raw)
	wk := s.Key
	if l.NoKey {
		wk = ""
	}
	c.Check(at("key"), model.NormalizeKey(o.Key) == wk, "key %q, want %q: %s", o.Key, wk, raw)
	c.Check(at("method"), o.Method == s.HTTPMethod(), "method %q, want %s: %s", o.Method, s.HTTPMethod(), raw)
	c.Check(at("route"), o.Route == s.Route(), "route %q, want %q: %s", o.Route, s.Route(), raw)
	end := EndOf(s)
	ws := wantStatus(l.Proxy, end)
	c.Check(at("status"), o.Status == ws, "status %d, want %d (%s): %s", o.Status, ws, end, raw)
	wo := wantOutcomes(l.Proxy, end)
	c.Check(at("outcome"), slices.Contains(wo, o.Outcome), "outcome %s, want %v (%s): %s", o.Outcome, wo, end, raw)
	if hasUpstream(l) {
		wu := wantUpstream(end)
		ok := o.UpstreamStatus == wu
		if wu < 0 {
			ok = o.UpstreamStatus < 200 || o.UpstreamStatus > 299
		}
		c.Check(at("upstream_status"), ok, "upstream status %d, want %d (%s): %s", o.UpstreamStatus, wu, end, raw)
	}
	d := o.Time.Sub(s.Start)
	c.Check(at("time"), d > -timeSlack && d < timeSlack, "start %s, sent at %s (%s apart): %s",
		o.Time.UTC().Format(time.RFC3339Nano), s.Start.UTC().Format(time.RFC3339Nano), d, raw)
	if end != endClientAbort {
		// The proxy's interval lies inside the client's.
		elapsed := s.Elapsed()
		c.Check(at("duration"), o.Duration >= 0 && o.Duration <= elapsed+250*time.Millisecond,
			"duration %s, the client waited %s: %s", o.Duration, elapsed, raw)
	}
}

// verifyCorrelation checks the joins. The proxy's log alone: one
// delivery per request sent, one intent per key it wrote. Joined with the
// backend's log: one intent per key holding exactly its retries, each
// delivery holding the proxy's line and, when the backend received it,
// the backend's.
func verifyCorrelation(c *capture.Facts, run run, l runLog, alone, joined *capture.Reading) {
	var known []capture.Sent
	keysAlone, unkeyedAlone := map[string]bool{}, 0
	for _, s := range run.Sent {
		switch {
		case s.Key == "":
			unkeyedAlone++
		case l.NoKey:
			unkeyedAlone++
		default:
			keysAlone[s.Key] = true
		}
		// A key is known only where some log wrote it.
		if s.Key != "" && !(l.NoKey && !(s.Reached && run.BackendLog != "")) {
			known = append(known, s)
		}
	}
	c.Check("alone/deliveries", alone.Set.DeliveryCount() == len(run.Sent),
		"%d deliveries from %d requests with distinct request ids", alone.Set.DeliveryCount(), len(run.Sent))
	c.Check("alone/intents", alone.Set.IntentCount() == len(keysAlone), "%d intents from %d keys", alone.Set.IntentCount(), len(keysAlone))
	c.Check("alone/unkeyed", alone.Set.UnkeyedCount() == unkeyedAlone, "%d unkeyed deliveries, want %d", alone.Set.UnkeyedCount(), unkeyedAlone)
	if joined == alone {
		return
	}
	c.Check("joined/deliveries", joined.Set.DeliveryCount() == len(run.Sent),
		"%d deliveries from %d requests with distinct request ids, in the proxy's and the backend's logs", joined.Set.DeliveryCount(), len(run.Sent))
	verifyJoins(c, joined, known, func(s capture.Sent) map[model.Tier]bool {
		return map[model.Tier]bool{model.TierProxy: true, model.TierServer: s.Reached}
	})
}

// verifyJoins checks, for each key of sent, that it makes one intent
// holding exactly its requests, and that each request's delivery holds a
// line of each tier crossed says it crossed, and none of the others it
// names.
func verifyJoins(c *capture.Facts, r *capture.Reading, sent []capture.Sent, crossed func(capture.Sent) map[model.Tier]bool) {
	keys, byKey := capture.ByKey(sent, func(s capture.Sent) string { return s.Key })
	for _, k := range keys {
		if k == "" {
			continue
		}
		in := c.Intent(byKey[k][0].Step+"/intent", r.Set, k, capture.RequestIDs(byKey[k]))
		if in == nil {
			continue
		}
		for _, s := range byKey[k] {
			for _, d := range in.Deliveries {
				if d.RequestID != s.RequestID {
					continue
				}
				want := crossed(s)
				for _, tier := range []model.Tier{model.TierClient, model.TierProxy, model.TierServer} {
					want, ok := want[tier]
					if !ok {
						continue
					}
					got := d.At(tier) != nil
					c.Check(s.Step+"/joined_"+tier.String(), got == want, "delivery %s crossed the %s: %v; idem joined its lines: %v (tiers %s)",
						s.RequestID, tier, want, got, capture.Tiers(d))
				}
			}
		}
	}
}

// sentIn reports whether a log line names a request the harness sent.
func sentIn(run run, line string) bool {
	for _, s := range run.Sent {
		if strings.Contains(line, s.RequestID) {
			return true
		}
	}
	return false
}

// verifyTraceRun checks the joins of a run whose requests carried only a
// traceparent: each request one delivery holding the proxy's line and the
// backend's, each key one intent holding exactly its requests.
func verifyTraceRun(t *testing.T, dir string, run run) {
	for _, l := range run.Logs {
		t.Run(l.Capture, func(t *testing.T) {
			file, backend := filepath.Join(dir, l.File), filepath.Join(dir, run.BackendLog)
			r := capture.MustRead(t, file, backend)
			proxyLines, serverLines := r.Lines(file), r.Lines(backend)
			c := knownGaps.Facts(t, l.Capture)
			c.Check("joined/deliveries", r.Set.DeliveryCount() == len(run.Sent), "%d deliveries from %d requests, each with its own trace id",
				r.Set.DeliveryCount(), len(run.Sent))
			byKey := map[string]int{}
			for _, s := range run.Sent {
				if s.Key != "" {
					byKey[s.Key]++
				}
			}
			for _, s := range run.Sent {
				if s.Key == "" {
					continue
				}
				in := c.OneIntent(s.Step+"/intent", r.Set, s.Key)
				if in == nil {
					continue
				}
				c.Check(s.Step+"/intent", len(in.Deliveries) == byKey[s.Key], "key %s: %d deliveries, want %d (one per trace id)",
					s.Key, len(in.Deliveries), byKey[s.Key])
				// The delivery holding the proxy's line of this trace must hold
				// the backend's line of it too.
				proxyLine, serverLine := capture.LineOf(proxyLines, s.RequestID), capture.LineOf(serverLines, s.RequestID)
				joined := false
				for _, d := range in.Deliveries {
					var p, sv bool
					for _, o := range d.Observations {
						p = p || o.Source.File == file && o.Source.Line == proxyLine
						sv = sv || o.Source.File == backend && o.Source.Line == serverLine
					}
					joined = joined || p && sv
				}
				c.Check(s.Step+"/joined", joined, "no delivery of key %s holds both %s:%d and %s:%d, the lines of trace %s",
					s.Key, l.File, proxyLine, run.BackendLog, serverLine, s.RequestID)
			}
		})
	}
}
