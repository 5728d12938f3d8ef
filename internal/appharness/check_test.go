package appharness

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idem-cli/idem/correlate"
	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/model"
	"github.com/tidwall/gjson"
)

// facts asserts what idem read against what the harness did. A fact that
// knownGaps lists for the library logs instead of failing; a listed gap
// that no longer shows is reported, and fails with IDEM_STRICT_GAPS=1.
type facts struct {
	t     testing.TB
	lib   string
	mu    sync.Mutex
	asked map[string]bool
	fired map[string]bool
}

func newFacts(t testing.TB, lib string) *facts {
	f := &facts{t: t, lib: lib, asked: map[string]bool{}, fired: map[string]bool{}}
	t.Cleanup(func() {
		for id := range f.asked {
			if _, known := knownGaps[id]; known && !f.fired[id] && !t.Failed() {
				if os.Getenv("IDEM_STRICT_GAPS") != "" {
					t.Errorf("known gap %s no longer shows: remove it from knownGaps", id)
				} else {
					t.Logf("known gap %s no longer shows: remove it from knownGaps", id)
				}
			}
		}
	})
	return f
}

// expect checks one fact named lib/fact.
func (f *facts) expect(fact string, ok bool, format string, args ...any) {
	f.t.Helper()
	id := f.lib + "/" + fact
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked[id] = true
	if ok {
		return
	}
	msg := fmt.Sprintf(format, args...)
	if reason, known := knownGaps[id]; known {
		if !f.fired[id] {
			f.t.Logf("known gap %s: %s", id, reason)
		}
		f.fired[id] = true
		f.t.Logf("known gap %s: %s", id, msg)
		return
	}
	f.t.Errorf("%s: %s", id, msg)
}

// read is what idem made of one or more logs: the correlated set, every
// observation as read, and each log's lines.
type read struct {
	set   *model.Set
	obs   map[model.Source]*model.Observation
	lines map[string][]string
}

// collector keeps every observation as the reader hands it on.
type collector struct {
	mu  sync.Mutex
	obs map[model.Source]*model.Observation
}

func (c *collector) Prepare(*model.Batch) {}
func (c *collector) Consume(b *model.Batch) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range b.Obs {
		c.obs[b.Obs[i].Source] = b.Obs[i].Clone()
	}
}

// readLogs reads paths the way load.Files does (ingest.Read into
// correlate.NewCorrelator), collecting each observation beside it.
func readLogs(t testing.TB, paths ...string) *read {
	t.Helper()
	c := correlate.NewCorrelator(nil)
	col := &collector{obs: map[model.Source]*model.Observation{}}
	inputs, err := ingest.Read(context.Background(), paths, ingest.Options{Workers: 1}, ingest.Tee(c, col))
	if err != nil {
		t.Fatalf("ingest.Read: %v", err)
	}
	r := &read{set: c.Set(inputs), obs: col.obs, lines: map[string][]string{}}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		r.lines[p] = strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	}
	return r
}

// line is a log line and where it is.
type line struct {
	src  model.Source
	text string
}

// find returns the lines of path whose JSON has, at one of paths, the
// value want, and whose message field matches pick.
func (r *read) find(path string, idPaths []string, want string, pick func(gjson.Result) bool) []line {
	var out []line
	for i, l := range r.lines[path] {
		j := gjson.Parse(l)
		if !pick(j) {
			continue
		}
		for _, p := range idPaths {
			if v := j.Get(p); v.Exists() && v.String() == want {
				out = append(out, line{model.Source{File: path, Line: i + 1}, l})
				break
			}
		}
	}
	return out
}

// deliveries is every delivery idem built, keyed or not, by request id.
func (r *read) deliveries(keys []string) map[string]*model.Delivery {
	out := map[string]*model.Delivery{}
	add := func(d *model.Delivery) {
		if _, ok := out[d.RequestID]; !ok {
			out[d.RequestID] = d
		}
	}
	for _, in := range r.set.Built {
		for _, d := range in.Deliveries {
			add(d)
		}
	}
	for _, k := range keys {
		for _, in := range r.set.FindIntent(k) {
			for _, d := range in.Deliveries {
				add(d)
			}
		}
	}
	for _, d := range r.set.Unkeyed {
		add(d)
	}
	return out
}

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
func checkHTTP(t testing.TB, c *Capture) {
	t.Helper()
	prof, ok := profiles[c.Library]
	if !ok {
		t.Fatalf("no profile for %s", c.Library)
	}
	f := newFacts(t, c.Library)
	r := readLogs(t, c.Log)
	done := map[string]Done{}
	for _, d := range c.Done {
		done[d.Step] = d
	}
	var keys []string
	for _, s := range c.Sent {
		if s.Key != "" && !slices.Contains(keys, s.Key) {
			keys = append(keys, s.Key)
		}
	}
	dels := r.deliveries(keys)
	in := r.set.Inputs[0]
	f.expect("input-format", in.Format == c.Format || in.Format == "mixed" && c.Format != prof.effectFormat,
		"the input reads as %q, want %q (formats %v)", in.Format, c.Format, in.Formats)
	f.expect("skipped", in.Skipped == 0, "%d lines skipped: %v", in.Skipped, in.SkipSamples)

	wantRID := func(s Sent, d Done, line string) string {
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
		d, ok := done[s.Name]
		if !ok {
			t.Fatalf("step %s: the backend's ledger has no entry", s.Name)
		}
		access := r.find(c.Log, prof.idPaths, d.RequestID, isAccessLine)
		if len(access) != 1 {
			t.Fatalf("step %s: %d access lines with request id %s in %s, want 1", s.Name, len(access), d.RequestID, c.Log)
		}
		al := access[0]
		rid := wantRID(s, d, al.text)
		o := r.obs[al.src]
		f.expect("access-read", o != nil, "step %s: the access line is not read as a request: %s", s.Name, al.text)
		if o == nil {
			continue
		}
		where := fmt.Sprintf("step %s, %s: %s", s.Name, al.src, al.text)
		f.expect("tier", o.Tier == model.TierServer, "tier %s, want server; %s", o.Tier, where)
		f.expect("format", o.Format == c.Format, "format %q, want %q; %s", o.Format, c.Format, where)
		f.expect("method", o.Method == "POST", "method %q, want POST; %s", o.Method, where)
		f.expect("route", o.Route == Route, "route %q, want %s; %s", o.Route, Route, where)
		f.expect("request-id", o.RequestID == rid, "request id %q, want %q; %s", o.RequestID, rid, where)

		// How it ended, and how long it took. The bounds hold however slow
		// the machine: the service worked at least its delay, and it saw
		// the request no earlier than the client sent it and answered no
		// later than the client read the answer.
		var lo, hi time.Duration
		late := s.End.Add(-s.Delay) // the latest the service can have started
		switch {
		case s.TimedOut && c.AbortLogged:
			// The line is written when the connection closes, before the
			// service has done its work.
			f.expect("aborted", o.Outcome.Lost() && o.Status == 0,
				"outcome %s status %d, want the client's going away logged; %s", o.Outcome, o.Status, where)
			lo, hi, late = 0, s.Delay+rounding, s.End
		case s.TimedOut:
			f.expect("status", o.Status == d.Status, "status %d, want %d (what the backend wrote); %s", o.Status, d.Status, where)
			lo, hi, late = s.Delay-rounding, s.Delay+2*time.Second, s.End
		default:
			f.expect("status", o.Status == d.Status && o.Status == s.Status,
				"status %d, want %d (client %d); %s", o.Status, d.Status, s.Status, where)
			// A service may take its measure after the client has read the
			// response (structlog's line is written after the write).
			lo, hi = s.Delay-rounding, s.Elapsed()+slack
		}
		f.expect("duration", o.Duration >= lo && o.Duration <= hi,
			"duration %s, want %s..%s (client waited %s, backend worked %s); %s", o.Duration, lo, hi, s.Elapsed(), s.Delay, where)
		// A clock of whole seconds cannot tell the start from the end.
		early := s.Start.Add(-prof.precision - rounding)
		late = late.Add(rounding)
		if prof.precision >= time.Second {
			late = late.Add(prof.precision)
		}
		f.expect("start", !o.Time.Before(early) && !o.Time.After(late),
			"start %s, want %s..%s (after the client sent it, %s before it had the answer); %s",
			o.Time.UTC().Format(time.RFC3339Nano), early.UTC().Format(time.RFC3339Nano), late.UTC().Format(time.RFC3339Nano), s.Delay, where)

		// The effect line, or the replay line, of the same request.
		el := r.find(c.Log, prof.idPaths, d.RequestID, isEffectLine)
		if len(el) != 1 {
			t.Fatalf("step %s: %d effect lines with request id %s, want 1", s.Name, len(el), d.RequestID)
		}
		eo := r.obs[el[0].src]
		ewhere := fmt.Sprintf("step %s, %s: %s", s.Name, el[0].src, el[0].text)
		f.expect("effect-read", eo != nil, "the effect line is not read; %s", ewhere)
		if eo != nil {
			f.expect("effect-format", eo.Format == prof.effectFormat, "format %q, want %q; %s", eo.Format, prof.effectFormat, ewhere)
			f.expect("effect-request-id", eo.RequestID == rid, "request id %q, want %q; %s", eo.RequestID, rid, ewhere)
			f.expect("result-id", eo.ResultID == d.OrderID, "result id %q, want %q; %s", eo.ResultID, d.OrderID, ewhere)
			if d.Created {
				f.expect("effect", eo.Effect, "not read as an effect; %s", ewhere)
			} else {
				f.expect("replay", !eo.Effect && eo.Replayed, "effect %v replayed %v, want a replay, no effect; %s", eo.Effect, eo.Replayed, ewhere)
			}
			if s.Key != "" {
				f.expect("key", eo.Key == s.Key, "key %q, want %q; %s", eo.Key, s.Key, ewhere)
			}
		}

		// One delivery holds both lines.
		del := dels[rid]
		f.expect("delivery", del != nil, "no delivery with request id %q (deliveries: %v); %s", rid, ids(dels), where)
		if del != nil {
			srcs := sources(del)
			f.expect("join", slices.Contains(srcs, al.src) && slices.Contains(srcs, el[0].src),
				"delivery %s holds %v, want the access line %s and the effect line %s", rid, srcs, al.src, el[0].src)
			want := ""
			if d.Created {
				want = d.OrderID
			}
			f.expect("delivery-effect", effectIDs(del.Effects()) == want,
				"delivery %s has effects [%s], want [%s]", rid, effectIDs(del.Effects()), want)
		}
	}

	// The intents the keys make: every delivery that carried the key, and
	// the one order the key made.
	for _, k := range keys {
		var want []string
		created := ""
		for _, s := range c.Sent {
			if s.Key == k {
				want = append(want, wantRID(s, done[s.Name], ""))
				if done[s.Name].Created {
					created = done[s.Name].OrderID
				}
			}
		}
		ins := r.set.FindIntent(k)
		if len(ins) != 1 {
			f.expect("intent", false, "key %s: %d intents, want 1", k, len(ins))
			continue
		}
		var got []string
		for _, d := range ins[0].Deliveries {
			got = append(got, d.RequestID)
		}
		sort.Strings(got)
		sort.Strings(want)
		f.expect("intent", slices.Equal(got, want), "key %s: deliveries %v, want %v", k, got, want)
		f.expect("intent-effect", effectIDs(ins[0].Effects()) == created,
			"key %s: effects [%s], want [%s]", k, effectIDs(ins[0].Effects()), created)
	}
	f.expect("deliveries", r.set.DeliveryCount() == len(c.Sent),
		"%d deliveries, want %d (one per request sent): %v", r.set.DeliveryCount(), len(c.Sent), ids(dels))
	f.expect("orphans", len(r.set.Orphans) == 0, "%d effect lines joined to no request: %v", len(r.set.Orphans), orphanLines(r.set.Orphans))
}

func ids(m map[string]*model.Delivery) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sources(d *model.Delivery) []model.Source {
	var out []model.Source
	for _, o := range d.Observations {
		out = append(out, o.Source)
	}
	return out
}

func effectIDs(obs []*model.Observation) string {
	var out []string
	for _, o := range obs {
		out = append(out, o.ResultID)
	}
	return strings.Join(out, ",")
}

func orphanLines(obs []*model.Observation) []string {
	var out []string
	for _, o := range obs {
		out = append(out, o.Source.String())
	}
	return out
}

// mustJSON is for messages.
func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
