package appharness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/internal/harness"
	"github.com/idem-cli/idem/load"
	"github.com/idem-cli/idem/model"
	"github.com/tidwall/gjson"
)

// Two backends behind a real nginx that passes the client's X-Request-Id
// on (or makes one): slog's service takes it, zerolog's hlog makes its own,
// so the proxy's id and the server's never meet.

// nginxHTTP is the http block of nginx's configuration (harness.RunNginx
// writes the rest).
const nginxHTTP = `  map $http_x_request_id $rid { default $http_x_request_id; "" $request_id; }
  log_format idem escape=json '{"time_iso8601":"$time_iso8601","msec":"$msec","request_id":"$rid",'
    '"http_idempotency_key":"$http_idempotency_key","request_method":"$request_method",'
    '"request_uri":"$request_uri","status":"$status","request_time":"$request_time",'
    '"upstream_addr":"$upstream_addr","upstream_status":"$upstream_status",'
    '"upstream_response_time":"$upstream_response_time","remote_addr":"$remote_addr"}';
  access_log %[2]s/access.jsonl idem;
  server {
    listen 127.0.0.1:%[3]d;
    location / {
      proxy_pass %[4]s;
      proxy_http_version 1.1;
      proxy_set_header X-Request-Id $rid;
      add_header X-Request-Id $rid always;
      proxy_read_timeout 30s;
      proxy_next_upstream off;
    }
  }
`

// NginxLog is the name of nginx's access log in a capture folder.
const NginxLog = "nginx.jsonl"

func startNginx(t *testing.T, upstream, accessLog string) (string, func()) {
	t.Helper()
	n := harness.RunNginx(t, func(dir string, port int) string { return fmt.Sprintf(nginxHTTP, "", dir, port, upstream) })
	stop := func() {
		n.Stop()
		b, err := os.ReadFile(filepath.Join(n.Dir, "access.jsonl"))
		if err != nil {
			t.Errorf("nginx wrote no access log: %v", err)
			return
		}
		if err := os.WriteFile(accessLog, b, 0o644); err != nil {
			t.Error(err)
		}
	}
	return n.URL, stop
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
			logPath, ledger, proxyLog := filepath.Join(dir, AppLog), filepath.Join(dir, "ledger.jsonl"), filepath.Join(dir, NginxLog)
			upstream, stopBackend := b.start(t, logPath, ledger)
			base, stopNginx := startNginx(t, upstream, proxyLog)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			steps := Scenario("nginx-" + b.library)
			sent, err := Drive(ctx, base, steps, ledger)
			if err != nil {
				stopNginx()
				stopBackend()
				t.Fatal(err)
			}
			for _, s := range steps {
				if _, err := WaitLedger(ctx, ledger, s.Name); err != nil {
					t.Fatal(err)
				}
			}
			stopNginx()
			stopBackend()
			done, err := ReadLedger(ledger)
			if err != nil {
				t.Fatal(err)
			}
			c := &Capture{Library: b.library, Format: b.format, Sent: sent, Done: done, Log: logPath}
			if *update {
				out := filepath.Join(fixturesDir, "nginx-"+b.library)
				if err := os.MkdirAll(out, 0o755); err != nil {
					t.Fatal(err)
				}
				for _, name := range []string{AppLog, NginxLog} {
					data, err := os.ReadFile(filepath.Join(dir, name))
					if err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(out, name), data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				if err := c.Save(out); err != nil {
					t.Fatal(err)
				}
			}
			checkProxied(t, c, proxyLog)
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
			c, err := LoadCapture(dir, AppLog)
			if err != nil {
				t.Fatalf("%v (go test ./internal/appharness -run TestBehindNginx -update writes it)", err)
			}
			checkProxied(t, c, filepath.Join(dir, NginxLog))
		})
	}
}

// checkProxied asserts that idem reads each trip through nginx as one
// delivery: nginx's line (tier, status, upstream status, the client's
// going away) with the server's access and effect lines.
func checkProxied(t testing.TB, c *Capture, proxyLog string) {
	t.Helper()
	prof := profiles[c.Library]
	f := newFacts(t, "nginx-"+c.Library)
	r := readLogs(t, proxyLog, c.Log)
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
	for _, s := range c.Sent {
		d := done[s.Name]
		rid := s.RequestID
		if rid == "" {
			rid = s.ResponseRequestID // nginx's own $request_id, sent back
		}
		if rid == "" {
			// The client gave up before nginx answered: its id is in the log.
			t.Fatalf("step %s: no request id known for it", s.Name)
		}
		pl := r.find(proxyLog, []string{"request_id"}, rid, func(gjson.Result) bool { return true })
		if len(pl) != 1 {
			t.Fatalf("step %s: %d nginx lines with request id %s, want 1", s.Name, len(pl), rid)
		}
		o := r.obs[pl[0].src]
		where := fmt.Sprintf("step %s, %s: %s", s.Name, pl[0].src, pl[0].text)
		f.expect("proxy-read", o != nil, "the nginx line is not read; %s", where)
		if o == nil {
			continue
		}
		f.expect("proxy-tier", o.Tier == model.TierProxy && o.Format == "nginx", "tier %s format %q, want proxy nginx; %s", o.Tier, o.Format, where)
		if s.TimedOut {
			// nginx's default: it sees the client go, logs 499 and closes
			// the upstream connection; the server finishes regardless.
			f.expect("proxy-status", o.Outcome == model.OutcomeClientClosed,
				"outcome %s status %d, want client_closed; %s", o.Outcome, o.Status, where)
		} else {
			f.expect("proxy-status", o.Status == s.Status, "status %d, want %d; %s", o.Status, s.Status, where)
		}
		access := r.find(c.Log, prof.idPaths, d.RequestID, isAccessLine)
		effect := r.find(c.Log, prof.idPaths, d.RequestID, isEffectLine)
		if len(access) != 1 || len(effect) != 1 {
			t.Fatalf("step %s: %d access and %d effect lines with request id %s, want 1 each", s.Name, len(access), len(effect), d.RequestID)
		}
		del := dels[rid]
		f.expect("delivery", del != nil, "no delivery %s; %s", rid, where)
		if del != nil {
			srcs := sources(del)
			f.expect("join", slices.Contains(srcs, pl[0].src) && slices.Contains(srcs, access[0].src) && slices.Contains(srcs, effect[0].src),
				"delivery %s holds %v, want nginx's %s, the server's %s and %s (the server named it %s)",
				rid, srcs, pl[0].src, access[0].src, effect[0].src, d.RequestID)
		}
	}
	f.expect("deliveries", r.set.DeliveryCount() == len(c.Sent),
		"%d deliveries, want %d (one per trip): %v", r.set.DeliveryCount(), len(c.Sent), ids(dels))
}

// TestBehindNginxNamesTheSplit: behind nginx, zerolog's
// hlog.RequestIDHandler makes its own xid, so the proxy's and the server's
// ids never meet; idem says so (request-id-not-propagated) for the keys
// the harness sent, and not for slog, which reads the header.
func TestBehindNginxNamesTheSplit(t *testing.T) {
	for lib, want := range map[string]bool{"zerolog": true, "slog": false} {
		dir := filepath.Join(fixturesDir, "nginx-"+lib)
		c, err := LoadCapture(dir, AppLog)
		if err != nil {
			t.Fatal(err)
		}
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
		var sentKeys []string
		for _, s := range c.Sent {
			if s.Key != "" && !slices.Contains(sentKeys, s.Key) {
				sentKeys = append(sentKeys, s.Key)
			}
		}
		for _, k := range found.Keys {
			if !slices.Contains(sentKeys, k) {
				t.Errorf("%s: the finding names key %s, which the harness never sent", lib, k)
			}
		}
		if len(found.Keys) == 0 {
			t.Errorf("%s: the finding names no key", lib)
		}
	}
}
