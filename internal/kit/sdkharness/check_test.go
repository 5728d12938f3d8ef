package sdkharness

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/internal/kit/capture"
	"github.com/idem-cli/idem/load"
	"github.com/idem-cli/idem/model"
)

// facts is what the harness saw of one call: the two deliveries the
// server received, in order, and the orders it made.
type facts struct {
	key    string
	hits   []Entry // the deliveries, as received
	orders []Entry // the effects
}

// checkHarness checks the capture's record against itself: the SDK made
// two attempts, the server received both under one key and with the
// SDK's retry marks, and made the orders its mode allows. It logs what
// happened and returns the facts idem is checked against.
func checkHarness(t *testing.T, s sdk, c *Capture) facts {
	t.Helper()
	f := facts{key: c.Script.Key, hits: c.kind("hit"), orders: c.kind("effect")}
	if f.key == "" {
		t.Fatalf("the script saw no Idempotency-Key: %+v", c.Script)
	}
	if len(c.Script.Attempts) != 2 {
		t.Fatalf("%s made %d attempts as the script saw them, want 2: %+v", s.name, len(c.Script.Attempts), c.Script.Attempts)
	}
	if c.Script.SDKAttempts != 0 && c.Script.SDKAttempts != 2 {
		t.Errorf("%s counts %d attempts itself, want 2", s.name, c.Script.SDKAttempts)
	}
	if len(f.hits) != 2 {
		t.Fatalf("the server received %d deliveries, want 2: %+v", len(f.hits), f.hits)
	}
	for i, h := range f.hits {
		if h.Headers["idempotency-key"] != f.key {
			t.Errorf("delivery %d carried Idempotency-Key %q, the call's is %q", i+1, h.Headers["idempotency-key"], f.key)
		}
		if h.RequestID == "" || h.Headers["x-request-id"] != h.RequestID {
			t.Errorf("delivery %d: request id %q, X-Request-Id %q: nginx passes its own on", i+1, h.RequestID, h.Headers["x-request-id"])
		}
	}
	if f.hits[0].RequestID == f.hits[1].RequestID {
		t.Errorf("both deliveries carry request id %s: nginx gives each its own", f.hits[0].RequestID)
	}
	says, err := s.marks(f.hits[0].Headers, f.hits[1].Headers)
	if err != nil {
		t.Errorf("%s's retry marks: %v", s.name, err)
	}
	answers := map[int]int{}
	for _, e := range c.kind("answer") {
		answers[e.N] = e.Status
	}
	switch c.Server {
	case plain:
		if len(f.orders) != 2 || f.orders[0].N != 1 || f.orders[1].N != 2 || f.orders[0].OrderID == f.orders[1].OrderID {
			t.Fatalf("with no key store each delivery makes its order; orders %+v", f.orders)
		}
		if c.Script.Error != nil || c.Script.Result != f.orders[1].OrderID {
			t.Errorf("the call ends with the retry's order %s; it ended %q, %+v", f.orders[1].OrderID, c.Script.Result, c.Script.Error)
		}
	case store:
		if len(f.orders) != 1 || f.orders[0].N != 1 {
			t.Fatalf("with express-idempotency only the first delivery makes an order; orders %+v", f.orders)
		}
		if answers[2] != 409 {
			t.Errorf("express-idempotency refuses the retry while the first runs with 409; it answered %d", answers[2])
		}
		if c.Script.Error == nil || c.Script.Error.Status != 409 {
			t.Errorf("the call ends with the refusal, 409; it ended %q, %+v", c.Script.Result, c.Script.Error)
		}
	case completed:
		if len(f.orders) != 1 || f.orders[0].N != 1 {
			t.Fatalf("with express-idempotency only the first delivery makes an order; orders %+v", f.orders)
		}
		if answers[2] != 200 || c.Script.Error != nil || c.Script.Result != f.orders[0].OrderID {
			t.Errorf("express-idempotency replays the first order %s to the retry; it answered %d and the call ended %q, %+v",
				f.orders[0].OrderID, answers[2], c.Script.Result, c.Script.Error)
		}
	default:
		t.Fatalf("server %q", c.Server)
	}
	var got []string
	for _, o := range f.orders {
		got = append(got, o.OrderID)
	}
	end := "returned " + c.Script.Result
	if c.Script.Error != nil {
		end = fmt.Sprintf("failed with %s %d", c.Script.Error.Name, c.Script.Error.Status)
	}
	t.Logf("%s (server %s) made %d attempts; %s; both carried Idempotency-Key %s; the server answered the second %d and made %d order(s) %v; the call %s",
		s.name, c.Server, len(c.Script.Attempts), says, f.key, answers[2], len(f.orders), got, end)
	for i, h := range f.hits {
		t.Logf("delivery %d headers: %s", i+1, headerLine(h.Headers))
	}
	return f
}

// headerLine is the headers that matter to a reader of retries, sorted.
func headerLine(h map[string]string) string {
	var out []string
	for k, v := range h {
		switch k {
		case "authorization", "x-amz-content-sha256", "host", "connection", "content-length", "x-stripe-client-user-agent":
			continue // secrets, signatures and noise
		}
		out = append(out, k+": "+v)
	}
	slices.Sort(out)
	return strings.Join(out, " | ")
}

// check checks one capture folder: the harness's own record, then idem's
// reading of the logs against it.
func check(t *testing.T, s sdk, dir string) {
	t.Helper()
	var c Capture
	capture.ReadJSON(t, filepath.Join(dir, harnessJSON), &c)
	f := checkHarness(t, s, &c)

	set, res := diagnoseFiles(t, []string{filepath.Join(dir, nginxLog), filepath.Join(dir, appLog)})
	ins := set.FindIntent(f.key)
	if len(ins) != 1 {
		t.Fatalf("key %s makes %d intents, want 1", f.key, len(ins))
	}
	var rids, want []string
	for _, d := range ins[0].Deliveries {
		rids = append(rids, d.RequestID)
	}
	for _, h := range f.hits {
		want = append(want, h.RequestID)
	}
	slices.Sort(rids)
	slices.Sort(want)
	if !slices.Equal(rids, want) {
		t.Errorf("key %s: deliveries %v, the server received %v", f.key, rids, want)
	}

	var fired []string
	critical := false // a critical finding naming the key and both orders
	for _, fd := range res.Findings {
		if !capture.Names(fd, f.key) {
			continue
		}
		fired = append(fired, fd.Rule.ID+" ("+fd.Severity.String()+")")
		switch fd.Rule.ID {
		case "proxy-retry":
			t.Errorf("proxy-retry fires, but nginx sent each delivery once (proxy_next_upstream off; the SDK sent the retry): %s", fd.Narrative)
		case "request-id-reused":
			t.Errorf("request-id-reused fires, but nginx gave each delivery its own id: %s", fd.Narrative)
		}
		if fd.Severity == diagnose.Critical {
			critical = critical || len(f.orders) == 2 && strings.Contains(fd.Narrative, f.orders[0].OrderID) && strings.Contains(fd.Narrative, f.orders[1].OrderID)
			if c.Server != plain {
				t.Errorf("%s is critical, but the server made one order (%s): %s", fd.Rule.ID, f.orders[0].OrderID, fd.Narrative)
			}
		}
	}
	t.Logf("rules on key %s: %v", f.key, fired)
	if c.Server == plain && !critical {
		t.Errorf("no critical finding on key %s names both orders the server made under it (%s, %s); findings:\n%s",
			f.key, f.orders[0].OrderID, f.orders[1].OrderID, capture.FindingsText(res.Findings))
	}
	checkRetries(t, s, res, ins[0], f)
}

// diagnoseFiles reads the logs as idem does and runs its rules.
func diagnoseFiles(t *testing.T, paths []string) (*model.Set, *diagnose.Result) {
	t.Helper()
	set, err := load.Files(context.Background(), paths, load.Options{Read: ingest.Options{}, Build: diagnose.DefaultOptions().Build()})
	if err != nil {
		t.Fatal(err)
	}
	res := diagnose.Run(set, diagnose.DefaultOptions())
	for _, fd := range res.Findings {
		t.Logf("%s %s: %s", fd.Severity, fd.Rule.ID, fd.Narrative)
	}
	return set, res
}

// checkRetries checks who idem says sent the call's second delivery:
// the SDK the harness ran (client-library), for the evidence that SDK sent
// (its retry header, or for Stripe the key it minted), never a proxy (nginx
// sent each delivery once); a duplicate effect exactly where the server
// made a second order.
func checkRetries(t *testing.T, s sdk, res *diagnose.Result, in *model.Intent, f facts) {
	t.Helper()
	var mine []diagnose.Retry
	for _, r := range res.Retries() {
		if r.Layer == diagnose.LayerProxy {
			t.Errorf("idem says a proxy sent delivery %s (%s), but nginx sent each delivery once", r.Delivery.RequestID, r.Why)
		}
		if r.Intent != nil && r.Intent.ID == in.ID {
			mine = append(mine, r)
		}
	}
	if len(mine) != 1 {
		t.Fatalf("key %s: %d retries, but %s sent the call twice: %+v", f.key, len(mine), s.name, mine)
	}
	r := mine[0]
	t.Logf("retry of key %s: delivery %s, layer %s, after %s, duplicate %v: %s", f.key, r.Delivery.RequestID, r.Layer, r.After, r.Duplicate, r.Why)
	if r.Delivery.RequestID != f.hits[1].RequestID {
		t.Errorf("the retry is delivery %s; the SDK's second attempt reached the server as %s", r.Delivery.RequestID, f.hits[1].RequestID)
	}
	if r.Layer != diagnose.LayerClientLibrary {
		t.Errorf("the retry's layer is %q; %s sent it on its own (%s)", r.Layer, s.name, diagnose.LayerClientLibrary)
	}
	if !strings.Contains(r.Why, s.evidence) {
		t.Errorf("the retry's evidence does not name %q, which %s sent: %s", s.evidence, s.name, r.Why)
	}
	if dup := len(f.orders) == 2; r.Duplicate != dup {
		t.Errorf("the retry's Duplicate is %v; the server made %d order(s)", r.Duplicate, len(f.orders))
	}
	if gap := hitGap(f); r.After <= 0 || r.After > gap+time.Second {
		t.Errorf("the retry came %s after the first delivery as idem reads it; the server received it %s after", r.After, gap)
	}
}

// hitGap is how long after the first delivery the server received the
// second, by its ledger.
func hitGap(f facts) time.Duration {
	a, err1 := time.Parse(time.RFC3339Nano, f.hits[0].At)
	b, err2 := time.Parse(time.RFC3339Nano, f.hits[1].At)
	if err1 != nil || err2 != nil {
		return 0
	}
	return b.Sub(a)
}
