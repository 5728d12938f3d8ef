package serverharness

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/internal/kit/capture"
	"github.com/idem-cli/idem/load"
)

// expectations derives, from what was sent and how each request ended
// alone, the rules that must fire and the keys no rule may name.
func expectations(sent []capture.Sent) (must []capture.Expectation, clean []capture.Clean) {
	keys, byKey := capture.ByKey(sent, func(s capture.Sent) string { return s.Key })
	unkeyed := byKey[""]
	keys = slices.DeleteFunc(keys, func(k string) bool { return k == "" })
	add := func(e capture.Expectation) { must = capture.Expect(must, e) }
	budget := diagnose.DefaultOptions().RetryBudget
	for _, k := range keys {
		attempts := byKey[k]
		if len(attempts) > budget {
			// More deliveries of one key than idem's default retry budget.
			add(capture.Expectation{Rule: "retry-storm", Role: "burst", Keys: []string{k}})
		}
		for i, a := range attempts {
			// The client gave up, the service made the order: a lost response.
			if a.Ended == "timeout" && a.Effect != "" {
				add(capture.Expectation{Rule: "response-lost", Role: "lost-response", Keys: []string{k}})
			}
			for _, b := range attempts[i+1:] {
				switch {
				case b.Body != a.Body:
					add(capture.Expectation{Rule: "payload-mismatch", Role: "other-body", Keys: []string{k}})
				case b.Start.Before(a.End) && a.Start.Before(b.End) && a.Effect != "" && b.Effect != "" && a.Effect != b.Effect:
					// Two at once under one key, and the ledger made an
					// order for each: the reservation let both through.
					add(capture.Expectation{Rule: "non-atomic-reservation", Role: "concurrent-effects", Keys: []string{k}})
				case b.Start.Before(a.End) && a.Start.Before(b.End) && (a.Status == 409 || b.Status == 409):
					// Two at once, one answered a conflict: the library's
					// in-progress answer, whichever reached it second.
					add(capture.Expectation{Rule: "in-progress-retry", Role: "concurrent-duplicate", Keys: []string{k}})
				case a.Ended == "response" && !b.Start.Before(a.End) && a.Effect != "" && b.Effect != "" && a.Effect != b.Effect:
					// The first was answered, then the same request under
					// its key made another order: the key was forgotten. A
					// replay between them shows it had been stored.
					e := capture.Expectation{Rule: "key-expired", Role: "expired-key", Keys: []string{k}}
					if slices.ContainsFunc(attempts, func(r capture.Sent) bool { return r.Replayed && !r.Start.Before(a.End) && r.End.Before(b.Start) }) {
						e.NotSay = "never stored"
					}
					add(e)
				}
			}
		}
	}
	// A replay (a 2xx that made no order) of an attempt that made one must
	// give back what the original gave, or the order the ledger made for
	// it when the original's answer was lost.
	for _, k := range keys {
		attempts := byKey[k]
		i := slices.IndexFunc(attempts, func(s capture.Sent) bool { return s.Effect != "" })
		if i < 0 {
			continue
		}
		a := attempts[i]
		for _, b := range attempts[i+1:] {
			if b.Effect != "" || b.Body != a.Body || b.Status < 200 || b.Status > 299 {
				continue
			}
			if a.Ended == "response" && (b.Status != a.Status || b.Response != a.Response) ||
				a.Ended == "timeout" && orderOf(b.Response) != "" && orderOf(b.Response) != a.Effect {
				add(capture.Expectation{Rule: "replay-divergence", Role: "replay", Keys: []string{k}})
			}
		}
	}
	// The same body under two keys, each making an order: after a timeout
	// of the first, a retry under a new key; after the first was answered
	// a success, at most a duplicate submission.
	for i, a := range sent {
		if a.Key == "" || a.Effect == "" {
			continue
		}
		for _, b := range sent[i+1:] {
			if b.Key == "" || b.Key == a.Key || b.Body != a.Body || b.Effect == "" {
				continue
			}
			switch {
			case a.Ended == "timeout":
				add(capture.Expectation{Rule: "retry-new-key", Role: "new-key", Keys: []string{a.Key, b.Key}})
			case a.Status >= 200 && a.Status <= 299:
				add(capture.Expectation{Rule: "duplicate-submission", Role: "two-submissions", Keys: []string{a.Key, b.Key}})
			}
		}
	}
	// Without a key: a timed-out POST that made an order, then the same
	// body again making another.
	for i, a := range unkeyed {
		if a.Ended != "timeout" || a.Effect == "" {
			continue
		}
		if slices.ContainsFunc(unkeyed[i+1:], func(b capture.Sent) bool { return b.Body == a.Body && b.Effect != "" && b.Effect != a.Effect }) {
			add(capture.Expectation{Rule: "unkeyed-retry", Role: "unkeyed-retry", Keys: []string{"(none)"}})
		}
	}
	// Clean: a key whose every attempt, at most the budget, was answered
	// 2xx, with one order among them (one attempt, or duplicates a server
	// held until the first was done and then answered with its result),
	// and whose body no other key carried, that no rule must name.
	for _, k := range keys {
		attempts := byKey[k]
		if len(attempts) > budget || slices.ContainsFunc(attempts, func(s capture.Sent) bool { return s.Status < 200 || s.Status > 299 }) {
			continue
		}
		orders := 0
		for _, a := range attempts {
			if a.Effect != "" {
				orders++
			}
		}
		called := slices.ContainsFunc(must, func(e capture.Expectation) bool { return slices.Contains(e.Keys, k) })
		if orders == 1 && !called && !slices.ContainsFunc(sent, func(s capture.Sent) bool { return s.Key != k && s.Body == attempts[0].Body }) {
			clean = append(clean, capture.Clean{Key: k, Why: "every attempt answered 2xx, one order among them"})
		}
	}
	return must, clean
}

// orderOf reads the order id from a response body.
func orderOf(body string) string {
	var r struct {
		OrderID string `json:"order_id"`
	}
	_ = json.Unmarshal([]byte(body), &r) // not JSON: no order
	return r.OrderID
}

// captureLogs are the log files of a capture folder.
func captureLogs(dir string) []string {
	return []string{filepath.Join(dir, nginxLog), filepath.Join(dir, appLog)}
}

// checkCapture reads a capture folder's logs (of the capture named name)
// with idem and asserts the rules its harness.json calls for.
func checkCapture(t *testing.T, name, dir string) {
	t.Helper()
	var c Capture
	capture.ReadJSON(t, filepath.Join(dir, harnessJSON), &c)
	must, clean := expectations(c.Sent)
	if len(must) < 2 || len(clean) < 2 {
		t.Fatalf("the traffic calls for too little to prove anything: %+v, clean %v", must, clean)
	}
	set, err := load.Files(context.Background(), captureLogs(dir), load.Options{Read: ingest.Options{}, Build: diagnose.DefaultOptions().Build()})
	if err != nil {
		t.Fatal(err)
	}
	capture.CheckRules(knownGaps.Facts(t, name), diagnose.Run(set, diagnose.DefaultOptions()).Findings, must, clean, false)
}
