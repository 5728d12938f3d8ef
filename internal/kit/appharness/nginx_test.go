package appharness

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/internal/kit/capture"
	"github.com/idem-cli/idem/load"
	"github.com/idem-cli/idem/model"
	"github.com/tidwall/gjson"
)

// Two backends behind a real nginx that passes the client's X-Request-Id
// on (or makes one): slog's service takes it, zerolog's hlog makes its own,
// so the proxy's id and the server's never meet.

// nginxHTTP is the http block of nginx's configuration (the capture kit
// writes the rest, with the access log): the id nginx passes on ($req_id,
// the client's or its own) goes to the backend and back to the client.
const nginxHTTP = `  server {
    listen 127.0.0.1:%[1]d;
    location / {
      proxy_pass %[2]s;
      proxy_http_version 1.1;
      proxy_set_header X-Request-Id $req_id;
      add_header X-Request-Id $req_id always;
      proxy_read_timeout 30s;
      proxy_next_upstream off;
    }
  }
`

// NginxLog is the name of nginx's access log in a capture folder.
const NginxLog = "nginx.jsonl"

func startNginx(t *testing.T, upstream string) *capture.Proxy {
	t.Helper()
	return capture.StartNginx(t, capture.NginxConfig{
		Logs: []capture.AccessLog{{File: NginxLog, Format: capture.NginxJSONPassedOn}},
		HTTP: func(port int) string { return fmt.Sprintf(nginxHTTP, port, upstream) },
	})
}

// proxied are the backends run behind nginx.
var proxied = []backend{
	{library: "slog", format: "slog", start: slogBackend},
	{library: "zerolog", format: "zerolog", start: zerologBackend},
}

// TestBehindNginx drives the scenario through nginx and checks that each
// trip is one delivery from the proxy's line to the server's.
func TestBehindNginx(t *testing.T) {
	for _, b := range proxied {
		t.Run(b.library, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			logPath, ledger := filepath.Join(dir, AppLog), filepath.Join(dir, "ledger.jsonl")
			upstream, stopBackend := b.start(t, logPath, ledger)
			n := startNginx(t, upstream)
			stop := sync.OnceFunc(func() { n.Stop(); stopBackend() })
			defer stop()
			c := &captureRecord{Library: b.library, Format: b.format}
			c.Sent, c.Done = drive(t, n.URL, scenario("nginx-"+b.library), ledger, stop)
			folder := capture.Folder{Logs: map[string]string{AppLog: logPath, NginxLog: n.Log(NginxLog)}, RecordName: captureFile, Record: c}
			folder.Keep(t, filepath.Join(fixturesDir, "nginx-"+b.library), *update, func(t *testing.T, dir string) {
				checkProxied(t, loadCapture(t, dir), filepath.Join(dir, NginxLog))
			})
		})
	}
}

// TestBehindNginxFixtures checks the committed captures the same way.
func TestBehindNginxFixtures(t *testing.T) {
	if *update {
		t.Skip("rewriting the fixtures")
	}
	for _, b := range proxied {
		t.Run(b.library, func(t *testing.T) {
			dir := filepath.Join(fixturesDir, "nginx-"+b.library)
			capture.Recorded(t, dir, captureFile, "go test ./internal/kit/appharness -run TestBehindNginx -update")
			checkProxied(t, loadCapture(t, dir), filepath.Join(dir, NginxLog))
		})
	}
}

// checkProxied asserts that idem reads each trip through nginx as one
// delivery: nginx's line (tier, status, upstream status, the client's
// going away) with the server's access and effect lines.
func checkProxied(t testing.TB, c *captureRecord, proxyLog string) {
	t.Helper()
	prof := profiles[c.Library]
	f := knownGaps.Facts(t, "nginx-"+c.Library)
	r := capture.MustRead(t, proxyLog, c.Log)
	done := ledgerBySteps(c.Done)
	dels := r.Deliveries(sentKeys(c.Sent))
	for _, s := range c.Sent {
		d := done[s.Step]
		rid := s.RequestID
		if rid == "" {
			rid = s.ResponseRequestID // nginx's own $request_id, sent back
		}
		if rid == "" {
			// The client gave up before nginx answered: its id is in the log.
			t.Fatalf("step %s: no request id known for it", s.Step)
		}
		pl := r.Find(proxyLog, []string{"request_id"}, rid, func(gjson.Result) bool { return true })
		if len(pl) != 1 {
			t.Fatalf("step %s: %d nginx lines with request id %s, want 1", s.Step, len(pl), rid)
		}
		o := r.Of(pl[0].Src)
		where := fmt.Sprintf("step %s, %s: %s", s.Step, pl[0].Src, pl[0].Text)
		f.Check("proxy-read", o != nil, "the nginx line is not read; %s", where)
		if o == nil {
			continue
		}
		f.Check("proxy-tier", o.Tier == model.TierProxy && o.Format == "nginx", "tier %s format %q, want proxy nginx; %s", o.Tier, o.Format, where)
		if s.Ended == capture.EndedTimeout {
			// nginx's default: it sees the client go, logs 499 and closes
			// the upstream connection; the server finishes regardless.
			f.Check("proxy-status", o.Outcome == model.OutcomeClientClosed,
				"outcome %s status %d, want client_closed; %s", o.Outcome, o.Status, where)
		} else {
			f.Check("proxy-status", o.Status == s.Status, "status %d, want %d; %s", o.Status, s.Status, where)
		}
		access := r.Find(c.Log, prof.idPaths, d.RequestID, isAccessLine)
		effect := r.Find(c.Log, prof.idPaths, d.RequestID, isEffectLine)
		if len(access) != 1 || len(effect) != 1 {
			t.Fatalf("step %s: %d access and %d effect lines with request id %s, want 1 each", s.Step, len(access), len(effect), d.RequestID)
		}
		del := dels[rid]
		f.Check("delivery", del != nil, "no delivery %s; %s", rid, where)
		if del != nil {
			srcs := capture.Sources(del)
			f.Check("join", slices.Contains(srcs, pl[0].Src) && slices.Contains(srcs, access[0].Src) && slices.Contains(srcs, effect[0].Src),
				"delivery %s holds %v, want nginx's %s, the server's %s and %s (the server named it %s)",
				rid, srcs, pl[0].Src, access[0].Src, effect[0].Src, d.RequestID)
		}
	}
	f.Check("deliveries", r.Set.DeliveryCount() == len(c.Sent),
		"%d deliveries, want %d (one per trip): %v", r.Set.DeliveryCount(), len(c.Sent), capture.IDs(dels))
}

// TestBehindNginxNamesTheSplit: behind nginx, zerolog's
// hlog.RequestIDHandler makes its own xid, so the proxy's and the server's
// ids never meet; idem says so (request-id-not-propagated) for the keys
// the harness sent, and not for slog, which reads the header.
func TestBehindNginxNamesTheSplit(t *testing.T) {
	for lib, want := range map[string]bool{"zerolog": true, "slog": false} {
		dir := filepath.Join(fixturesDir, "nginx-"+lib)
		c := loadCapture(t, dir)
		set, err := load.Files(context.Background(), []string{filepath.Join(dir, NginxLog), c.Log}, load.Options{Read: ingest.Options{}, Build: diagnose.DefaultOptions().Build()})
		if err != nil {
			t.Fatal(err)
		}
		var found *diagnose.Finding
		for _, f := range diagnose.Run(set, diagnose.DefaultOptions()).Findings {
			if f.Rule.ID == "request-id-not-propagated" {
				found = f
			}
		}
		if (found != nil) != want {
			t.Errorf("%s behind nginx: request-id-not-propagated found %v, want %v", lib, found != nil, want)
			continue
		}
		if found == nil {
			continue
		}
		keys := sentKeys(c.Sent)
		for _, k := range found.Keys {
			if !slices.Contains(keys, k) {
				t.Errorf("%s: the finding names key %s, which the harness never sent", lib, k)
			}
		}
		if len(found.Keys) == 0 {
			t.Errorf("%s: the finding names no key", lib)
		}
	}
}
