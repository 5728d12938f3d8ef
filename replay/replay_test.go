package replay

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/contract"
	"github.com/idem-cli/idem/gateway"
	"github.com/idem-cli/idem/model"
)

const body = `{"sku":"A-1","amount":4200}`

// startGateway runs a gateway and makes the original delivery of key k.
func startGateway(t *testing.T, opts gateway.Options, k string) (*httptest.Server, Original) {
	t.Helper()
	store, _ := gateway.OpenStore("")
	srv := httptest.NewServer(gateway.New(opts, store).Handler())
	t.Cleanup(srv.Close)
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/demo-requests", strings.NewReader(body))
	req.Header.Set("Idempotency-Key", k)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return srv, Original{Status: resp.StatusCode, ResultID: strings.Split(strings.Split(string(b), `"id":"`)[1], `"`)[0]}
}

func captured(k string) *model.Captured {
	return &model.Captured{Method: "POST", URL: "https://shop.example.com/v1/demo-requests?x=1", Key: k, HasBody: true, Body: []byte(body),
		Headers: []model.Header{{Name: "Content-Type", Value: "application/json"}, {Name: "Authorization", Value: "Bearer s3cr3t-token-value"},
			{Name: "Cookie", Value: "session=abc123"}, {Name: "X-Request-Id", Value: "old-id"}, {Name: "Idempotency-Key", Value: k}, {Name: "Host", Value: "shop.example.com"}},
		ResponseBody: []byte(`{"id":"dr_000001","status":"created"}`)}
}

func run(t *testing.T, srv *httptest.Server, orig Original, profile string, k string, probes ...string) *Result {
	t.Helper()
	target, _ := url.Parse(srv.URL)
	p, err := NewPlan(captured(k), k, orig, Options{Target: target, Profile: contract.Profiles[profile], Probes: probes,
		EffectsURL: srv.URL + "/v1/effects/count", Timeout: 5 * time.Second, Settle: 300 * time.Millisecond, Concurrency: 3})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Execute(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func failed(res *Result) []string {
	var out []string
	for _, a := range res.Assertions {
		if a.Status != Pass && a.Status != Skip {
			out = append(out, a.Probe+"/"+a.Name+": expected "+a.Expected+", got "+a.Actual)
		}
	}
	return out
}

func TestCorrectGatewayPassesEveryProbe(t *testing.T) {
	all := ProbeNames()
	for _, profile := range contract.Names() {
		t.Run(profile, func(t *testing.T) {
			t.Parallel()
			srv, orig := startGateway(t, gateway.Options{Profile: contract.Profiles[profile], Delay: 300 * time.Millisecond}, "k-"+profile)
			res := run(t, srv, orig, profile, "k-"+profile, all...)
			if f := failed(res); len(f) > 0 || res.Skipped > 0 {
				t.Fatalf("failed %v, skipped %d: %+v", f, res.Skipped, res.Assertions)
			}
			if res.Passed < 12 {
				t.Errorf("only %d assertions", res.Passed)
			}
		})
	}
}

func TestBrokenGatewaysFailTheirProbe(t *testing.T) {
	tests := []struct {
		name   string
		faults gateway.Faults
		probe  string
		fails  string // an assertion that must fail
	}{
		{"no-dedup fails the replay", gateway.Faults{NoDedup: true}, "", "/effects unchanged"},
		{"non-atomic fails concurrent", gateway.Faults{NonAtomic: true}, probeConcurrent, "concurrent/exactly one effect"},
		{"no-fingerprint fails mismatch", gateway.Faults{NoFingerprint: true}, probeMismatch, "mismatch/conflict status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, orig := startGateway(t, gateway.Options{Faults: tt.faults, NonAtomicWindow: 200 * time.Millisecond}, "k")
			var probes []string
			if tt.probe != "" {
				probes = []string{tt.probe}
			}
			res := run(t, srv, orig, "article", "k", probes...)
			found := false
			for _, f := range failed(res) {
				found = found || strings.HasPrefix(f, tt.fails)
			}
			if !found {
				t.Fatalf("%q did not fail: %v", tt.fails, res.Assertions)
			}
		})
	}
}

func TestFailAfterCommitPassesLostResponse(t *testing.T) {
	store, _ := gateway.OpenStore("")
	srv := httptest.NewServer(gateway.New(gateway.Options{Faults: gateway.Faults{FailAfterCommit: true}}, store).Handler())
	defer srv.Close()
	res := run(t, srv, Original{}, "article", "k", probeLostResponse)
	var lost []Assertion
	for _, a := range res.Assertions {
		if a.Probe == probeLostResponse {
			lost = append(lost, a)
		}
	}
	if len(lost) == 0 {
		t.Fatal("no lost-response assertions")
	}
	for _, a := range lost {
		if a.Status != Pass {
			t.Errorf("lost-response: %+v", a)
		}
	}
}

func TestBuild(t *testing.T) {
	target, _ := url.Parse("http://127.0.0.1:8080")
	ids := 0
	opts := Options{Target: target, NewID: func() string { ids++; return "fixed" }, Headers: []model.Header{{Name: "X-Extra", Value: "1"}}}
	r, err := build(captured("k-1"), "k-1", opts)
	if err != nil {
		t.Fatal(err)
	}
	if r.URL != "http://127.0.0.1:8080/v1/demo-requests?x=1" || r.Method != "POST" || string(r.Body) != body {
		t.Errorf("request %s %s %s", r.Method, r.URL, r.Body)
	}
	want := map[string]string{"Idempotency-Key": "k-1", "X-Request-Id": "idem-replay-fixed", "Content-Type": "application/json", "X-Extra": "1"}
	for name, v := range want {
		if r.Header.Get(name) != v {
			t.Errorf("%s = %q, want %q", name, r.Header.Get(name), v)
		}
	}
	for _, gone := range []string{"Authorization", "Cookie", "Host"} {
		if r.Header.Get(gone) != "" {
			t.Errorf("%s was kept", gone)
		}
	}
	opts.KeepAuth = true
	r, _ = build(captured("k-1"), "k-1", opts)
	if r.Header.Get("Authorization") == "" {
		t.Error("--keep-auth dropped Authorization")
	}
	curl := r.Curl()
	if strings.Contains(curl, "s3cr3t") || strings.Contains(curl, "abc123") || !strings.Contains(curl, "Idempotency-Key: k-1") {
		t.Errorf("curl line:\n%s", curl)
	}
	for _, bad := range []string{"", "ftp://x", "http://"} {
		u, _ := url.Parse(bad)
		if _, err := build(captured("k"), "k", Options{Target: u}); err == nil {
			t.Errorf("target %q accepted", bad)
		}
	}
}

// A redirect from the target (an edge's http→https or trailing-slash
// redirect) is not followed and tests nothing: inconclusive, naming where
// it points, and no probe is sent after it.
func TestRedirectsAreInconclusiveAndNotFollowed(t *testing.T) {
	hits := 0
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits++ }))
	defer other.Close()
	for _, c := range []struct {
		status   int
		location string
	}{
		{http.StatusTemporaryRedirect, other.URL + "/steal"},
		{http.StatusMovedPermanently, "https://127.0.0.1/v1/orders"}, // http → https
		{http.StatusPermanentRedirect, "/v1/orders/"},                // a trailing slash
	} {
		sent := 0
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sent++
			w.Header().Set("Location", c.location)
			w.WriteHeader(c.status)
		}))
		target, _ := url.Parse(srv.URL)
		p, err := NewPlan(captured("k"), "k", Original{Status: 201}, Options{Target: target, Profile: contract.Profiles["article"],
			Probes: ProbeNames()})
		if err != nil {
			t.Fatal(err)
		}
		res, err := p.Execute(context.Background(), nil)
		srv.Close()
		if err != nil {
			t.Fatal(err)
		}
		a := res.Assertions[0]
		if hits != 0 || sent != 1 || res.Verdict != VerdictInconclusive || a.Status != Inconclusive ||
			!strings.Contains(a.Actual, c.location) || res.Reason == nil || res.Reason.Kind != reasonRedirect || res.Reason.Location != c.location ||
			len(res.NotRun) != len(ProbeNames()) {
			t.Errorf("%d to %s: hits elsewhere %d, sent %d, verdict %s, %+v, reason %+v, not run %v; want inconclusive naming the location, one request",
				c.status, c.location, hits, sent, res.Verdict, a, res.Reason, res.NotRun)
		}
	}
}
