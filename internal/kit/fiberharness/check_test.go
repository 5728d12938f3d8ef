package fiberharness

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/internal/kit/capture"
	"github.com/idem-cli/idem/load"
	"github.com/idem-cli/idem/model"
)

// overlap reports whether two requests were in flight at once.
func overlap(a, b capture.Sent) bool { return a.Start.Before(b.End) && b.Start.Before(a.End) }

// expectations derives, from what was sent, how each request ended and
// what the ledger made of it alone, the rules that must fire and the keys
// no rule may name. payloads says whether a tier logs a hash of each body:
// without it a retry under a new key can only be likely.
func expectations(sent []capture.Sent, payloads bool) (must []capture.Expectation, clean []capture.Clean) {
	keys, byKey := capture.ByKey(sent, func(s capture.Sent) string { return s.Key })
	add := func(e capture.Expectation) { must = capture.Expect(must, e) }
	for _, k := range keys {
		attempts := byKey[k]
		for i, a := range attempts {
			// The client gave up, the service made the order: a lost response.
			// A later same-key attempt that got the order made for it, and
			// made none, recovered it: the contract held.
			if a.Ended == "timeout" && a.Effect != "" {
				sev := diagnose.Warning
				if slices.ContainsFunc(attempts[i+1:], func(b capture.Sent) bool {
					return b.Answered() && b.Effect == "" && strings.Contains(b.Response, strconv.Quote(a.Effect))
				}) {
					sev = diagnose.Info
				}
				add(capture.Expectation{Rule: "response-lost", Role: "lost-response", Keys: []string{k}, Severity: sev})
			}
			for _, b := range attempts[i+1:] {
				switch {
				case b.Body != a.Body:
					// Answered success (a replay for another command) or run:
					// critical; refused before the effect: a warning.
					sev := diagnose.Warning
					if b.Answered() || b.Effect != "" {
						sev = diagnose.Critical
					}
					add(capture.Expectation{Rule: "payload-mismatch", Role: "other-body", Keys: []string{k}, Severity: sev})
				case overlap(a, b) && (inProgress(a.Status) || inProgress(b.Status)):
					add(capture.Expectation{Rule: "in-progress-retry", Role: "concurrent-duplicate", Keys: []string{k}, Severity: diagnose.Warning})
				case !overlap(a, b) && a.Effect != "" && b.Effect != "" && a.Effect != b.Effect:
					// One after the other, and the ledger made two orders:
					// the key was not remembered. An attempt between them
					// given a's response without an effect shows it had
					// been stored and checked.
					e := capture.Expectation{Rule: "key-expired", Role: "expired-key", Keys: []string{k}, Severity: diagnose.Critical}
					if slices.ContainsFunc(attempts, func(m capture.Sent) bool {
						return m.Start.After(a.End) && m.End.Before(b.Start) && m.Answered() && m.Effect == "" && m.Response == a.Response
					}) {
						e.NotSay = "never stored"
					}
					add(e)
				}
			}
		}
	}
	// A timed-out attempt that made an order, then the same body from the
	// same user under another key that made another.
	for i, a := range sent {
		if a.Ended != "timeout" || a.Effect == "" {
			continue
		}
		for _, b := range sent[i+1:] {
			if b.Key != a.Key && b.Body == a.Body && b.Client == a.Client && b.Effect != "" {
				// A timeout came first, then two orders: critical, whether
				// or not the payloads show it is the same command. Two
				// result ids are two effects; only the payloads' being
				// one is likely where no tier logs them.
				add(capture.Expectation{Rule: "retry-new-key", Role: "new-key", Keys: []string{a.Key, b.Key}, Severity: diagnose.Critical})
			}
		}
	}
	for _, k := range keys {
		attempts := byKey[k]
		if slices.ContainsFunc(sent, func(s capture.Sent) bool { return s.Key != k && s.Body == attempts[0].Body }) {
			continue // its body also came under another key
		}
		if len(attempts) == 1 {
			if attempts[0].Answered() {
				clean = append(clean, capture.Clean{Key: k, Why: "a single attempt answered " + strconv.Itoa(attempts[0].Status)})
			}
			continue
		}
		if blockedDuplicate(attempts) {
			clean = append(clean, capture.Clean{Key: k, Why: "duplicates held on the lock and replayed: one effect, one result"})
		}
	}
	return must, clean
}

// blockedDuplicate reports whether a key's attempts are healthy
// overlapping duplicates: one body, in flight together, every one answered
// 2xx with the same response, and one effect in the ledger between them.
func blockedDuplicate(attempts []capture.Sent) bool {
	effects, overlapping := 0, false
	for i, a := range attempts {
		if !a.Answered() || a.Body != attempts[0].Body || a.Response != attempts[0].Response {
			return false
		}
		if a.Effect != "" {
			effects++
		}
		for _, b := range attempts[i+1:] {
			overlapping = overlapping || overlap(a, b)
		}
	}
	return overlapping && effects == 1
}

// inProgress is a status a server answers a duplicate with while the
// first runs.
func inProgress(status int) bool {
	return status == 409 || status == 425 || status == 429 || status == 503
}

// captureLogs are the log files of a capture folder.
func captureLogs(dir string) []string {
	return []string{filepath.Join(dir, caddyLog), filepath.Join(dir, appLog)}
}

// readCapture reads a capture folder's harness.json.
func readCapture(t *testing.T, dir string) Capture {
	t.Helper()
	var c Capture
	capture.ReadJSON(t, filepath.Join(dir, harnessJSON), &c)
	return c
}

// checkCapture reads the logs of a capture folder (of the variant named
// name) with idem and asserts the rules its harness.json calls for, and
// that none names a clean key.
func checkCapture(t *testing.T, name, dir string) {
	t.Helper()
	c := readCapture(t, dir)
	must, clean := expectations(c.Sent, c.PayloadsLogged)
	if len(must) < 4 || !slices.ContainsFunc(clean, func(k capture.Clean) bool { return strings.HasPrefix(k.Why, "duplicates held") }) {
		t.Fatalf("the traffic calls for too little to prove anything: %+v, clean %v", must, clean)
	}
	f := knownGaps.Facts(t, name)
	checkLines(f, dir, c.Sent)
	set, err := load.Files(context.Background(), captureLogs(dir), load.Options{Read: ingest.Options{}, Build: diagnose.DefaultOptions().Build()})
	if err != nil {
		t.Fatal(err)
	}
	capture.CheckRules(f, diagnose.Run(set, diagnose.DefaultOptions()).Findings, must, clean, true)
}

// tick is how stale Fiber's ${time} can be: the logger's TimeInterval
// (500ms by default), with room for a busy machine.
const tick = 500*time.Millisecond + 250*time.Millisecond

// lineChecks are the ids checkLines reports under.
var lineChecks = []string{"time/fiber-access-line", "caddy/key", "caddy/client"}

// checkLines asserts what idem reads from each request's lines against
// what the client sent: the key and the user on both tiers, and a time
// between the client's start (less Fiber's tick) and its end. What
// knownGaps names is logged instead.
func checkLines(f *capture.Facts, dir string, sent []capture.Sent) {
	r, err := capture.Read(context.Background(), captureLogs(dir)...)
	if err != nil {
		f.Errorf("%v", err)
		return
	}
	const slack = 50 * time.Millisecond
	gaps := map[string][]string{}
	for _, s := range sent {
		for _, o := range r.Obs {
			if o.RequestID != s.RequestID || o.Status == 0 && o.Source.File == filepath.Join(dir, appLog) {
				continue
			}
			proxy := o.Tier == model.TierProxy
			from := s.Start.Add(-slack)
			if !proxy {
				from = s.Start.Add(-tick)
			}
			switch {
			case o.Time.Before(from) && !proxy:
				gaps["time/fiber-access-line"] = append(gaps["time/fiber-access-line"], fmt.Sprintf("%s at %s, %s before the client sent it (latency %s)",
					s.Step, o.Source, s.Start.Sub(o.Time).Round(time.Millisecond), o.Duration.Round(time.Millisecond)))
			case o.Time.Before(from) || o.Time.After(s.End.Add(slack)):
				f.Errorf("%s: idem places the %s line %s at %s, outside the client's %s..%s", s.Step, o.Tier, o.Source, o.Time.Format(time.RFC3339Nano),
					s.Start.Format(time.RFC3339Nano), s.End.Format(time.RFC3339Nano))
			}
			if o.Method != http.MethodPost || o.Route != "/v1/orders" {
				f.Errorf("%s: idem reads %q %q from %s, the client sent POST /v1/orders", s.Step, o.Method, o.Route, o.Source)
			}
			for _, fact := range []struct{ what, got, want string }{{"key", o.Key, s.Key}, {"client", o.Client, s.Client}} {
				switch {
				case fact.got == fact.want:
				case proxy:
					gaps["caddy/"+fact.what] = append(gaps["caddy/"+fact.what], fmt.Sprintf("%s %q at %s", s.Step, fact.got, o.Source))
				default:
					f.Errorf("%s: idem reads the %s %q from %s, the client sent %q", s.Step, fact.what, fact.got, o.Source, fact.want)
				}
			}
		}
	}
	for _, id := range lineChecks {
		f.Check(id, len(gaps[id]) == 0, "%s", strings.Join(gaps[id], "; "))
	}
}
