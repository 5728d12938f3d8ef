package callerharness

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/internal/kit/capture"
	"github.com/idem-cli/idem/model"
)

// checkCaller checks what idem reads of a capture against the record:
// every line of the caller's log is the client's, each status it
// received is the outcome the client saw, its timeout a lost answer and
// its refused connection no delivery, and it made no effect; the API's
// log stays the server's, read as such, with one effect per order the
// API made.
func checkCaller(t *testing.T, dir string) {
	t.Helper()
	var rec Record
	capture.ReadJSON(t, filepath.Join(dir, RecordName), &rec)
	callerLog, apiLog := filepath.Join(dir, CallerLog), filepath.Join(dir, APILog)
	r := capture.MustRead(t, callerLog, apiLog)
	if in := r.Input(callerLog); in == nil || in.Tier != "client" || in.TierAssumed {
		t.Errorf("caller's log: input %+v, want tier client, read from its lines", in)
	}
	if in := r.Input(apiLog); in == nil || in.Tier != "server" || in.TierAssumed {
		t.Errorf("API's log: input %+v, want tier server, read from its lines", in)
	}
	lines := r.Lines(callerLog)
	for _, o := range r.From(callerLog) {
		if o.Tier != model.TierClient || o.Effect {
			t.Errorf("%s: tier %s, effect %v; want the client's, no effect", o.Source, o.Tier, o.Effect)
		}
	}
	// Each send's end, as the caller's ledger says, at the line that
	// reports it (the sends of a key in order).
	ends := map[string][]*model.Observation{}
	for n, l := range lines {
		var v struct {
			Msg string `json:"msg"`
			Key string `json:"idempotencyKey"`
		}
		if json.Unmarshal([]byte(l), &v) != nil || v.Msg == "sending order request" {
			continue
		}
		if os := r.At(callerLog, n+1); len(os) == 1 {
			ends[v.Key] = append(ends[v.Key], os[0])
		}
	}
	seen := map[string]int{}
	for _, s := range rec.Sends {
		i := seen[s.Key]
		seen[s.Key]++
		if i >= len(ends[s.Key]) {
			t.Errorf("send %d of %s: no line reports its end", s.Attempt, s.Key)
			continue
		}
		o := ends[s.Key][i]
		switch {
		case s.Status > 0:
			if o.Status != s.Status || o.Outcome != model.OutcomeOK || o.ResultID != s.OrderID {
				t.Errorf("%s: status %d, outcome %s, result %q; the caller received %d naming %s", o.Source, o.Status, o.Outcome, o.ResultID, s.Status, s.OrderID)
			}
		case s.Error == "ETIMEDOUT":
			if o.Outcome != model.OutcomeTimeout {
				t.Errorf("%s: outcome %s; the caller stopped waiting (ETIMEDOUT)", o.Source, o.Outcome)
			}
		case s.Error == "ECONNREFUSED":
			if o.Outcome != model.OutcomeNotDelivered {
				t.Errorf("%s: outcome %s; the caller's connection was refused", o.Source, o.Outcome)
			}
		}
	}
	created := 0
	for _, a := range rec.Arrivals {
		if a.Created {
			created++
		}
	}
	effects := 0
	for _, o := range r.From(apiLog) {
		if o.Tier != model.TierServer {
			t.Errorf("%s: tier %s, want server", o.Source, o.Tier)
		}
		if o.Effect {
			effects++
		}
	}
	if effects != created {
		t.Errorf("%d effects in the API's log, the API made %d orders", effects, created)
	}
	// Each send is one delivery, the caller's lines and the API's of it
	// joined by the request id the caller sent; each key's effects are
	// the orders the API made for it.
	var keys []string
	for _, s := range rec.Steps {
		keys = append(keys, s.Key)
	}
	ds := r.Deliveries(keys)
	reached := map[string]bool{}
	for _, a := range rec.Arrivals {
		reached[a.RequestID] = true
	}
	perKey := map[string]int{}
	for _, s := range rec.Sends {
		perKey[s.Key]++
		d := ds[s.RequestID]
		if d == nil || d.At(model.TierClient) == nil || (d.At(model.TierServer) != nil) != reached[s.RequestID] {
			t.Errorf("send %s of %s: delivery %v; want the caller's lines, and the API's where it arrived (%v)", s.RequestID, s.Key, d, reached[s.RequestID])
		}
	}
	for _, s := range rec.Steps {
		made := 0
		for _, a := range rec.Arrivals {
			if a.Key == s.Key && a.Created {
				made++
			}
		}
		ins := r.Set.FindIntent(s.Key)
		if len(ins) != 1 || len(ins[0].Deliveries) != perKey[s.Key] || len(ins[0].Effects()) != made {
			t.Errorf("key %s: %d intents; want one of %d deliveries (the caller's sends) and %d effects", s.Key, len(ins), perKey[s.Key], made)
		}
	}
	// The findings: the answer the caller gave up on was lost after the
	// API made its order (the step whose first send it answered late);
	// nothing else went wrong, so no other finding names a key.
	res := diagnose.Run(r.Set, diagnose.DefaultOptions())
	for _, s := range rec.Steps {
		lost := false
		for _, f := range res.Findings {
			switch {
			case f.Rule.ID == "response-lost" && capture.Names(f, s.Key):
				lost = true
			case capture.Names(f, s.Key):
				t.Errorf("key %s: finding %s: %s", s.Key, f.Rule.ID, f.Narrative)
			}
		}
		if lost != s.SlowFirst {
			t.Errorf("key %s: response-lost %v, want %v (the API answered its first send after the caller gave up: %v)\n%s",
				s.Key, lost, s.SlowFirst, s.SlowFirst, capture.FindingsText(res.Findings))
		}
	}
	if !strings.Contains(strings.Join(lines, "\n"), "ETIMEDOUT") {
		t.Errorf("the capture holds no timeout")
	}
}
