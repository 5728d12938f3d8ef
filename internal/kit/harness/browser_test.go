package harness

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/internal/kit/capture"
	"github.com/idem-cli/idem/model"
)

// browserFetches is what the page does: keyed fetches that end each way a
// browser sees, the last one after the proxy has stopped.
func browserFetches() []fetch {
	k1, k2, k3, k4, k5 := capture.NewID(), capture.NewID(), capture.NewID(), capture.NewID(), capture.NewID()
	return []fetch{
		{Step: Step{Name: "created", Key: k1, Path: "/v1/orders", End: EndCreated}},
		// A read of what was created: its body carries the id too, but a
		// GET makes no effect.
		{Step: Step{Name: "read-back", Method: "GET", Path: "/v1/orders/ord_1", End: endRead}},
		{Step: Step{Name: "retry-1-timeout", Key: k2, Path: "/v1/orders?delay=1200ms", Timeout: 400 * time.Millisecond, End: EndClientTimeout}},
		{Step: Step{Name: "retry-2-replayed", Key: k2, Path: "/v1/orders", End: EndCreated}},
		{Step: Step{Name: "abort", Key: k3, Path: "/v1/orders?delay=1000ms", Abort: true, End: endClientAbort}, AbortAfter: 300 * time.Millisecond},
		{Step: Step{Name: "server-error", Key: k4, Path: "/v1/orders?fail=500", End: EndServerError}},
		{Step: Step{Name: "refused", Key: k5, Path: "/v1/orders", End: EndRefused}, Pause: "stop-proxy"},
	}
}

// checkFetches waits until the backend has logged every write it
// received, says which fetches reached it, and makes sure each ended the
// way the harness meant it to: otherwise the expectations derived from
// them would be wrong, whatever idem reads.
func checkFetches(t *testing.T, b *Backend, sent []capture.Sent) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var received []string
	for _, h := range b.Hits() {
		if h.Method == "POST" { // the page's own GET is not logged
			received = append(received, h.RequestID)
		}
	}
	if _, err := capture.WaitFor(ctx, b.LogPath, received...); err != nil {
		t.Fatal(err)
	}
	for i := range sent {
		s := &sent[i]
		s.Reached = b.Received(s.RequestID)
		t.Logf("fetch %-17s %s %-26s -> status %d %s (%s) backend=%v", s.Step, s.RequestID, s.Path, s.Status, s.Error,
			s.Elapsed(), s.Reached)
		ok := true
		switch EndOf(*s) {
		case EndCreated:
			ok = s.Status == 201 && s.ResultID != "" && s.Reached
		case EndServerError:
			ok = s.Status == 500 && s.Reached
		case endRead:
			ok = s.Status == 200 && s.Reached
		case EndClientTimeout:
			ok = strings.HasPrefix(s.Error, "TimeoutError") && s.Reached
		case endClientAbort:
			ok = strings.HasPrefix(s.Error, "AbortError") && s.Reached
		case EndRefused:
			ok = strings.HasPrefix(s.Error, "TypeError") && !s.Reached
		}
		if !ok {
			t.Fatalf("fetch %s did not end as %s: status %d, error %q, reached the backend %v", s.Step, s.Meant, s.Status, s.Error, s.Reached)
		}
	}
}

func TestChromium(t *testing.T) {
	ch := findChromium(t)
	b := StartBackend(t)
	n := startNginx(t, b.Addr, Down(t))
	har := filepath.Join(t.TempDir(), "chromium.har")
	sent := ch.record(t, n.URL+"/", har, browserFetches(), func(what string) {
		if what != "stop-proxy" {
			t.Fatalf("har.mjs asked for %q", what)
		}
		n.Stop() // graceful: nginx logs what it was serving first
	})
	checkFetches(t, b, sent)
	run := run{
		Software: capture.Version("chromium", ch.Executable, "--version") + ", playwright-core " + playwrightVersion(t, ch),
		Logs:     []runLog{{File: "chromium.har", Capture: "chromium", Format: "har"}},
		Also:     []string{nginxJSONLog}, BackendLog: "app.jsonl", Sent: sent,
	}
	logs := map[string]string{"chromium.har": har, nginxJSONLog: n.Log(nginxJSONLog), "app.jsonl": b.LogPath}
	keep(t, "chromium", run, logs, "", "", verifyBrowserRun)
}

// TestChromiumLargeHAR records a HAR past the reader's 16 MiB line limit:
// Playwright writes the whole document on one line, and a page that
// fetched a large response embeds it. The keyed POST after it must still
// be read. The capture is not recorded: it is large.
func TestChromiumLargeHAR(t *testing.T) {
	ch := findChromium(t)
	b := StartBackend(t)
	n := startNginx(t, b.Addr, Down(t))
	har := filepath.Join(t.TempDir(), "large.har")
	fetches := []fetch{
		{Step: Step{Name: "large-read", Method: "GET", Path: "/v1/blob?bytes=17000000", End: endRead}},
		{Step: Step{Name: "created", Key: capture.NewID(), Path: "/v1/orders", End: EndCreated}},
	}
	sent := ch.record(t, n.URL+"/", har, fetches, func(string) {})
	for i := range sent {
		sent[i].Reached = b.Received(sent[i].RequestID)
	}
	if sent[0].Status != 200 || sent[1].Status != 201 {
		t.Fatalf("the fetches did not end as planned: %+v", sent)
	}
	fi, err := os.Stat(har)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() <= 16<<20 {
		t.Fatalf("the HAR is %d bytes, not past the 16 MiB line limit", fi.Size())
	}
	n.Stop()
	// Only the HAR is read here (the point is its size): no proxy or
	// backend log is there to join, whatever reached them.
	for i := range sent {
		sent[i].Reached = false
	}
	run := run{Software: "chromium", Logs: []runLog{{File: "large.har", Capture: "chromium-large", Format: "har"}}, Sent: sent}
	dir := t.TempDir()
	run.folder(map[string]string{"large.har": har}).Save(t, dir)
	verifyBrowserRun(t, dir, run)
}

func playwrightVersion(t *testing.T, ch *chromium) string {
	b, err := os.ReadFile(filepath.Join(filepath.Dir(ch.Script), "node_modules", "playwright-core", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var p struct{ Version string }
	_ = json.Unmarshal(b, &p)
	return p.Version
}

// harEntry is what the harness reads from a HAR itself, to find each
// fetch's entry without idem.
type harEntry struct {
	Method, RequestID string
}

func readHAR(t *testing.T, path string) []harEntry {
	t.Helper()
	var doc struct {
		Log struct {
			Entries []struct {
				Request struct {
					Method  string
					Headers []struct{ Name, Value string }
				}
			}
		}
	}
	capture.ReadJSON(t, path, &doc)
	var out []harEntry
	for _, e := range doc.Log.Entries {
		he := harEntry{Method: e.Request.Method}
		for _, h := range e.Request.Headers {
			if strings.EqualFold(h.Name, "X-Request-Id") {
				he.RequestID = h.Value
			}
		}
		out = append(out, he)
	}
	return out
}

// What the page saw, in idem's model: a fetch the page gave up on is
// aborted at the network level whatever the page's reason (Chromium
// records a timeout of AbortSignal.timeout as net::ERR_ABORTED).
func wantBrowserOutcomes(e end) []model.Outcome {
	switch e {
	case EndCreated, EndServerError, endRead:
		return []model.Outcome{model.OutcomeOK}
	case EndClientTimeout:
		return []model.Outcome{model.OutcomeTimeout, model.OutcomeAborted}
	case endClientAbort:
		return []model.Outcome{model.OutcomeAborted}
	case EndRefused:
		return []model.Outcome{model.OutcomeNotDelivered}
	}
	return nil
}

// verifyBrowserRun checks what idem reads from the browser's HAR, alone
// and joined with the proxy's and backend's logs of the same fetches.
func verifyBrowserRun(t *testing.T, dir string, run run) {
	for _, l := range run.Logs {
		t.Run(l.Capture, func(t *testing.T) {
			file := filepath.Join(dir, l.File)
			c := knownGaps.Facts(t, l.Capture)
			entries := readHAR(t, file)
			r := capture.MustRead(t, file)
			in := r.Input(file)
			if in == nil {
				t.Fatalf("no summary for %s", file)
			}
			if l.Format != "" {
				c.Check("input/format", in.Format == l.Format, "read as %q, want %q", in.Format, l.Format)
			}
			c.Check("input/skipped", in.Skipped == 0, "%d skipped: %v", in.Skipped, in.SkipSamples)
			obs := r.From(file)
			c.Check("input/entries", len(obs) == len(entries), "%d observations from %d entries", len(obs), len(entries))
			sources := map[string]string{}
			for _, s := range run.Sent {
				i := slices.IndexFunc(entries, func(e harEntry) bool { return e.RequestID == s.RequestID })
				if i < 0 {
					t.Fatalf("the HAR has no entry with request id %s (fetch %s): the capture is broken, not idem", s.RequestID, s.Step)
				}
				if len(obs) != len(entries) {
					continue
				}
				o := obs[i]
				at := func(fact string) string { return s.Step + "/" + fact }
				end := EndOf(s)
				raw := "entries[" + itoa(i) + "]"
				c.Check(at("tier"), o.Tier == model.TierClient, "tier %s, want client: %s", o.Tier, raw)
				c.Check(at("request_id"), o.RequestID == s.RequestID, "request id %q, want %q: %s", o.RequestID, s.RequestID, raw)
				c.Check(at("key"), o.Key == s.Key, "key %q, want %q: %s", o.Key, s.Key, raw)
				c.Check(at("method"), o.Method == s.HTTPMethod(), "method %q, want %s: %s", o.Method, s.HTTPMethod(), raw)
				c.Check(at("route"), o.Route == s.Route(), "route %q, want %q: %s", o.Route, s.Route(), raw)
				ws := 0
				switch end {
				case EndCreated:
					ws = 201
				case EndServerError:
					ws = 500
				case endRead:
					ws = 200
				}
				c.Check(at("status"), o.Status == ws, "status %d, want %d (%s): %s", o.Status, ws, end, raw)
				wo := wantBrowserOutcomes(end)
				c.Check(at("outcome"), slices.Contains(wo, o.Outcome), "outcome %s (detail %q), want %v (%s): %s", o.Outcome, o.Detail, wo, end, raw)
				if end == EndRefused {
					c.Check(at("detail"), strings.Contains(o.Detail, "ERR_CONNECTION_REFUSED"), "detail %q, want net::ERR_CONNECTION_REFUSED: %s", o.Detail, raw)
				}
				// Only a write's response names the effect it made.
				wr := s.ResultID
				if s.HTTPMethod() == "GET" {
					wr = ""
				}
				c.Check(at("result_id"), o.ResultID == wr, "result id %q, want %q (%s %s): %s", o.ResultID, wr, s.HTTPMethod(), s.Route(), raw)
				d := o.Time.Sub(s.Start)
				c.Check(at("time"), d > -time.Second && d < time.Second, "start %s, the page started it at %s: %s",
					o.Time.UTC().Format(time.RFC3339Nano), s.Start.UTC().Format(time.RFC3339Nano), raw)
				src := o.Source.String()
				c.Check(at("source"), sources[src] == "", "cites %s, as does fetch %s: a person cannot find the entry", src, sources[src])
				if sources[src] == "" {
					sources[src] = s.Step
				}
			}
			verifyBrowserJoins(c, dir, run, file)
		})
	}
}

// verifyBrowserJoins reads the HAR with the proxy's and the backend's
// logs: each key is one intent holding exactly its fetches, and each
// fetch one delivery holding the page's entry, the proxy's line unless
// the connection was refused, and the backend's lines when it got there.
func verifyBrowserJoins(c *capture.Facts, dir string, run run, har string) {
	paths := []string{har}
	for _, a := range run.Also {
		paths = append(paths, filepath.Join(dir, a))
	}
	if run.BackendLog != "" {
		paths = append(paths, filepath.Join(dir, run.BackendLog))
	}
	r, err := capture.Read(context.Background(), paths...)
	if err != nil {
		c.Errorf("read %v: %v", paths, err)
		return
	}
	verifyJoins(c, r, run.Sent, func(s capture.Sent) map[model.Tier]bool {
		// A run without the proxy's log has none to join.
		proxied := EndOf(s) != EndRefused && len(run.Also) > 0
		return map[model.Tier]bool{model.TierClient: true, model.TierProxy: proxied, model.TierServer: s.Reached}
	})
}

func itoa(i int) string { return strconv.Itoa(i) }
