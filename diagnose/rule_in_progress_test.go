package diagnose_test

import (
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/internal/kit/capture"
	"github.com/idem-cli/idem/model"
)

// heldKey is a delivery that took the reservation, a retry a second later
// answered by answer, and what followed.
func heldKey(answer ob, then ...ob) []ob {
	return append([]ob{
		proxy("r1").key("k-1").post().at(0).took(30).status(504).outcome(model.OutcomeUpstreamTimeout),
		server("r1").key("k-1").post().at(0.1).decision("new").state("in_progress"),
		answer,
	}, then...)
}

// concurrentDuplicate is express-idempotency's case: it logs no state;
// a duplicate sent while the first delivery runs gets a bare 409
// "Conflict". The second's start and both payloads vary.
func concurrentDuplicate(secondAt float64, fp1, fp2 string) []ob {
	first := server("r1").key("k-1").post().at(0).took(3).status(201)
	second := server("r2").key("k-1").post().at(secondAt).took(0.01).status(409)
	if fp1 != "" {
		first = first.fp(fp1)
	}
	if fp2 != "" {
		second = second.fp(fp2)
	}
	return []ob{first, server("r1").key("k-1").at(2.9).effect("ord_1"), second}
}

var inProgressCases = ruleCases{
	rule: "in-progress-retry",
	fire: []ruleCase{
		{name: "a bare 409 while the first delivery ran, same payload", obs: concurrentDuplicate(1, "sha256:aaaa", "sha256:aaaa"),
			want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, says: "still in flight, with the same payload"}}},
		{name: "the terminal result is when the first delivery's access line ends, not when it began", obs: concurrentDuplicate(1, "sha256:aaaa", "sha256:aaaa"),
			want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, says: "reached a terminal result at 13:30:03.000Z"}}},
		{name: "a bare 409 while the first delivery ran, payloads not logged", obs: concurrentDuplicate(1, "", ""),
			want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, says: "likely an in-progress answer", conf: diagnose.Inferred, lacks: "the payloads"}}},
		{name: "the retry saw in_progress, then the first delivery completed",
			obs:  heldKey(server("r2").key("k-1").post().at(1).status(409).decision("in_progress"), server("r1").key("k-1").at(20).effect("ord_1")),
			want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, says: "reached a terminal result"}}},
		{name: "the retry got 409 with Retry-After and nothing completed",
			obs:  heldKey(server("r2").key("k-1").post().at(1).status(409).retryAfter()),
			want: []want{{severity: diagnose.Critical, keys: []string{"k-1"}, says: "looks stuck"}}},
		{name: "a proxy's log alone: the first delivery's upstream answered 201 after the 409",
			obs: []ob{proxy("r1").key("k-1").post().at(0).took(0.25).status(201).upstream(201),
				proxy("r2").key("k-1").post().at(0.05).took(0.009).status(409).upstream(409)},
			want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, says: "reached a terminal result at 13:30:00.250Z"}}},
		{name: "a proxy's log alone: the first delivery's upstream timed out, nothing completed",
			obs: []ob{proxy("r1").key("k-1").post().at(0).took(30).status(504).upstream(504),
				proxy("r2").key("k-1").post().at(1).took(0.009).status(409).upstream(409)},
			want: []want{{severity: diagnose.Critical, keys: []string{"k-1"}, says: "looks stuck"}}},
		{name: "a 2xx from a line of no known tier is not the server's answer",
			obs: []ob{proxy("r1").key("k-1").post().at(0).took(30).status(504).upstream(504),
				proxy("r2").key("k-1").post().at(1).took(0.009).status(409).upstream(409),
				line(model.TierUnknown, "r3").key("k-1").at(2).status(200)},
			want: []want{{severity: diagnose.Critical, keys: []string{"k-1"}, says: "looks stuck"}}},
		{name: "the retry got 409 with state in_progress and nothing completed",
			obs:  heldKey(server("r2").key("k-1").post().at(1).status(409).state("in_progress")),
			want: []want{{severity: diagnose.Critical, keys: []string{"k-1"}, says: `"409 in progress"`}}},
	},
	quiet: []ruleCase{
		{name: "a bare 409 after the first delivery had finished", obs: concurrentDuplicate(4, "sha256:aaaa", "sha256:aaaa")},
		{name: "a bare 409 to another payload is a mismatch", obs: concurrentDuplicate(1, "sha256:aaaa", "sha256:bbbb")},
		{name: "a 409 that is a payload conflict",
			obs: heldKey(server("r2").key("k-1").post().at(1).status(409).decision("conflict"))},
		{name: "a 429 with Retry-After is a rate limit",
			obs: heldKey(server("r2").key("k-1").post().at(1).status(429).retryAfter())},
		{name: "the retry was answered from the key record",
			obs: heldKey(server("r2").key("k-1").post().at(1).status(201).decision("replay").result("ord_1"))},
	},
}

// TestInProgressOnARealProxyLogAlone reads the express-idempotency
// capture's nginx log without the service's: duplicates got a bare 409
// while the first request of their key ran, and that first request was
// answered 201 (harness.json says what the client saw). nginx logged that
// 201, so no key is stuck: each 409's key is a warning naming the terminal
// result, never a critical.
func TestInProgressOnARealProxyLogAlone(t *testing.T) {
	dir := filepath.Join("..", "fixtures", "real", "express-idempotency")
	var h struct {
		Sent []capture.Sent `json:"sent"`
	}
	capture.ReadJSON(t, filepath.Join(dir, "harness.json"), &h)
	busy, answered := map[string]bool{}, map[string]bool{}
	for _, s := range h.Sent {
		switch {
		case s.Ended == capture.EndedResponse && s.Status == 409:
			busy[s.Key] = true
		case s.Ended == capture.EndedResponse && s.Status >= 200 && s.Status < 300:
			answered[s.Key] = true
		}
	}
	opts := diagnose.DefaultOptions()
	res := diagnose.Run(built(t, []string{filepath.Join(dir, "access.json.log")}, opts.Build()), opts)
	fired := map[string]bool{}
	for _, f := range res.Findings {
		if f.Rule.ID != "in-progress-retry" {
			continue
		}
		key := f.Intents[0].Key
		fired[key] = true
		if !answered[key] {
			continue // a key the harness never saw answered may look stuck
		}
		if f.Severity != diagnose.Warning || !strings.Contains(f.Narrative, "reached a terminal result") {
			t.Errorf("key %s, answered 201 by the harness's log: %v, %q", key, f.Severity, f.Narrative)
		}
	}
	if len(busy) == 0 || !maps.Equal(fired, busy) {
		t.Errorf("in-progress-retry named %v, want the keys answered 409: %v", fired, busy)
	}
}
