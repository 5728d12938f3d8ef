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
	"github.com/idem-cli/idem/internal/harness"
	"github.com/idem-cli/idem/load"
	"github.com/idem-cli/idem/model"
)

// cleanKey is a key no rule may name, and why.
type cleanKey struct {
	Key string
	Why string
}

// overlap reports whether two requests were in flight at once.
func overlap(a, b Sent) bool { return a.Start.Before(b.End) && b.Start.Before(a.End) }

// expectations derives, from what was sent, how each request ended and
// what the ledger made of it alone, the rules that must fire and the keys
// no rule may name. payloads says whether a tier logs a hash of each body:
// without it a retry under a new key can only be likely.
func expectations(sent []Sent, payloads bool) (must []harness.Expectation, clean []cleanKey) {
	keys, byKey := harness.ByKey(sent, func(s Sent) string { return s.Key })
	add := func(e harness.Expectation) { must = harness.Expect(must, e) }
	for _, k := range keys {
		attempts := byKey[k]
		for i, a := range attempts {
			// The client gave up, the service made the order: a lost response.
			// A later same-key attempt that got the order made for it, and
			// made none, recovered it: the contract held.
			if a.Ended == "timeout" && a.Effect != "" {
				sev := diagnose.Warning
				if slices.ContainsFunc(attempts[i+1:], func(b Sent) bool {
					return ok2xx(b) && b.Effect == "" && strings.Contains(b.Response, strconv.Quote(a.Effect))
				}) {
					sev = diagnose.Info
				}
				add(harness.Expectation{Rule: "response-lost", Role: "lost-response", Keys: []string{k}, Severity: sev})
			}
			for _, b := range attempts[i+1:] {
				switch {
				case b.Body != a.Body:
					// Answered success (a replay for another command) or run:
					// critical; refused before the effect: a warning.
					sev := diagnose.Warning
					if ok2xx(b) || b.Effect != "" {
						sev = diagnose.Critical
					}
					add(harness.Expectation{Rule: "payload-mismatch", Role: "other-body", Keys: []string{k}, Severity: sev})
				case overlap(a, b) && (inProgress(a.Status) || inProgress(b.Status)):
					add(harness.Expectation{Rule: "in-progress-retry", Role: "concurrent-duplicate", Keys: []string{k}, Severity: diagnose.Warning})
				case !overlap(a, b) && a.Effect != "" && b.Effect != "" && a.Effect != b.Effect:
					// One after the other, and the ledger made two orders:
					// the key was not remembered. An attempt between them
					// given a's response without an effect shows it had
					// been stored and checked.
					e := harness.Expectation{Rule: "key-expired", Role: "expired-key", Keys: []string{k}, Severity: diagnose.Critical}
					if slices.ContainsFunc(attempts, func(m Sent) bool {
						return m.Start.After(a.End) && m.End.Before(b.Start) && ok2xx(m) && m.Effect == "" && m.Response == a.Response
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
				// A timeout came first: critical where the payloads show
				// it is the same command, likely (a warning) where not.
				sev := diagnose.Warning
				if payloads {
					sev = diagnose.Critical
				}
				add(harness.Expectation{Rule: "retry-new-key", Role: "new-key", Keys: []string{a.Key, b.Key}, Severity: sev})
			}
		}
	}
	for _, k := range keys {
		attempts := byKey[k]
		if slices.ContainsFunc(sent, func(s Sent) bool { return s.Key != k && s.Body == attempts[0].Body }) {
			continue // its body also came under another key
		}
		if len(attempts) == 1 {
			if ok2xx(attempts[0]) {
				clean = append(clean, cleanKey{k, "a single attempt answered " + strconv.Itoa(attempts[0].Status)})
			}
			continue
		}
		if blockedDuplicate(attempts) {
			clean = append(clean, cleanKey{k, "duplicates held on the lock and replayed: one effect, one result"})
		}
	}
	return must, clean
}

// blockedDuplicate reports whether a key's attempts are healthy
// overlapping duplicates: one body, in flight together, every one answered
// 2xx with the same response, and one effect in the ledger between them.
func blockedDuplicate(attempts []Sent) bool {
	effects, overlapping := 0, false
	for i, a := range attempts {
		if !ok2xx(a) || a.Body != attempts[0].Body || a.Response != attempts[0].Response {
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

func ok2xx(s Sent) bool { return s.Ended == "response" && s.Status >= 200 && s.Status <= 299 }

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
	harness.ReadJSON(t, filepath.Join(dir, harnessJSON), &c)
	return c
}

// gapFor is the knownGaps entry for id on the capture named name: its
// own, else the one every capture shares.
func gapFor(name, id string) (string, bool) {
	if g, ok := knownGaps[name+":"+id]; ok {
		return g, true
	}
	g, ok := knownGaps[id]
	return g, ok
}

// checkCapture reads the logs of a capture folder (of the variant named
// name) with idem and asserts the rules its harness.json calls for, and
// that none names a clean key.
func checkCapture(t *testing.T, name, dir string) {
	t.Helper()
	c := readCapture(t, dir)
	must, clean := expectations(c.Sent, c.PayloadsLogged)
	if len(must) < 4 || !slices.ContainsFunc(clean, func(k cleanKey) bool { return strings.HasPrefix(k.Why, "duplicates held") }) {
		t.Fatalf("the traffic calls for too little to prove anything: %+v, clean %v", must, clean)
	}
	checkLines(t, name, dir, c.Sent)
	set, err := load.Files(context.Background(), captureLogs(dir), load.Options{Read: ingest.Options{}, Build: diagnose.DefaultOptions().Build()})
	if err != nil {
		t.Fatal(err)
	}
	findings := diagnose.Run(set, diagnose.DefaultOptions()).Findings
	for _, e := range must {
		gap, known := gapFor(name, e.Rule+"/"+e.Role)
		fired := slices.ContainsFunc(findings, func(f *diagnose.Finding) bool {
			return f.Rule.ID == e.Rule && harness.Names(f, e.Keys...)
		})
		switch {
		case !fired && known:
			t.Logf("known gap: %s does not fire for the %s (%v): %s", e.Rule, e.Role, e.Keys, gap)
		case !fired:
			t.Errorf("%s does not fire for the %s (keys %v); findings:\n%s", e.Rule, e.Role, e.Keys, harness.Findings(findings))
		case known:
			t.Errorf("%s now fires for the %s: remove its knownGaps entry", e.Rule, e.Role)
		}
		if !fired {
			continue
		}
		sevID := e.Rule + "/" + e.Role + "/severity"
		gap, known = gapFor(name, sevID)
		right := slices.ContainsFunc(findings, func(f *diagnose.Finding) bool {
			return f.Rule.ID == e.Rule && harness.Names(f, e.Keys...) && f.Severity == e.Severity
		})
		switch {
		case !right && known:
			t.Logf("known gap: %s for the %s (%v) is not %s: %s", e.Rule, e.Role, e.Keys, e.Severity, gap)
		case !right:
			t.Errorf("%s for the %s (keys %v) is not %s; findings:\n%s", e.Rule, e.Role, e.Keys, e.Severity, harness.Findings(findings))
		case known:
			t.Errorf("%s for the %s is now %s: remove the %s knownGaps entry", e.Rule, e.Role, e.Severity, sevID)
		}
		if e.NotSay == "" {
			continue
		}
		claimID := e.Rule + "/" + e.Role + "/claim"
		gap, known = gapFor(name, claimID)
		says := slices.ContainsFunc(findings, func(f *diagnose.Finding) bool {
			return f.Rule.ID == e.Rule && harness.Names(f, e.Keys...) && strings.Contains(f.Narrative, e.NotSay)
		})
		switch {
		case says && known:
			t.Logf("known gap: %s for the %s (%v) says %q, which the traffic disproves: %s", e.Rule, e.Role, e.Keys, e.NotSay, gap)
		case says:
			t.Errorf("%s for the %s (keys %v) says %q, which the traffic disproves; findings:\n%s", e.Rule, e.Role, e.Keys, e.NotSay, harness.Findings(findings))
		case known:
			t.Errorf("%s for the %s no longer says %q: remove the %s knownGaps entry", e.Rule, e.Role, e.NotSay, claimID)
		}
	}
	// Must not fire: every finding is one the traffic calls for.
	for _, f := range findings {
		if !slices.ContainsFunc(must, func(e harness.Expectation) bool { return e.Rule == f.Rule.ID && harness.Names(f, e.Keys...) }) {
			t.Errorf("%s fires where the traffic calls for no such rule: %s", f.Rule.ID, f.Narrative)
		}
	}
	for _, k := range clean {
		for _, f := range findings {
			if harness.Names(f, k.Key) {
				t.Errorf("%s names key %s (%s): %s", f.Rule.ID, k.Key, k.Why, f.Narrative)
			}
		}
	}
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
func checkLines(t *testing.T, name, dir string, sent []Sent) {
	t.Helper()
	r, err := harness.Read(context.Background(), captureLogs(dir)...)
	if err != nil {
		t.Fatal(err)
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
				t.Errorf("%s: idem places the %s line %s at %s, outside the client's %s..%s", s.Step, o.Tier, o.Source, o.Time.Format(time.RFC3339Nano),
					s.Start.Format(time.RFC3339Nano), s.End.Format(time.RFC3339Nano))
			}
			if o.Method != http.MethodPost || o.Route != "/v1/orders" {
				t.Errorf("%s: idem reads %q %q from %s, the client sent POST /v1/orders", s.Step, o.Method, o.Route, o.Source)
			}
			for _, f := range []struct{ what, got, want string }{{"key", o.Key, s.Key}, {"client", o.Client, s.Client}} {
				switch {
				case f.got == f.want:
				case proxy:
					gaps["caddy/"+f.what] = append(gaps["caddy/"+f.what], fmt.Sprintf("%s %q at %s", s.Step, f.got, o.Source))
				default:
					t.Errorf("%s: idem reads the %s %q from %s, the client sent %q", s.Step, f.what, f.got, o.Source, f.want)
				}
			}
		}
	}
	for _, id := range lineChecks {
		gap, known := gapFor(name, id)
		switch got := gaps[id]; {
		case len(got) > 0 && known:
			t.Logf("known gap %s: %s: %s", id, strings.Join(got, "; "), gap)
		case len(got) > 0:
			t.Errorf("%s: %s", id, strings.Join(got, "; "))
		case known:
			t.Errorf("%s now holds on every line: remove its knownGaps entry", id)
		}
	}
}
