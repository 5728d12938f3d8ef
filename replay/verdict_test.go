package replay

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idem-cli/idem/contract"
	"github.com/idem-cli/idem/gateway"
	"github.com/idem-cli/idem/model"
)

// answering is a server that answers every request with status, body
// and headers, and counts the requests.
func answering(t *testing.T, status int, body string, header ...string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(status)
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func execute(t *testing.T, target string, c *model.Captured, orig Original, opts Options) *Result {
	t.Helper()
	u, _ := url.Parse(target)
	opts.Target = u
	if opts.Profile.Name == "" {
		opts.Profile = contract.Profiles["article"]
	}
	if opts.Timeout == 0 {
		opts.Timeout = 3 * time.Second
	}
	p, err := NewPlan(c, c.Key, orig, opts)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Execute(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestAnswersThatTestNothingAreInconclusive(t *testing.T) {
	tests := []struct {
		status int
		kind   string
	}{
		{401, ReasonCredentials}, {403, ReasonCredentials}, {407, ReasonCredentials},
		{404, ReasonRoute}, {405, ReasonRoute}, {421, ReasonRoute},
		{429, ReasonRateLimited},
		{502, ReasonUnavailable}, {503, ReasonUnavailable}, {504, ReasonUnavailable},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status), func(t *testing.T) {
			srv, hits := answering(t, tt.status, `{"error":"no"}`)
			res := execute(t, srv.URL, captured("k"), Original{Status: 201, ResultID: "dr_000001"},
				Options{Probes: []string{probeMismatch, probeConcurrent}, Concurrency: 2})
			if res.Verdict != VerdictInconclusive || res.Failed != 0 || res.Inconclusive != 1 {
				t.Fatalf("verdict %s: %v", res.Verdict, outcomes(res))
			}
			if res.Reason == nil || res.Reason.Kind != tt.kind || res.Reason.Status != tt.status {
				t.Errorf("reason %+v", res.Reason)
			}
			if hits.Load() != 1 || len(res.NotRun) != 2 {
				t.Errorf("%d requests sent, not run %v: the probes must not be sent after an inconclusive replay", hits.Load(), res.NotRun)
			}
			if tt.kind == ReasonCredentials && !slices.Equal(res.Reason.Dropped, []string{"Authorization", "Cookie"}) {
				t.Errorf("dropped %v", res.Reason.Dropped)
			}
		})
	}
}

func TestRefusedConnectionIsInconclusive(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	res := execute(t, "http://"+addr, captured("k"), Original{Status: 201}, Options{})
	if res.Verdict != VerdictInconclusive || res.Reason == nil || res.Reason.Kind != ReasonUnreachable {
		t.Fatalf("verdict %s, reason %+v", res.Verdict, res.Reason)
	}
}

// A 5xx after the contract answered is the server's answer: a failure.
func TestUnavailableAfterAContractAnswerFails(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.WriteHeader(201)
			w.Write([]byte(`{"id":"dr_000001"}`))
			return
		}
		w.WriteHeader(503)
	}))
	defer srv.Close()
	res := execute(t, srv.URL, captured("k"), Original{Status: 201, ResultID: "dr_000001"}, Options{Probes: []string{probeMismatch}})
	if res.Verdict != VerdictBroken || !hasOutcome(res, "FAIL", "mismatch/conflict status") {
		t.Fatalf("verdict %s: %v", res.Verdict, outcomes(res))
	}
}

func TestReplayMarkerIsOptionalUnlessRequired(t *testing.T) {
	srv, _ := answering(t, 201, `{"id":"dr_000001"}`)
	orig := Original{Status: 201, ResultID: "dr_000001"}
	res := execute(t, srv.URL, captured("k"), orig, Options{})
	if res.Verdict != VerdictHeld || !hasOutcome(res, "INFO", "/replay marker Idempotent-Replayed") || res.Info != 1 {
		t.Errorf("optional marker: %s %v", res.Verdict, outcomes(res))
	}
	res = execute(t, srv.URL, captured("k"), orig, Options{RequireMarker: true})
	if res.Verdict != VerdictBroken || !hasOutcome(res, "FAIL", "/replay marker Idempotent-Replayed") {
		t.Errorf("required marker: %s %v", res.Verdict, outcomes(res))
	}
	marked, _ := answering(t, 201, `{"id":"dr_000001"}`, "Idempotent-Replayed", "true")
	res = execute(t, marked.URL, captured("k"), orig, Options{RequireMarker: true})
	if res.Verdict != VerdictHeld || !hasOutcome(res, "PASS", "/replay marker Idempotent-Replayed") {
		t.Errorf("marked: %s %v", res.Verdict, outcomes(res))
	}
	res = execute(t, srv.URL, captured("k"), orig, Options{Profile: contract.Profiles["ietf"]})
	for _, a := range res.Assertions {
		if strings.HasPrefix(a.Name, "replay marker") {
			t.Errorf("the ietf profile has no marker: %+v", a)
		}
	}
}

// The result id and the stored body come from the captured response.
func TestOriginalFromTheCapturedResponse(t *testing.T) {
	tests := []struct {
		name, captured, replayed, outcome, assertion string
	}{
		{"requestId as in the article", `{"requestId":"demo-request-1","state":"accepted"}`, `{"requestId":"demo-request-1","state":"accepted"}`, "PASS", "/result id"},
		{"a new requestId", `{"requestId":"demo-request-1","state":"accepted"}`, `{"requestId":"demo-request-2","state":"accepted"}`, "FAIL", "/result id"},
		{"data.id", `{"data":{"id":"o_1"}}`, `{"data":{"id":"o_1"}}`, "PASS", "/result id"},
		{"no id, same body reordered", `{"state":"accepted","n":1}`, `{"n":1,"state":"accepted"}`, "PASS", "/stored body"},
		{"no id, another body", `{"state":"accepted","n":1}`, `{"state":"accepted","n":2}`, "FAIL", "/stored body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := answering(t, 201, tt.replayed)
			c := captured("k")
			c.Status, c.ResponseBody = 201, []byte(tt.captured)
			res := execute(t, srv.URL, c, OriginalOf(nil, "k", []*model.Captured{c}), Options{})
			if !hasOutcome(res, tt.outcome, tt.assertion) {
				t.Errorf("no %s %s: %v", tt.outcome, tt.assertion, outcomes(res))
			}
		})
	}
}

// startFaultyGateway runs the project's gateway in a fault mode.
func startFaultyGateway(t *testing.T, opts gateway.Options) *httptest.Server {
	t.Helper()
	store, _ := gateway.OpenStore("")
	srv := httptest.NewServer(gateway.New(opts, store).Handler())
	t.Cleanup(srv.Close)
	return srv
}

func TestConcurrentProbeWithoutEffectsURL(t *testing.T) {
	tests := []struct {
		name    string
		faults  gateway.Faults
		profile string
		verdict string
	}{
		// Every delivery ran and every answer was lost: four effects for one key.
		{"fail-after-commit and non-atomic, ietf", gateway.Faults{FailAfterCommit: true, NonAtomic: true}, "ietf", VerdictBroken},
		{"fail-after-commit and non-atomic, article", gateway.Faults{FailAfterCommit: true, NonAtomic: true}, "article", VerdictBroken},
		{"non-atomic, ietf", gateway.Faults{NonAtomic: true}, "ietf", VerdictBroken},
		{"fail-after-commit alone, ietf", gateway.Faults{FailAfterCommit: true}, "ietf", VerdictHeld},
		{"correct, ietf", gateway.Faults{}, "ietf", VerdictHeld},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := contract.Profiles[tt.profile]
			srv := startFaultyGateway(t, gateway.Options{Profile: p, Faults: tt.faults, NonAtomicWindow: 200 * time.Millisecond})
			c := captured("k")
			c.URL = "https://shop.example.com/v1/demo-requests"
			res := execute(t, srv.URL, c, Original{}, Options{Profile: p, Probes: []string{probeConcurrent}, Concurrency: 3})
			var concurrent []Assertion
			for _, a := range res.Assertions {
				if a.Probe == probeConcurrent {
					concurrent = append(concurrent, a)
				}
			}
			broken := false
			for _, a := range concurrent {
				broken = broken || a.outcome() == "FAIL"
			}
			if want := tt.verdict == VerdictBroken; broken != want {
				t.Errorf("concurrent broken = %v, want %v: %v", broken, want, outcomes(res))
			}
			if len(concurrent) == 0 || !strings.Contains(concurrent[0].Actual, "#1 ") {
				t.Errorf("the answers are not listed: %+v", concurrent)
			}
		})
	}
}

// The gateway that loses its terminal write after the provider call makes
// the provider charge twice: the lost-response probe counts the provider.
func TestCrashAfterExternalFailsLostResponse(t *testing.T) {
	var charges atomic.Int32
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			charges.Add(1)
			w.WriteHeader(201)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"count":` + string(rune('0'+charges.Load())) + `}`))
	}))
	defer provider.Close()
	srv := startFaultyGateway(t, gateway.Options{Faults: gateway.Faults{External: provider.URL, CrashAfterExternal: true}})
	c := captured("k")
	c.URL = "https://shop.example.com/v1/demo-requests"
	res := execute(t, srv.URL, c, Original{}, Options{Probes: []string{probeLostResponse}, EffectsURL: provider.URL + "/count",
		Settle: 200 * time.Millisecond})
	if !hasOutcome(res, "FAIL", "lost-response/exactly one effect") {
		t.Errorf("the provider's second charge passed: %v", outcomes(res))
	}
}
