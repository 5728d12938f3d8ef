package harness

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/idem-cli/idem/internal/kit/capture"
	"github.com/idem-cli/idem/model"
)

// publicDir holds public samples of real logs, their origin in its README.
var publicDir = filepath.Join(realDir, "public")

// publicWant is what one record of a public sample says, read by hand
// from the sample itself.
type publicWant struct {
	at       int // the line (text) or the entry's index (HAR)
	method   string
	route    string
	status   int
	ok       bool // a response reached the client; false: none did
	duration time.Duration
	start    time.Time // zero: not checked (the line has no time zone)
}

type publicSample struct {
	capture, file, format string
	tier                  model.Tier
	har                   bool
	// records carry no request id and no key (none of these samples logs
	// them).
	records []publicWant
}

func ms(n float64) time.Duration { return time.Duration(n * float64(time.Millisecond)) }

func publicSamples() []publicSample {
	// HAProxy option httplog behind a syslog header, capturing the
	// User-Agent (request) and nothing (response): {UA} {}.
	haproxy := func(line int, method, route string, ta int) publicWant {
		return publicWant{at: line, method: method, route: route, status: 200, ok: true, duration: time.Duration(ta) * time.Millisecond}
	}
	return []publicSample{
		{
			capture: "public-lnav-haproxy", file: "lnav/logfile_haproxy.0", format: "haproxy", tier: model.TierProxy,
			records: []publicWant{
				haproxy(4, "GET", "/admin/colt/administration", 1487),
				haproxy(5, "POST", "/portal/", 62),
				haproxy(6, "POST", "/portal/", 38),
				haproxy(7, "POST", "/portal/", 328),
				haproxy(8, "GET", "/admin/colt/administration", 1039),
				haproxy(9, "GET", "/portal/", 2707),
				haproxy(10, "GET", "/portal/", 2442),
				haproxy(11, "GET", "/portal/", 236),
				haproxy(12, "GET", "/media/core/bootstrap_3.3.7/css/bootstrap.css", 1),
				haproxy(13, "GET", "/media/core/jquery/jquery-ui-1.12.1.js", 1),
				haproxy(15, "GET", "/media/pi_fontawesome/css/font-awesome.css", 1),
				haproxy(16, "GET", "/media/pi_popup/1.1.0/magnific-popup.css", 1),
				haproxy(17, "GET", "/media/core/core.css", 1),
			},
		},
		{
			// Caddy's JSON access log as `docker compose logs` prints it:
			// "caddy  | " before each line. ts is when the request ended.
			capture: "public-lnav-caddy-compose", file: "lnav/logfile_caddy_log.0", format: "caddy", tier: model.TierProxy,
			records: []publicWant{
				{at: 5, method: "GET", route: "/", status: 304, ok: true, duration: ms(1.674508), start: unix(1761019828.6153953 - 0.001674508)},
				{at: 7, method: "GET", route: "/", status: 304, ok: true, duration: ms(1.239398), start: unix(1761019859.196494 - 0.001239398)},
				{at: 8, method: "GET", route: "/", status: 304, ok: true, duration: ms(0.07314), start: unix(1761019942.9484386 - 0.00007314)},
				{at: 9, method: "GET", route: "/index.html", status: 200, ok: true, duration: ms(0.073649), start: unix(1761019957.9247544 - 0.000073649)},
			},
		},
		{
			// Playwright's HAR of a request that never got an answer
			// (status -1, time -1) and its retry; it has no "pages".
			capture: "public-playwright-har", file: "playwright/har-unstable-network.har", format: "har", tier: model.TierClient, har: true,
			records: []publicWant{
				{at: 0, method: "GET", route: "/api", status: 0, ok: false, duration: -1,
					start: time.Date(2022, 6, 16, 21, 41, 23, 951e6, time.UTC)},
				{at: 1, method: "GET", route: "/api", status: 200, ok: true, duration: ms(0.578),
					start: time.Date(2023, 4, 11, 6, 5, 46, 243e6, time.UTC)},
			},
		},
	}
}

func unix(s float64) time.Time {
	sec := int64(s)
	return time.Unix(sec, int64((s-float64(sec))*1e9)).UTC()
}

// TestPublicSamples reads public samples of real logs and checks the
// facts read from them by hand.
func TestPublicSamples(t *testing.T) {
	for _, ps := range publicSamples() {
		t.Run(ps.capture, func(t *testing.T) {
			file := filepath.Join(publicDir, ps.file)
			r := capture.MustRead(t, file)
			c := knownGaps.Facts(t, ps.capture)
			in := r.Input(file)
			if in == nil {
				t.Fatalf("no summary for %s", file)
			}
			obs := r.From(file)
			c.Check("input/observations", len(obs) == len(ps.records), "%d observations, %d records in the sample (skipped %d: %v)",
				len(obs), len(ps.records), in.Skipped, in.SkipSamples)
			if ps.har {
				c.Check("input/format", in.Format == ps.format, "read as %q, want %q", in.Format, ps.format)
			}
			for i, w := range ps.records {
				var o *model.Observation
				if ps.har {
					if len(obs) == len(ps.records) {
						o = obs[i]
					}
				} else if at := r.At(file, w.at); len(at) == 1 {
					o = at[0]
				}
				name := itoa(w.at)
				if o == nil {
					c.Check(name+"/read", false, "%s: record %d not read as one observation", ps.file, w.at)
					continue
				}
				c.Check(name+"/format", o.Format == ps.format, "format %q, want %q", o.Format, ps.format)
				c.Check(name+"/tier", o.Tier == ps.tier, "tier %s, want %s", o.Tier, ps.tier)
				c.Check(name+"/method", o.Method == w.method, "method %q, want %q", o.Method, w.method)
				c.Check(name+"/route", o.Route == w.route, "route %q, want %q", o.Route, w.route)
				c.Check(name+"/status", o.Status == w.status, "status %d, want %d", o.Status, w.status)
				if w.ok {
					c.Check(name+"/outcome", o.Outcome == model.OutcomeOK, "outcome %s, want ok", o.Outcome)
				} else {
					c.Check(name+"/outcome", o.Outcome != model.OutcomeOK && !o.Responded(), "outcome %s: no response reached the client", o.Outcome)
				}
				c.Check(name+"/ids", o.RequestID == "" && o.Key == "", "request id %q, key %q: the sample logs neither", o.RequestID, o.Key)
				if w.duration >= 0 {
					d := o.Duration - w.duration
					c.Check(name+"/duration", d > -time.Microsecond && d < time.Microsecond, "duration %s, want %s", o.Duration, w.duration)
				}
				if !w.start.IsZero() {
					d := o.Time.Sub(w.start)
					c.Check(name+"/time", d > -time.Millisecond && d < time.Millisecond, "start %s, want %s",
						o.Time.UTC().Format(time.RFC3339Nano), w.start.Format(time.RFC3339Nano))
				}
			}
			// No request id, no key: the correlator makes no delivery of such
			// a line (correlate.Correlator.add), and never one of two clients.
			c.Check("set/deliveries", r.Set.DeliveryCount() == 0, "%d deliveries from %d records that carry no id", r.Set.DeliveryCount(), len(ps.records))
			c.Check("set/intents", r.Set.IntentCount() == 0, "%d intents from no key", r.Set.IntentCount())
		})
	}
}
