package diagnose_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/load"
	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/report"
	"github.com/idem-cli/idem/trace"
)

// built correlates paths, building what b says, and keeps only what was
// built, as idem diagnose does.
func built(t *testing.T, paths []string, b trace.Build) *model.Set {
	t.Helper()
	set, err := load.Files(context.Background(), paths, load.Options{Read: ingest.Options{}, Build: b})
	if err != nil {
		t.Fatal(err)
	}
	set.LookupsDone()
	return set
}

// render diagnoses set with opts and renders the report as JSON and
// Markdown (whose sequence diagrams show every delivery of the implicated
// intents).
func render(t *testing.T, set *model.Set, opts diagnose.Options) []byte {
	t.Helper()
	res := diagnose.Run(set, opts)
	rep := &report.Report{Inputs: set.Inputs, Summary: res.Summary, Findings: res.Findings, Compact: true}
	var out bytes.Buffer
	if err := rep.JSON(&out); err != nil {
		t.Fatal(err)
	}
	rep.Markdown(&out)
	return out.Bytes()
}

// oracleOptions are the thresholds the oracle runs at: the defaults, and
// a retry window wider and narrower than the default follow-up window.
func oracleOptions() map[string]diagnose.Options {
	wide, narrow := diagnose.DefaultOptions(), diagnose.DefaultOptions()
	wide.RetryWindow, narrow.RetryWindow = 30*time.Minute, 5*time.Minute
	return map[string]diagnose.Options{"default": diagnose.DefaultOptions(), "retry-window=30m": wide, "retry-window=5m": narrow}
}

// checkOracle fails when what the rules ask the correlator to build gives
// another report than building everything.
func checkOracle(t *testing.T, paths []string) {
	t.Helper()
	all := built(t, paths, trace.Build{All: true}) // whatever the options
	for name, opts := range oracleOptions() {
		want := render(t, all, opts)
		if got := render(t, built(t, paths, opts.Build()), opts); !bytes.Equal(got, want) {
			t.Errorf("%s: the report differs from building every intent:\n%s", name, firstDiff(got, want))
		}
	}
}

func firstDiff(got, want []byte) string {
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range min(len(gl), len(wl)) {
		if gl[i] != wl[i] {
			return fmt.Sprintf("line %d:\n got  %.400s\n want %.400s", i+1, gl[i], wl[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(gl), len(wl))
}

func glob(t *testing.T, pattern string) []string {
	t.Helper()
	paths, err := filepath.Glob(pattern)
	if err != nil || len(paths) == 0 {
		t.Fatalf("%s: no files (%v)", pattern, err)
	}
	return paths
}

// files keeps the regular files among paths, leaving folders and READMEs.
func files(paths []string) []string {
	var out []string
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && filepath.Ext(p) != ".md" {
			out = append(out, p)
		}
	}
	return out
}

func TestOracleScenarios(t *testing.T) {
	for _, dir := range glob(t, filepath.Join("..", "fixtures", "scenarios", "*")) {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			continue
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			checkOracle(t, glob(t, filepath.Join(dir, "*")))
		})
	}
}

func TestOracleFixtures(t *testing.T) {
	exports := glob(t, filepath.Join("..", "fixtures", "exports", "*"))
	for _, p := range exports {
		t.Run(filepath.Base(p), func(t *testing.T) {
			t.Parallel()
			checkOracle(t, []string{p})
		})
	}
	t.Run("exports-together", func(t *testing.T) { checkOracle(t, exports) })
	for _, dir := range []string{"incident", "formats", "formats/real", "hostile"} {
		t.Run(dir, func(t *testing.T) { checkOracle(t, files(glob(t, filepath.Join("..", "fixtures", dir, "*")))) })
	}
}

// TestOracleWorkload runs the oracle on generated logs: thousands of
// plain intents, with losses replayed under the same key, retried under a
// new key a few seconds later, and conflicts among them.
func TestOracleWorkload(t *testing.T) {
	dir := t.TempDir()
	gen := buildLoggen(t, dir)
	for _, w := range []struct {
		format  string
		intents int
	}{{"nginx", 20000}, {"envoy", 2000}, {"slog", 2000}} {
		t.Run(w.format, func(t *testing.T) {
			path := filepath.Join(dir, w.format+".log")
			if out, err := exec.Command(gen, "-format", w.format, "-intents", fmt.Sprint(w.intents), "-seed", "1", "-o", path).CombinedOutput(); err != nil {
				t.Fatalf("loggen: %v\n%s", err, out)
			}
			checkOracle(t, []string{path})
		})
	}
}

// write puts lines into a new file in dir.
func write(t *testing.T, dir, name string, lines ...string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// nginxLine is one nginx JSON access-log line.
func nginxLine(at time.Time, client, rid, key, method, route string, status, upstream int) string {
	return fmt.Sprintf(`{"time_iso8601":%q,"msec":"%d.%03d","remote_addr":%q,"http_x_request_id":%q,"http_idempotency_key":%q,`+
		`"request_method":%q,"request_uri":%q,"status":"%d","request_time":"0.120","upstream_status":"%d"}`,
		at.Format(time.RFC3339), at.Unix(), at.Nanosecond()/1e6, client, rid, key, method, route, status, upstream)
}

var oracleT0 = time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC)

// TestRetryWindowWidensWhatIsBuilt is a retry under a new key twenty
// minutes after a lost response: found with a 30-minute retry window, not
// with a 5-minute one, and the same whether everything is built or only
// what the rules ask for.
func TestRetryWindowWidensWhatIsBuilt(t *testing.T) {
	dir := t.TempDir()
	fp := "sha256:45507fac511ba7331a07647a5d208d94c3dd4708d3ae6b336eb68c3744b6b332"
	later := oracleT0.Add(20 * time.Minute)
	paths := []string{
		write(t, dir, "nginx.jsonl",
			nginxLine(oracleT0, "198.51.100.23", "rid-first", "key-first", "POST", "/v1/transfers", 499, 201),
			nginxLine(later, "198.51.100.23", "rid-second", "key-second", "POST", "/v1/transfers", 201, 201)),
		write(t, dir, "app.jsonl",
			fmt.Sprintf(`{"time":%q,"level":"INFO","msg":"transfer created","request_id":"rid-first","method":"POST","route":"/v1/transfers","status":201,"fingerprint":%q,"result_id":"tr_001","effect":true}`, oracleT0.Format(time.RFC3339Nano), fp),
			fmt.Sprintf(`{"time":%q,"level":"INFO","msg":"transfer created","request_id":"rid-second","method":"POST","route":"/v1/transfers","status":201,"fingerprint":%q,"result_id":"tr_002","effect":true}`, later.Format(time.RFC3339Nano), fp)),
	}
	for _, tt := range []struct {
		window time.Duration
		fires  bool
	}{{30 * time.Minute, true}, {5 * time.Minute, false}} {
		opts := diagnose.DefaultOptions()
		opts.RetryWindow = tt.window
		for _, b := range []trace.Build{{All: true}, opts.Build()} {
			fired := false
			for _, f := range diagnose.Run(built(t, paths, b), opts).Findings {
				if f.Rule.ID == "retry-new-key" && strings.Join(f.Keys, ",") == "key-first,key-second" {
					fired = true
				}
			}
			if fired != tt.fires {
				t.Errorf("retry window %s, build all=%v: retry-new-key fired %v, want %v", tt.window, b.All, fired, tt.fires)
			}
		}
	}
	checkOracle(t, paths)
}

// TestPlainIntentsTheRulesNeed are plain intents (one answered proxy line
// each) that a rule reads: the correlator must build them when told what
// the rules need, and builds them whatever the thresholds.
func TestPlainIntentsTheRulesNeed(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name  string
		lines []string
		rule  string
	}{
		{"attempt-scoped keys", []string{
			nginxLine(oracleT0, "203.0.113.7", "rid-1", "publish-107:attempt-1", "POST", "/v1/articles", 201, 201),
			nginxLine(oracleT0.Add(time.Minute), "203.0.113.7", "rid-2", "publish-107:attempt-2", "POST", "/v1/articles", 201, 201),
		}, "attempt-scoped-key"},
		{"new key a few seconds after a loss", []string{
			nginxLine(oracleT0, "203.0.113.8", "rid-3", "key-a", "POST", "/v1/orders", 499, 201),
			nginxLine(oracleT0.Add(5*time.Second), "203.0.113.8", "rid-4", "key-b", "POST", "/v1/orders", 201, 201),
		}, "retry-new-key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := write(t, dir, strings.ReplaceAll(tt.name, " ", "-")+".jsonl", tt.lines...)
			opts := diagnose.DefaultOptions()
			fired := false
			for _, f := range diagnose.Run(built(t, []string{path}, opts.Build()), opts).Findings {
				fired = fired || f.Rule.ID == tt.rule
			}
			if !fired {
				t.Errorf("%s did not fire", tt.rule)
			}
			checkOracle(t, []string{path})
		})
	}
}
