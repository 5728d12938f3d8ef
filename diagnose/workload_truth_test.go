package diagnose_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/diagnose"
)

// TestPaymentsWorkloadTruth diagnoses the second benchmark workload
// (internal/tools/loggen/payments.awk: a payments API's nginx log in another
// layout than loggen's) and holds each finding against what the
// generator says it did to each intent (-v truth), never against an
// earlier run of idem. What each way of going wrong must and must not
// raise follows from the rule catalogue (docs/rules.md) and from what the
// generator wrote: a proxy's log alone, so payloads and effects are
// never seen.
func TestPaymentsWorkloadTruth(t *testing.T) {
	awk := generator(t, "awk")
	dir := t.TempDir()
	logPath, truthPath := filepath.Join(dir, "payments.jsonl"), filepath.Join(dir, "truth.txt")
	out, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(awk, "-v", "intents=30000", "-v", "seed=2", "-v", "faults=3", "-v", "truth="+truthPath,
		"-f", filepath.Join("..", "internal", "tools", "loggen", "payments.awk"))
	var msg strings.Builder
	cmd.Stdout, cmd.Stderr = out, &msg
	if err := cmd.Run(); err != nil {
		t.Fatalf("payments.awk: %v\n%s", err, msg.String())
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	truth := readTruth(t, truthPath)
	opts := diagnose.DefaultOptions()
	res := diagnose.Run(built(t, []string{logPath}, opts.Build()), opts)
	checkTruth(t, res, truth, func(in truthLine, got map[string]diagnose.Severity) []string {
		switch in.way {
		case "lost-same-key":
			// 499 to the client while the upstream answered 201: the
			// log has a 2xx the caller never saw. The retry under the
			// same key got the stored answer.
			return []string{"response-lost"}
		case "gateway-timeout":
			// 504 after 60 s, then the same key again 60 to 65 s
			// later: a second delivery past the default one-minute
			// deadline. No 2xx was logged for the first.
			return []string{"retry-storm"}
		case "lost-new-key":
			// The 201 lost as with lost-same-key, then a second payment
			// under a new key from the same client: two records after
			// a timeout, one finding holding both keys.
			return []string{"response-lost", "retry-new-key"}
		case "key-reused":
			// A 201, then the key again with what the server refused
			// with 422: another body under the key. Past the deadline
			// when the second came more than a minute after the first.
			want := []string{"payload-mismatch"}
			if in.span > opts.Deadline+time.Second {
				want = append(want, "retry-storm")
			} else if in.span > opts.Deadline-time.Second {
				delete(got, "retry-storm") // at the deadline: either way
			}
			return want
		case "double-click":
			// A 409 while the first delivery ran, whose 201 came after:
			// in progress, not stuck.
			if sev, ok := got["in-progress-retry"]; ok && sev != diagnose.Warning {
				t.Errorf("%s %s: in-progress-retry is %v; the first delivery's 201 follows the 409", in.way, in.key, sev)
			}
			return []string{"in-progress-retry"}
		case "upstream-failed":
			// 502 before anything was committed, then the same key
			// again, answered 201: the retry the contract asks for.
			return nil
		}
		t.Fatalf("truth file: unknown way %q", in.way)
		return nil
	})
	// The generator made each way at its share (faults=3: 10% of intents
	// in all): a truth file that lost its lines would pass the rest.
	checkShares(t, truth, 30000, map[string]float64{"lost-same-key": 0.045, "gateway-timeout": 0.021, "lost-new-key": 0.015,
		"key-reused": 0.009, "double-click": 0.009, "upstream-failed": 0.006})
}

// TestLoggenWorkloadTruth is TestPaymentsWorkloadTruth for the first
// benchmark workload, loggen's (-truth), in each of its formats: the same
// traffic seen by a proxy with its upstream's status (nginx), by a proxy
// that logs no upstream status (Envoy), by the server alone (slog), and
// by the browser (HAR). Where a format cannot show what went wrong, the
// rules that would say it must list themselves as not evaluated, and
// claim nothing.
func TestLoggenWorkloadTruth(t *testing.T) {
	dir := t.TempDir()
	gen := buildLoggen(t, dir)
	for _, w := range []struct {
		format string
		// couldNot are rules that must say they could not look.
		couldNot []string
		expect   func(t *testing.T, in truthLine, got map[string]diagnose.Severity) []string
	}{
		{format: "nginx", expect: func(t *testing.T, in truthLine, got map[string]diagnose.Severity) []string {
			switch in.way {
			case "lost-same-key":
				// 499 while the upstream answered 201; the retry 4 s
				// later under the key got 201.
				return []string{"response-lost"}
			case "lost-new-key":
				return []string{"response-lost", "retry-new-key"}
			}
			// key-reused: a 201, then a bare 409 half a minute later.
			// No tier logged the payloads, and a bare 409 does not say
			// it was refused for another one (docs/rules.md).
			return nil
		}},
		{format: "envoy", couldNot: []string{"response-lost", "retry-new-key", "payload-mismatch", "key-expired"},
			// A lost response is response code 0 and flag DC: what the
			// server did is not in the log.
			expect: func(*testing.T, truthLine, map[string]diagnose.Severity) []string { return nil }},
		{format: "slog", couldNot: []string{"retry-new-key"}, expect: func(t *testing.T, in truthLine, got map[string]diagnose.Severity) []string {
			if in.way != "lost-same-key" {
				return nil // no client address to tie a new key to the old; a bare 409 as with nginx
			}
			// The server answered 201 twice, the second a replay the
			// log cannot tell from a second run (no decision, no result
			// id): likely, never certain. Non-atomic when the retry
			// came while the first still ran, key-expired after; and
			// where it came after the first 201, the resend says the
			// caller lost that 201 (response-lost, inferred).
			for id, sev := range got {
				if sev != diagnose.Warning {
					t.Errorf("%s %s: %s is %v; the log cannot tell a replay from a second run", in.way, in.key, id, sev)
				}
			}
			var want []string
			for _, id := range []string{"key-expired", "non-atomic-reservation"} {
				if hasRule(got, id) {
					want = append(want, id)
				}
			}
			if len(want) != 1 {
				t.Errorf("%s %s: %v, want one of key-expired and non-atomic-reservation", in.way, in.key, got)
			}
			if hasRule(got, "response-lost") {
				want = append(want, "response-lost")
			}
			return want
		}},
		{format: "har", couldNot: []string{"response-lost", "retry-new-key"}, expect: func(t *testing.T, in truthLine, got map[string]diagnose.Severity) []string {
			if in.way == "key-reused" {
				// The browser logged both bodies: another currency.
				return []string{"payload-mismatch"}
			}
			return nil // net::ERR_TIMED_OUT, then a retry: what the server did is not in the log
		}},
	} {
		t.Run(w.format, func(t *testing.T) {
			logPath, truthPath := filepath.Join(dir, w.format+".log"), filepath.Join(dir, w.format+".truth")
			if out, err := exec.Command(gen, "-format", w.format, "-intents", "20000", "-seed", "1", "-faults", "3",
				"-o", logPath, "-truth", truthPath).CombinedOutput(); err != nil {
				t.Fatalf("loggen: %v\n%s", err, out)
			}
			truth := readTruth(t, truthPath)
			checkShares(t, truth, 20000, map[string]float64{"lost-same-key": 0.09, "lost-new-key": 0.03, "key-reused": 0.015})
			opts := diagnose.DefaultOptions()
			res := diagnose.Run(built(t, []string{logPath}, opts.Build()), opts)
			checkTruth(t, res, truth, func(in truthLine, got map[string]diagnose.Severity) []string { return w.expect(t, in, got) })
			for _, id := range w.couldNot {
				if !slices.ContainsFunc(res.NotEvaluated, func(ne diagnose.NotEvaluated) bool { return ne.Rule.ID == id }) {
					t.Errorf("%s: not listed as not evaluated, yet it could not look", id)
				}
			}
		})
	}
}

// generator finds the program a test generates its logs with: without
// it the test skips, or fails under CI=true; with -short it skips.
func generator(t *testing.T, name string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("generates logs")
	}
	path, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is needed to generate the workload", name)
		}
		t.Skip("no " + name)
	}
	return path
}

// buildLoggen builds internal/tools/loggen into dir and returns its path.
func buildLoggen(t *testing.T, dir string) string {
	t.Helper()
	gen := filepath.Join(dir, "loggen")
	if out, err := exec.Command(generator(t, "go"), "build", "-o", gen, "../internal/tools/loggen").CombinedOutput(); err != nil {
		t.Fatalf("building loggen: %v\n%s", err, out)
	}
	return gen
}

// checkTruth holds res's findings against truth, intent by intent: the
// rules expect gives for an intent must name its key, and no other may;
// where retry-new-key is among them, the retry's new key must share its
// finding with the key it stood in for, and raise nothing else (nothing
// at all otherwise); every intent not in truth went right and must raise
// nothing. expect may delete from got a rule that may go either way.
func checkTruth(t *testing.T, res *diagnose.Result, truth []truthLine, expect func(in truthLine, got map[string]diagnose.Severity) []string) {
	t.Helper()
	// raised[key] holds the rules that named the key, with the
	// severities they gave it.
	raised := map[string]map[string]diagnose.Severity{}
	together := map[string]map[string]bool{} // retry-new-key: the keys each finding joined
	for _, f := range res.Findings {
		var keys []string
		for _, in := range f.Intents {
			keys = append(keys, in.Key)
		}
		keys = append(keys, f.Keys...)
		for _, k := range keys {
			if raised[k] == nil {
				raised[k] = map[string]diagnose.Severity{}
			}
			raised[k][f.Rule.ID] = f.Severity
			if f.Rule.ID == "retry-new-key" {
				if together[k] == nil {
					together[k] = map[string]bool{}
				}
				for _, o := range keys {
					together[k][o] = true
				}
			}
		}
	}
	for _, in := range truth {
		got := raised[in.key]
		if got == nil {
			got = map[string]diagnose.Severity{}
		}
		want := expect(in, got)
		for _, r := range want {
			if _, ok := got[r]; !ok {
				t.Errorf("%s %s: %s did not fire (raised: %v)", in.way, in.key, r, got)
			}
		}
		for r := range got {
			if !slices.Contains(want, r) {
				t.Errorf("%s %s: %s fired, which the generator did not make (raised: %v)", in.way, in.key, r, got)
			}
		}
		delete(raised, in.key)
		switch extra := raised[in.key2]; {
		case in.key2 == "":
		case slices.Contains(want, "retry-new-key"):
			if !together[in.key][in.key2] {
				t.Errorf("%s %s: no retry-new-key finding holds it with the retry's key %s", in.way, in.key, in.key2)
			}
			if len(extra) != 1 || !hasRule(extra, "retry-new-key") {
				t.Errorf("%s: the retry's key %s raised %v, only retry-new-key expected", in.way, in.key2, extra)
			}
		case len(extra) > 0:
			t.Errorf("%s: the retry's key %s raised %v, nothing expected", in.way, in.key2, extra)
		}
		delete(raised, in.key2)
	}
	for k, rules := range raised {
		t.Errorf("intent %s went right, yet raised %v", k, rules)
	}
}

// checkShares fails when a way of going wrong is far from its share of
// intents: a truth file that lost its lines would pass checkTruth.
func checkShares(t *testing.T, truth []truthLine, intents int, shares map[string]float64) {
	t.Helper()
	ways := map[string]int{}
	for _, in := range truth {
		ways[in.way]++
	}
	for way, share := range shares {
		if n, want := float64(ways[way]), share*float64(intents); n < want*0.8 || n > want*1.2 {
			t.Errorf("%s: %v intents in the truth file, want about %v", way, n, want)
		}
	}
	if len(ways) != len(shares) {
		t.Errorf("ways in the truth file: %v, want those of %v", ways, shares)
	}
}

func hasRule(raised map[string]diagnose.Severity, id string) bool {
	_, ok := raised[id]
	return ok
}

// truthLine is what a generator (payments.awk, loggen) says it did to
// one intent.
type truthLine struct {
	way, key, key2 string
	span           time.Duration // key-reused: from the first request's start to the second's
}

// readTruth reads a generator's truth file.
func readTruth(t *testing.T, path string) []truthLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []truthLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			t.Fatalf("truth file: %q", sc.Text())
		}
		in := truthLine{way: fields[0], key: fields[1]}
		switch {
		case in.way == "lost-new-key" && len(fields) == 3:
			in.key2 = fields[2]
		case in.way == "key-reused" && len(fields) == 3:
			ms, err := strconv.Atoi(fields[2])
			if err != nil {
				t.Fatalf("truth file: %q: %v", sc.Text(), err)
			}
			in.span = time.Duration(ms) * time.Millisecond
		case len(fields) != 2:
			t.Fatalf("truth file: %q", sc.Text())
		}
		out = append(out, in)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
