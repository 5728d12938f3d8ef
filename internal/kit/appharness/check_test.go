package appharness

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/internal/kit/capture"
	"github.com/idem-cli/idem/model"
	"github.com/tidwall/gjson"
)

// profile is what the harness knows of how a backend's library logs:
// where it writes the request id, how precise its clock is, which format
// its effect lines are.
type profile struct {
	idPaths      []string
	effectFormat string
	// precision is the coarsest unit of the line's time: zerolog and logrus
	// write RFC 3339 seconds by default.
	precision time.Duration
	// headerID says every line of the library carries the propagated
	// X-Request-Id (pino-http's req.headers), so that is the id that joins
	// the tiers, whatever id the library made.
	headerID bool
}

var profiles = map[string]profile{
	"slog":              {idPaths: []string{"request_id"}, effectFormat: "slog", precision: time.Microsecond},
	"zap":               {idPaths: []string{"request_id"}, effectFormat: "zap", precision: time.Microsecond},
	"zerolog":           {idPaths: []string{"req_id"}, effectFormat: "zerolog", precision: time.Second},
	"logrus":            {idPaths: []string{"request_id"}, effectFormat: "logrus", precision: time.Second},
	"logrus-rfc1123":    {idPaths: []string{"request_id"}, effectFormat: "logrus", precision: time.Second},
	"logrus-timestring": {idPaths: []string{"request_id"}, effectFormat: "logrus", precision: time.Microsecond},
	"echo":              {idPaths: []string{"id", "request_id"}, effectFormat: "echo", precision: time.Microsecond},
	"pino-http":         {idPaths: []string{"req.id"}, effectFormat: "pino", precision: time.Millisecond, headerID: true},
	"pino-http-restart": {idPaths: []string{"req.id"}, effectFormat: "pino", precision: time.Millisecond, headerID: true},
	"pino-http-header":  {idPaths: []string{"req.id"}, effectFormat: "pino", precision: time.Millisecond, headerID: true},
	"structlog":         {idPaths: []string{"request_id"}, effectFormat: "structlog", precision: time.Microsecond},
}

func isEffectLine(j gjson.Result) bool {
	for _, p := range []string{"msg", "message", "event"} {
		if strings.HasPrefix(j.Get(p).String(), "order ") {
			return true
		}
	}
	return false
}

func isAccessLine(j gjson.Result) bool { return j.IsObject() && !isEffectLine(j) }

// Tolerances of the time and duration checks: rounding covers the
// libraries' millisecond clocks; slack a service that measures after it
// answered.
const (
	slack    = 150 * time.Millisecond
	rounding = 5 * time.Millisecond
)

// checkHTTP asserts, for every step of an HTTP capture, what idem must
// read from the backend's log: each access line's tier, format, method,
// route, status, start and duration; the request id joining the access
// and effect lines into one delivery; the effect and its result id; and
// the intents and unkeyed deliveries the steps make.
func checkHTTP(t testing.TB, c *captureRecord) {
	t.Helper()
	prof, ok := profiles[c.Library]
	if !ok {
		t.Fatalf("no profile for %s", c.Library)
	}
	f := knownGaps.Facts(t, c.Library)
	r := capture.MustRead(t, c.Log)
	done := ledgerBySteps(c.Done)
	keys := sentKeys(c.Sent)
	dels := r.Deliveries(keys)
	in := r.Set.Inputs[0]
	f.Check("input-format", in.Format == c.Format || in.Format == "mixed" && c.Format != prof.effectFormat,
		"the input reads as %q, want %q (formats %v)", in.Format, c.Format, in.Formats)
	f.Check("skipped", in.Skipped == 0, "%d lines skipped: %v", in.Skipped, in.SkipSamples)

	wantRID := func(s capture.Sent, d capture.Effect, line string) string {
		if prof.headerID && s.RequestID != "" {
			return s.RequestID
		}
		// A per-process counter (pino-http's genReqId: 1, 2, ...) names
		// the trip only within its process: hostname/pid#n.
		if n, err := strconv.Atoi(d.RequestID); err == nil && n > 0 {
			var proc struct {
				Hostname string `json:"hostname"`
				PID      int    `json:"pid"`
			}
			if json.Unmarshal([]byte(line), &proc) == nil && (proc.Hostname != "" || proc.PID != 0) {
				return fmt.Sprintf("%s/%d#%s", proc.Hostname, proc.PID, d.RequestID)
			}
		}
		return d.RequestID
	}
	for _, s := range c.Sent {
		d, ok := done[s.Step]
		if !ok {
			t.Fatalf("step %s: the backend's ledger has no entry", s.Step)
		}
		access := r.Find(c.Log, prof.idPaths, d.RequestID, isAccessLine)
		if len(access) != 1 {
			t.Fatalf("step %s: %d access lines with request id %s in %s, want 1", s.Step, len(access), d.RequestID, c.Log)
		}
		al := access[0]
		rid := wantRID(s, d, al.Text)
		o := r.Of(al.Src)
		f.Check("access-read", o != nil, "step %s: the access line is not read as a request: %s", s.Step, al.Text)
		if o == nil {
			continue
		}
		where := fmt.Sprintf("step %s, %s: %s", s.Step, al.Src, al.Text)
		f.Check("tier", o.Tier == model.TierServer, "tier %s, want server; %s", o.Tier, where)
		f.Check("format", o.Format == c.Format, "format %q, want %q; %s", o.Format, c.Format, where)
		f.Check("method", o.Method == "POST", "method %q, want POST; %s", o.Method, where)
		f.Check("route", o.Route == route, "route %q, want %s; %s", o.Route, route, where)
		f.Check("request-id", o.RequestID == rid, "request id %q, want %q; %s", o.RequestID, rid, where)

		// How it ended, and how long it took. The bounds hold however slow
		// the machine: the service worked at least its delay, and it saw
		// the request no earlier than the client sent it and answered no
		// later than the client read the answer.
		var lo, hi time.Duration
		late := s.End.Add(-s.Delay) // the latest the service can have started
		switch {
		case s.Ended == capture.EndedTimeout && c.AbortLogged:
			// The line is written when the connection closes, before the
			// service has done its work.
			f.Check("aborted", o.Outcome.Lost() && o.Status == 0,
				"outcome %s status %d, want the client's going away logged; %s", o.Outcome, o.Status, where)
			lo, hi, late = 0, s.Delay+rounding, s.End
		case s.Ended == capture.EndedTimeout:
			f.Check("status", o.Status == d.Status, "status %d, want %d (what the backend wrote); %s", o.Status, d.Status, where)
			lo, hi, late = s.Delay-rounding, s.Delay+2*time.Second, s.End
		default:
			f.Check("status", o.Status == d.Status && o.Status == s.Status,
				"status %d, want %d (client %d); %s", o.Status, d.Status, s.Status, where)
			// A service may take its measure after the client has read the
			// response (structlog's line is written after the write).
			lo, hi = s.Delay-rounding, s.Elapsed()+slack
		}
		f.Check("duration", o.Duration >= lo && o.Duration <= hi,
			"duration %s, want %s..%s (client waited %s, backend worked %s); %s", o.Duration, lo, hi, s.Elapsed(), s.Delay, where)
		// A clock of whole seconds cannot tell the start from the end.
		early := s.Start.Add(-prof.precision - rounding)
		late = late.Add(rounding)
		if prof.precision >= time.Second {
			late = late.Add(prof.precision)
		}
		f.Check("start", !o.Time.Before(early) && !o.Time.After(late),
			"start %s, want %s..%s (after the client sent it, %s before it had the answer); %s",
			o.Time.UTC().Format(time.RFC3339Nano), early.UTC().Format(time.RFC3339Nano), late.UTC().Format(time.RFC3339Nano), s.Delay, where)

		// The effect line, or the replay line, of the same request.
		el := r.Find(c.Log, prof.idPaths, d.RequestID, isEffectLine)
		if len(el) != 1 {
			t.Fatalf("step %s: %d effect lines with request id %s, want 1", s.Step, len(el), d.RequestID)
		}
		eo := r.Of(el[0].Src)
		ewhere := fmt.Sprintf("step %s, %s: %s", s.Step, el[0].Src, el[0].Text)
		f.Check("effect-read", eo != nil, "the effect line is not read; %s", ewhere)
		if eo != nil {
			f.Check("effect-format", eo.Format == prof.effectFormat, "format %q, want %q; %s", eo.Format, prof.effectFormat, ewhere)
			f.Check("effect-request-id", eo.RequestID == rid, "request id %q, want %q; %s", eo.RequestID, rid, ewhere)
			f.Check("result-id", eo.ResultID == d.OrderID, "result id %q, want %q; %s", eo.ResultID, d.OrderID, ewhere)
			if d.Created {
				f.Check("effect", eo.Effect, "not read as an effect; %s", ewhere)
			} else {
				f.Check("replay", !eo.Effect && eo.Replayed, "effect %v replayed %v, want a replay, no effect; %s", eo.Effect, eo.Replayed, ewhere)
			}
			if s.Key != "" {
				f.Check("key", eo.Key == s.Key, "key %q, want %q; %s", eo.Key, s.Key, ewhere)
			}
		}

		// One delivery holds both lines.
		del := dels[rid]
		f.Check("delivery", del != nil, "no delivery with request id %q (deliveries: %v); %s", rid, capture.IDs(dels), where)
		if del != nil {
			srcs := capture.Sources(del)
			f.Check("join", slices.Contains(srcs, al.Src) && slices.Contains(srcs, el[0].Src),
				"delivery %s holds %v, want the access line %s and the effect line %s", rid, srcs, al.Src, el[0].Src)
			want := ""
			if d.Created {
				want = d.OrderID
			}
			f.Check("delivery-effect", capture.EffectIDs(del.Effects()) == want,
				"delivery %s has effects [%s], want [%s]", rid, capture.EffectIDs(del.Effects()), want)
		}
	}

	// The intents the keys make: every delivery that carried the key, and
	// the one order the key made.
	for _, k := range keys {
		var want []string
		created := ""
		for _, s := range c.Sent {
			if s.Key == k {
				want = append(want, wantRID(s, done[s.Step], ""))
				if done[s.Step].Created {
					created = done[s.Step].OrderID
				}
			}
		}
		if in := f.Intent("intent", r.Set, k, want); in != nil {
			f.Check("intent-effect", capture.EffectIDs(in.Effects()) == created,
				"key %s: effects [%s], want [%s]", k, capture.EffectIDs(in.Effects()), created)
		}
	}
	f.Check("deliveries", r.Set.DeliveryCount() == len(c.Sent),
		"%d deliveries, want %d (one per request sent): %v", r.Set.DeliveryCount(), len(c.Sent), capture.IDs(dels))
	f.Check("orphans", len(r.Set.Orphans) == 0, "%d effect lines joined to no request: %v", len(r.Set.Orphans), orphanLines(r.Set.Orphans))
}

// ledgerBySteps is a ledger by the steps it records.
func ledgerBySteps(done []capture.Effect) map[string]capture.Effect {
	out := map[string]capture.Effect{}
	for _, d := range done {
		out[d.Step] = d
	}
	return out
}

// sentKeys are the keys sent, in the order they were first sent.
func sentKeys(sent []capture.Sent) []string {
	var out []string
	for _, s := range sent {
		if s.Key != "" && !slices.Contains(out, s.Key) {
			out = append(out, s.Key)
		}
	}
	return out
}

func orphanLines(obs []*model.Observation) []string {
	var out []string
	for _, o := range obs {
		out = append(out, o.Source.String())
	}
	return out
}
