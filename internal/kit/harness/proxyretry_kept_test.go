package harness

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/internal/kit/capture"
	"github.com/idem-cli/idem/model"
)

// A capture of a proxy's own retry (proxyretry_haproxy_test.go,
// proxyretry_caddy_test.go) is kept as fixtures/real/proxy-retry-*: the
// proxy's access log and config, each instance's log (app1.jsonl,
// app2.jsonl) and proxyretry.json, the record of what the client sent and
// what each instance received and made. What idem must say comes from
// that record.

// proxyRetryRecord is the record's name in a capture's folder.
const proxyRetryRecord = "proxyretry.json"

// proxyRetryRun is a proxy-retry capture's record.
type proxyRetryRun struct {
	Software string `json:"software"`
	Proxy    string `json:"proxy"` // "HAProxy", "Caddy"
	Log      string `json:"log"`   // the proxy's access log, in the folder
	// LogsTries says the proxy's line counts its upstream attempts
	// (HAProxy's %rc); Caddy's counts none.
	LogsTries bool                 `json:"logs_tries"`
	Sent      capture.Sent         `json:"sent"`
	Instances []proxyRetryInstance `json:"instances"`
}

// proxyRetryInstance is what one instance of the order service received
// and the orders its own store made.
type proxyRetryInstance struct {
	Log    string   `json:"log"`
	Hits   []hit    `json:"hits"`
	Orders []string `json:"orders"`
}

// keepProxyRetry records the capture of p (stopped) in front of the
// instances, checks it with verifyProxyRetry, and with -update writes it
// as fixtures/real/name. It returns the diagnosis.
func keepProxyRetry(t *testing.T, name, proxy string, logsTries bool, p *capture.Proxy, log string, sent capture.Sent,
	instances ...*Backend) *diagnose.Result {
	t.Helper()
	run := proxyRetryRun{Software: p.Software(), Proxy: proxy, Log: log, LogsTries: logsTries, Sent: sent}
	logs := map[string]string{log: p.Log(log)}
	for i, b := range instances {
		file := fmt.Sprintf("app%d.jsonl", i+1)
		run.Instances = append(run.Instances, proxyRetryInstance{Log: file, Hits: b.Hits(), Orders: b.createdOrders()})
		logs[file] = b.LogPath
	}
	for _, path := range logs {
		if b, err := os.ReadFile(path); err == nil {
			t.Logf("%s:\n%s", path, b)
		}
	}
	f := capture.Folder{Logs: logs, Texts: map[string]string{p.ConfigName(): p.Config()}, RecordName: proxyRetryRecord, Record: run}
	var res *diagnose.Result
	f.Keep(t, filepath.Join(realDir, name), *update, func(t *testing.T, dir string) { res = verifyProxyRetry(t, dir, run) })
	return res
}

// TestRecordedProxyRetry checks the committed proxy-retry captures.
func TestRecordedProxyRetry(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(realDir, "proxy-retry-*"))
	if len(dirs) == 0 {
		t.Fatalf("no proxy-retry capture under %s (go test ./internal/kit/harness -run TestProxyRetry -update records them)", realDir)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			capture.Recorded(t, dir, proxyRetryRecord, "go test ./internal/kit/harness -run TestProxyRetry -update")
			var run proxyRetryRun
			b, err := os.ReadFile(filepath.Join(dir, proxyRetryRecord))
			if err == nil {
				err = json.Unmarshal(b, &run)
			}
			if err != nil {
				t.Fatal(err)
			}
			verifyProxyRetry(t, dir, run)
		})
	}
}

// verifyProxyRetry checks what idem says of the capture in dir against
// its record. Every request the instances received must be the client's
// one request, under one request id and its key. Where the proxy sent it
// to the server more than once and the instances made two orders or
// more, proxy-retry is critical and names the request id and every
// order; where it sent it more than once and one order was made, a
// warning where the proxy's line counts its attempts (nothing can be
// claimed where it does not); where it sent it once, proxy-retry does not
// fire. A proxy's own retry is never the client reusing its request id.
// Where the line counts attempts, idem reads as many as the instances
// received; where it does not, none.
func verifyProxyRetry(t *testing.T, dir string, run proxyRetryRun) *diagnose.Result {
	t.Helper()
	var hits []hit
	var orders []string
	paths := []string{filepath.Join(dir, run.Log)}
	for _, in := range run.Instances {
		hits = append(hits, in.Hits...)
		orders = append(orders, in.Orders...)
		paths = append(paths, filepath.Join(dir, in.Log))
	}
	if len(hits) == 0 || run.Sent.Key == "" {
		t.Fatalf("the record shows no request received: %+v", run)
	}
	rid := hits[0].RequestID
	for _, h := range hits {
		if h.RequestID == "" || h.RequestID != rid || h.Key != run.Sent.Key {
			t.Fatalf("the instances received another request than the client's one (key %s): %+v", run.Sent.Key, hits)
		}
	}
	want := "none"
	switch {
	case len(hits) > 1 && len(orders) > 1:
		want = diagnose.Critical.String()
	case len(hits) > 1 && run.LogsTries:
		want = diagnose.Warning.String()
	case len(hits) > 1:
		want = "" // not checked: no log can tell
	}
	res := diagnoseFiles(t, paths)
	got := "none"
	for _, f := range res.Findings {
		if !slices.Contains(f.Keys, run.Sent.Key) {
			continue
		}
		switch f.Rule.ID {
		case "proxy-retry":
			got = f.Severity.String()
			if !strings.Contains(f.Narrative, rid) {
				t.Errorf("%s's retry told without its request id %s: %s", run.Proxy, rid, f.Narrative)
			}
			for _, o := range orders {
				if len(orders) > 1 && !strings.Contains(f.Narrative, o) {
					t.Errorf("%s's retry told without the order %s: %s", run.Proxy, o, f.Narrative)
				}
			}
			for _, o := range f.Evidence {
				if o.Tier != model.TierProxy {
					continue
				}
				if tries := len(hits); run.LogsTries && o.UpstreamTries != tries || !run.LogsTries && o.UpstreamTries > 1 {
					t.Errorf("%s's line (%s) read as %d upstream tries; the instances received %d, and it counts them: %t", run.Proxy,
						o.Source, o.UpstreamTries, tries, run.LogsTries)
				}
			}
		case "request-id-reused":
			t.Errorf("%s's own retry of %s blamed on the client: %s", run.Proxy, rid, f.Narrative)
		}
	}
	if want != "" && got != want {
		t.Errorf("%s sent %s to the instances %d times, which made %v: proxy-retry %s, want %s", run.Proxy, rid, len(hits), orders, got, want)
	}
	checkProxyRetryLayer(t, res, run, len(hits), len(orders), want != "")
	return res
}

// checkProxyRetryLayer checks who idem says sent the key's retries: the
// client sent once, so where the proxy sent the request more than once
// its one retry is the proxy's, a duplicate where the instances made
// more than one order, and no other layer sent any; where the proxy sent
// it once, nobody retried. checked false: no log can tell the proxy's
// second send, and only that no other layer is named is checked.
func checkProxyRetryLayer(t *testing.T, res *diagnose.Result, run proxyRetryRun, hits, orders int, checked bool) {
	t.Helper()
	var proxy []diagnose.Retry
	for _, r := range res.Retries() {
		if r.Intent == nil || r.Intent.Key != run.Sent.Key {
			continue
		}
		if r.Layer != diagnose.LayerProxy {
			t.Errorf("the client sent %s once, and only %s resent it: a retry named %s's (%s)", run.Sent.Key, run.Proxy, r.Layer, r.Why)
			continue
		}
		proxy = append(proxy, r)
	}
	switch {
	case !checked:
	case hits > 1 && len(proxy) != 1:
		t.Errorf("%s sent the request %d times: %d retries named the proxy's, want 1: %+v", run.Proxy, hits, len(proxy), proxy)
	case hits > 1 && proxy[0].Duplicate != (orders > 1):
		t.Errorf("%s's retry, after which the instances had made %d orders, told as a duplicate: %t (%s)", run.Proxy, orders, proxy[0].Duplicate, proxy[0].Why)
	case hits == 1 && len(proxy) != 0:
		t.Errorf("%s sent the request once: %d retries named the proxy's: %+v", run.Proxy, len(proxy), proxy)
	}
	for _, r := range proxy {
		t.Logf("retry by %s: %s (after %v, duplicate %t)", r.Layer, r.Why, r.After, r.Duplicate)
	}
}

// HAProxy's retries count connection retries too: in the recorded
// HAProxy captures a POST to a server that refused every connection ends
// SC-- after 3 retries, and never reached a server. No request the
// backend did not receive is a proxy's own retry.
func TestProxyRetryNotForRefusedConnections(t *testing.T) {
	runs, _ := filepath.Glob(filepath.Join(realDir, "haproxy", "*", "run.json"))
	if len(runs) == 0 {
		t.Fatalf("no HAProxy capture under %s", realDir)
	}
	for _, r := range runs {
		dir := filepath.Dir(r)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			run, err := loadRun(dir)
			if err != nil {
				t.Fatal(err)
			}
			var paths []string
			for _, f := range run.files() {
				paths = append(paths, filepath.Join(dir, f))
			}
			refused := map[string]bool{}
			for _, s := range run.Sent {
				if !s.Reached && s.Key != "" && s.HTTPMethod() == http.MethodPost {
					refused[s.Key] = true
				}
			}
			if len(refused) == 0 {
				t.Fatalf("%s records no write that never reached the backend", dir)
			}
			res := diagnoseFiles(t, paths)
			for _, f := range res.Findings {
				for _, k := range f.Keys {
					if f.Rule.ID == "proxy-retry" && refused[k] {
						t.Errorf("proxy-retry fired for key %s, which never reached the backend: %s", k, f.Narrative)
					}
				}
			}
			for _, r := range res.Retries() {
				if r.Intent != nil && refused[r.Intent.Key] && r.Layer == diagnose.LayerProxy {
					t.Errorf("a retry of key %s, which never reached the backend, named the proxy's: %s", r.Intent.Key, r.Why)
				}
			}
		})
	}
}
