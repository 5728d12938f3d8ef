package diagnose_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/model"
)

func (b ob) marked(m string) ob { b.o.RetryMark = m; return b }
func (b ob) attempt(n int) ob   { b.o.Attempt = n; return b }
func (b ob) har() ob            { b.o.Format = "har"; return b }

// retryCase is a case's lines and the retries it must show: each retry's
// request id, layer and what its why must say. A case with none must
// show none.
type retryCase struct {
	name string
	obs  []ob
	want []wantRetry
}

type wantRetry struct {
	rid       string
	layer     diagnose.Layer
	says      string
	after     time.Duration
	duplicate bool
}

func TestRetriesByLayer(t *testing.T) {
	for _, tc := range []retryCase{{
		name: "a Stainless SDK's own retry, marked, through the proxy",
		obs: []ob{
			proxy("r1").key("k-1").post().at(0).took(1).outcome(model.OutcomeClientClosed).detail("499 client closed request"),
			server("r1").key("k-1").post().at(0.01).effect("ord_1"),
			proxy("r2").key("k-1").post().at(1.6).took(0.02).status(201).marked("x-stainless-retry-count: 1"),
			server("r2").key("k-1").post().at(1.61).effect("ord_2"),
		},
		want: []wantRetry{{rid: "r2", layer: diagnose.LayerClientLibrary, says: "x-stainless-retry-count: 1", after: 1600 * time.Millisecond, duplicate: true}},
	}, {
		name: "the AWS SDK's mark on the server's line, the retry born one client timeout in",
		obs: []ob{
			proxy("r1").key("k-1").post().at(0).took(2).outcome(model.OutcomeClientClosed).detail("499 client closed request"),
			proxy("r2").key("k-1").post().at(2.05).took(0.02).status(201),
			server("r2").key("k-1").post().at(2.06).status(201).marked("amz-sdk-request: attempt=2; max=3"),
		},
		want: []wantRetry{{rid: "r2", layer: diagnose.LayerClientLibrary, says: "amz-sdk-request: attempt=2; max=3, a client library's number of its own retry (case.jsonl:3); begun as the previous send ended: the proxy saw the client close the connection (499 client closed request) after 2s (case.jsonl:1), the caller's timeout"}},
	}, {
		name: "Stripe's SDK resends under the key it minted, with no retry header",
		obs: []ob{
			proxy("r1").key("stripe-node-retry-510e091c-d692-4a1f-8325-6092fa842879").post().at(0).took(0.5).outcome(model.OutcomeClientClosed),
			proxy("r2").key("stripe-node-retry-510e091c-d692-4a1f-8325-6092fa842879").post().at(1).took(0.02).status(200),
		},
		want: []wantRetry{{rid: "r2", layer: diagnose.LayerClientLibrary, says: "minted by Stripe's Node SDK for its own retries"}},
	}, {
		name: "a key that merely starts like a library's is the caller's when nothing follows the prefix",
		obs: []ob{
			proxy("r1").key("stripe-node-retry-").post().at(0).took(0.5).status(201),
			proxy("r2").key("stripe-node-retry-").post().at(5).took(0.02).status(200),
		},
		want: []wantRetry{{rid: "r2", layer: diagnose.LayerClient, says: "the caller sent it again"}},
	}, {
		// A refused send is another action under a reused key
		// (payload-mismatch), not the first one's retry.
		name: "a send refused 422 after the key succeeded is no retry",
		obs: []ob{
			proxy("r1").key("k-1").post().at(0).took(0.2).status(201),
			server("r1").key("k-1").post().at(0.01).effect("ord_1"),
			proxy("r2").key("k-1").post().at(30).took(0.02).status(422),
		},
	}, {
		name: "a send refused 409 naming the fingerprint is no retry",
		obs: []ob{
			proxy("r1").key("k-1").post().at(0).took(0.2).status(201),
			proxy("r2").key("k-1").post().at(30).took(0.02).status(409).msg("fingerprint mismatch"),
		},
	}, {
		name: "another fingerprint at one tier, answered 400, is no retry",
		obs: []ob{
			server("r1").key("k-1").post().at(0).took(0.2).status(201).fp("sha256:aaaa"),
			server("r2").key("k-1").post().at(30).took(0.02).status(400).fp("sha256:bbbb"),
		},
	}, {
		// One field away: the key had not succeeded, so a 422 may be
		// the body's validation, and the second send is a retry.
		name: "a 422 after a failure is a retry",
		obs: []ob{
			proxy("r1").key("k-1").post().at(0).took(0.2).status(504).outcome(model.OutcomeUpstreamTimeout),
			proxy("r2").key("k-1").post().at(30).took(0.02).status(422),
		},
		want: []wantRetry{{rid: "r2", layer: diagnose.LayerClient, says: "the caller sent it again"}},
	}, {
		name: "the same fingerprint refused 409 is a retry",
		obs: []ob{
			server("r1").key("k-1").post().at(0).took(0.2).status(201).fp("sha256:aaaa"),
			server("r2").key("k-1").post().at(30).took(0.02).status(409).fp("sha256:aaaa"),
		},
		want: []wantRetry{{rid: "r2", layer: diagnose.LayerUnknown}},
	}, {
		name: "another payload the server ran is a retry that made a duplicate",
		obs: []ob{
			server("r1").key("k-1").post().at(0).took(0.2).status(201).fp("sha256:aaaa").effect("ord_1"),
			server("r2").key("k-1").post().at(30).took(0.02).status(201).fp("sha256:bbbb").effect("ord_2"),
		},
		want: []wantRetry{{rid: "r2", layer: diagnose.LayerUnknown, duplicate: true}},
	}, {
		name: "the proxy's own retry: one delivery, two upstream attempts",
		obs:  nginxRetried("ord_1", "ord_101"),
		want: []wantRetry{{rid: "r1", layer: diagnose.LayerProxy, says: "2 upstream attempts for one request", after: time.Second, duplicate: true}},
	}, {
		name: "a retry after the proxy's 504, no mark: the caller, set off by the proxy's timeout",
		obs: []ob{
			proxy("r1").key("k-1").post().at(0).took(1).status(504).outcome(model.OutcomeUpstreamTimeout),
			proxy("r2").key("k-1").post().at(1.1).took(0.02).status(201),
		},
		want: []wantRetry{{rid: "r2", layer: diagnose.LayerClient, says: "with no library's retry mark (case.jsonl:2): the caller sent it again; begun as the previous send ended: the proxy timed out waiting for the server after 1s (case.jsonl:1), the proxy's timeout, answered to the caller, which retried"}},
	}, {
		name: "a second HAR entry: the browser, whose code or user a HAR does not tell",
		obs: []ob{
			client("r1").har().key("k-1").post().at(0).took(2).outcome(model.OutcomeTimeout).detail("net::ERR_TIMED_OUT"),
			client("r2").har().key("k-1").post().at(9).took(0.05).status(201),
		},
		want: []wantRetry{{rid: "r2", layer: diagnose.LayerBrowser, says: "a new HAR entry under the same key (case.jsonl:2)", after: 9 * time.Second}},
	}, {
		name: "a workflow engine's second attempt of an activity",
		obs: []ob{
			worker("a1").key("k-1").activity("wf-1", "5", 1).at(0),
			worker("a2").key("k-1").activity("wf-1", "5", 2).at(10),
		},
		want: []wantRetry{{rid: "a2", layer: diagnose.LayerWorkflowEngine, says: "attempt 2"}},
	}, {
		name: "a job's redelivery: the server's own attempt, nothing in front",
		obs: []ob{
			server("j1").key("k-1").at(0).effect("ord_1"),
			server("j2").key("k-1").at(30).attempt(2).effect("ord_2"),
		},
		want: []wantRetry{{rid: "j2", layer: diagnose.LayerServer, says: "attempt 2 with no request in front of it", duplicate: true}},
	}, {
		name: "only the server's lines, nothing says who: unknown, never a guess",
		obs: []ob{
			server("s1").key("k-1").post().at(0).status(201),
			server("s2").key("k-1").post().at(5).status(200).replayed(),
		},
		want: []wantRetry{{rid: "s2", layer: diagnose.LayerUnknown, says: "no line says who sent it again"}},
	}, {
		name: "a first send's mark of 1 is no retry, and one send is none",
		obs: []ob{
			proxy("r1").key("k-1").post().at(0).took(0.02).status(201),
		},
	}, {
		name: "a GET the proxy tried twice is not a retry of a write",
		obs: []ob{
			proxy("r1").key("k-1").req("GET", "/v1/orders/1").at(0).took(1.05).status(200).upstream(200).tries(2),
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			res := ruleCase{obs: tc.obs}.diagnose()
			got := res.Retries()
			if len(got) != len(tc.want) {
				t.Fatalf("%d retries, want %d: %+v", len(got), len(tc.want), got)
			}
			for i, w := range tc.want {
				rt := got[i]
				if rt.Delivery.RequestID != w.rid || rt.Layer != w.layer || !strings.Contains(rt.Why, w.says) {
					t.Errorf("retry %d: %s by %s (%s), want %s by %s saying %q", i, rt.Delivery.RequestID, rt.Layer, rt.Why, w.rid, w.layer, w.says)
				}
				if w.after > 0 && rt.After != w.after {
					t.Errorf("retry %d: after %v, want %v", i, rt.After, w.after)
				}
				if rt.Duplicate != w.duplicate {
					t.Errorf("retry %d: duplicate %v, want %v", i, rt.Duplicate, w.duplicate)
				}
				if rt.Layer != diagnose.LayerUnknown && rt.Evidence == nil {
					t.Errorf("retry %d: attributed to %s without a line", i, rt.Layer)
				}
			}
			// The summary counts them by layer, and every finding on the
			// intent carries them.
			n := 0
			for _, c := range res.Summary.RetriesByLayer {
				n += c
			}
			if n != len(got) {
				t.Errorf("summary counts %d retries, the list has %d", n, len(got))
			}
			for _, f := range res.Findings {
				if len(f.Intents) > 0 && len(got) > 0 && f.Intents[0].Key == "k-1" && len(f.Retries) == 0 {
					t.Errorf("%s's finding on k-1 carries no retries", f.Rule.ID)
				}
			}
		})
	}
}

// No finding blames the client for a proxy's retry: the proxy's retry is
// the proxy's, in the retries and in the findings that fire.
func TestProxyRetryIsNotTheClients(t *testing.T) {
	res := ruleCase{obs: nginxRetried("ord_1", "ord_101")}.diagnose()
	for _, rt := range res.Retries() {
		if rt.Layer != diagnose.LayerProxy {
			t.Errorf("the proxy's retry attributed to %s: %s", rt.Layer, rt.Why)
		}
	}
	for _, f := range res.Findings {
		if f.Rule.ID == "request-id-reused" || f.Rule.ID == "unkeyed-retry" || f.Rule.ID == "retry-new-key" {
			t.Errorf("%s fired on the proxy's own retry: %s", f.Rule.ID, f.Narrative)
		}
	}
}

// Each finding carries exactly the retries of its intents: an intent's
// retries, in the order Retries lists them, for each of its intents in
// turn. Checked on every scenario and real capture, so that the way they
// are attached (by intent, beside the sort) cannot drop, repeat or mix
// them.
func TestFindingsCarryTheirIntentsRetries(t *testing.T) {
	var results []*diagnose.Result
	scenarios, err := os.ReadDir(filepath.Join("..", "fixtures", "scenarios"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range scenarios {
		if s.IsDir() {
			results = append(results, diagnose.Run(loadScenario(t, s.Name()), diagnose.DefaultOptions()))
		}
	}
	captures, err := os.ReadDir(filepath.Join("..", "fixtures", "real"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range captures {
		if c.IsDir() && c.Name() != "public" {
			results = append(results, runCapture(t, c.Name()))
		}
	}
	attached, shared := 0, 0
	for _, res := range results {
		for _, f := range res.Findings {
			var want []diagnose.Retry
			for _, in := range f.Intents {
				want = append(want, res.RetriesOf(in)...)
			}
			if len(f.Retries) != len(want) {
				t.Errorf("%s on %v carries %d retries, its intents have %d", f.Rule.ID, f.Keys, len(f.Retries), len(want))
				continue
			}
			for i := range want {
				if f.Retries[i].Delivery != want[i].Delivery || f.Retries[i].Layer != want[i].Layer || f.Retries[i].Why != want[i].Why {
					t.Errorf("%s on %v: retry %d is %s's, want %s's", f.Rule.ID, f.Keys, i, f.Retries[i].Delivery.RequestID, want[i].Delivery.RequestID)
				}
			}
			attached += len(want)
			if len(f.Intents) > 1 && len(want) > 0 {
				shared++
			}
		}
	}
	// The fixtures hold retries on findings, some of them findings of
	// several intents: the check above is not vacuous.
	if attached == 0 || shared == 0 {
		t.Fatalf("%d retries attached, %d findings of several intents with retries: the fixtures no longer exercise this", attached, shared)
	}
	t.Logf("%d results, %d retries attached, %d findings of several intents with retries", len(results), attached, shared)
}
