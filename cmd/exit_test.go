package cmd

import (
	"context"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/internal/iostreams"
)

// run executes a command line against test streams.
func run(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ios, in, out, errOut := iostreams.Test()
	in.WriteString(stdin)
	f := &Factory{IO: ios, Now: func() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) }, Getenv: func(string) string { return "" }}
	code = Run(context.Background(), f, args)
	return code, out.String(), errOut.String()
}

// goodStdin is one line idem reads.
const goodStdin = `{"time":"2026-11-30T10:00:00Z","level":"INFO","msg":"request completed","request_id":"r1","method":"POST","route":"/x","status":201,"idempotency_key":"k"}` + "\n"

// TestExitCodes pins the documented exit codes: testscript can only tell
// zero from non-zero.
func TestExitCodes(t *testing.T) {
	fx := "../fixtures/"
	tests := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"healthy is clean", "", []string{"diagnose", fx + "scenarios/healthy/client.har", fx + "scenarios/healthy/envoy.jsonl", fx + "scenarios/healthy/orders.jsonl"}, 0, "No findings.", ""},
		{"critical finding", "", []string{"diagnose", fx + "scenarios/retry-new-key/app.jsonl", fx + "scenarios/retry-new-key/client.har", fx + "scenarios/retry-new-key/nginx.jsonl"}, 1, "retry-new-key", ""},
		{"fail-on critical ignores warnings", "", []string{"diagnose", "--fail-on", "critical", fx + "scenarios/retry-storm/client.har", fx + "scenarios/retry-storm/nginx.jsonl", fx + "scenarios/retry-storm/orders.jsonl"}, 0, "retry-storm", ""},
		{"info does not fail by default", "", []string{"diagnose", "--rule", "response-lost", fx + "incident/app.jsonl", fx + "incident/client.har", fx + "incident/nginx-access.jsonl"}, 0, "INFO  response-lost", ""},
		{"fail-on info", "", []string{"diagnose", "--fail-on", "info", "--rule", "response-lost", fx + "incident/app.jsonl", fx + "incident/client.har", fx + "incident/nginx-access.jsonl"}, 1, "response-lost", ""},
		// A server's log alone cannot show a lost response or compare
		// payloads: no findings there is inconclusive, exit 3.
		{"stdin", `{"time":"2026-11-30T10:00:00Z","level":"INFO","msg":"request completed","request_id":"r1","method":"POST","route":"/x","status":201,"idempotency_key":"k"}` + "\n", []string{"diagnose", "-"}, 3, "1 intent", ""},
		{"a server's log alone is inconclusive", goodStdin, []string{"diagnose", "-"}, 3, "no client or proxy log, so no tier could see a response go missing", ""},
		{"bad line is counted, not fatal", "{broken\n" + goodStdin, []string{"diagnose", "-"}, 3, "-:1  invalid JSON", ""},
		{"nothing recognised is not a clean bill", "[2026-11-30T11:00:00Z] server starting\nlistening on :8080\n", []string{"diagnose", "-"}, 2, "",
			"idem: nothing to diagnose: no line of the 1 input(s) was recognised (see 'idem help formats')"},
		{"the unrecognised input is named with its first line", "[2026-11-30T11:00:00Z] server starting\nlistening on :8080\n", []string{"diagnose", "-"}, 2, "",
			"idem: warning: -: no line was recognised (see 'idem help formats'); line 1: [2026-11-30T11:00:00Z] server starting"},
		{"an unrecognised input among others is a warning", "", []string{"diagnose", fx + "incident/app.jsonl", fx + "hostile/README.md"}, 3, "2 intents",
			"warning: ../fixtures/hostile/README.md: no line was recognised"},
		{"an input of one overlong line says why", strings.Repeat("x", 2048) + "\n", []string{"diagnose", "--max-line-bytes", "1024", "-"}, 2, "",
			"no line was recognised (see 'idem help formats'); line 1: (line longer than 1024 bytes)"},
		{"a secret in an unrecognised first line is masked", "GET /pay?token=sk_live_4eC39HqLyjWDarjtT1zdp7dc HTTP/1.1\n", []string{"diagnose", "-"}, 2, "", "line 1: GET /pay?token=[REDACTED]"},
		{"JSON about no request", `{"level":"info","msg":"server starting"}` + "\n", []string{"diagnose", "-"}, 2, "", "nothing to diagnose: no line of the 1 input(s) was about a request"},
		{"empty input", "", []string{"diagnose", fx + "hostile/empty.jsonl"}, 2, "", "nothing to diagnose: the 1 input(s) held no line"},
		{"nothing to trace", "listening on :8080\n", []string{"trace", "k", "-"}, 2, "", "nothing to diagnose: no line of the 1 input(s) was recognised"},
		{"a bracketed first line hides nothing", "", []string{"diagnose", fx + "hostile/bracket-first-line.log"}, 3, "4 intents", ""},
		{"repaired lines are said", "", []string{"diagnose", fx + "hostile/control-bytes.jsonl"}, 3, "4 intents", "control-bytes.jsonl: 2 lines read although not valid JSON (first at line 2)"},
		// The real capture behind nginx: its combined log alone, or the
		// backend's log alone, cannot show a double charge; both together
		// with the HAR-free traffic still lack payloads, and say so.
		{"a combined access log alone is inconclusive", "", []string{"diagnose", fx + "real/nginx/access.combined.log"}, 3, "no input holds the server tier's lines", ""},
		{"an application log alone is inconclusive", "", []string{"diagnose", fx + "real/nginx/app.jsonl"}, 3, "retry-new-key, duplicate-submission, payload-mismatch", ""},
		{"inconclusive never says no findings", "", []string{"diagnose", fx + "real/nginx/app.jsonl"}, 3, "No findings from the rules that could look; 6 rules could not", ""},
		{"findings win over inconclusive", "", []string{"diagnose", fx + "scenarios/retry-storm/nginx.jsonl"}, 1, "not evaluated", ""},
		{"every rule looked: no findings is earned", "", []string{"diagnose", fx + "scenarios/healthy/client.har", fx + "scenarios/healthy/envoy.jsonl", fx + "scenarios/healthy/orders.jsonl"}, 0, "\nNo findings.\n", ""},
		{"a one-line HAR cites the entry", "", []string{"trace", "c0ffee00-1111-4222-8333-000000000002", fx + "hostile/one-line.har"}, 0, "one-line.har:1#entries[1]", ""},
		{"missing file", "", []string{"diagnose", fx + "nope.jsonl"}, 2, "", "idem: cannot read input ../fixtures/nope.jsonl: no such file"},
		{"missing file among several: the others are reported", "", []string{"diagnose", fx + "incident/app.jsonl", fx + "nope.jsonl", fx + "incident/nginx-access.jsonl"}, 2,
			"3 inputs, 14 lines", "idem: cannot read input ../fixtures/nope.jsonl: no such file"},
		{"missing file among several, trace", "", []string{"trace", "0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41", fx + "incident/app.jsonl", fx + "nope.jsonl"}, 2,
			"deliveries 2", "idem: cannot read input ../fixtures/nope.jsonl: no such file"},
		{"a HAR cut short", "", []string{"diagnose", fx + "hostile/cut-short.har"}, 2, "", "input cut short: ../fixtures/hostile/cut-short.har: the JSON document ends inside a value at line 92"},
		{"gzip cut short: what was read is reported, exit 2", "", []string{"diagnose", fx + "hostile/cut-short.jsonl.gz"}, 2, "input cut short", "unexpected EOF"},
		{"unknown rule", "", []string{"diagnose", "--rule", "nope", fx + "incident/app.jsonl"}, 2, "", `unknown rule "nope"`},
		{"bad format", "", []string{"diagnose", "-o", "yaml", fx + "incident/app.jsonl"}, 2, "", `invalid --format "yaml"`},
		{"bad fail-on", "", []string{"diagnose", "--fail-on", "high", fx + "incident/app.jsonl"}, 2, "", "invalid severity"},
		{"bad since", "", []string{"diagnose", "--since", "tuesday", fx + "incident/app.jsonl"}, 2, "", "cannot read time"},
		{"unknown flag", "", []string{"diagnose", "--frobnicate"}, 2, "", "unknown flag"},
		{"line limit too small", "", []string{"diagnose", "--max-line-bytes", "10", fx + "incident/app.jsonl"}, 2, "", "--max-line-bytes must be from 1024 to 1073741824"},
		{"profile to an unwritable path", "", []string{"diagnose", "--cpuprofile", fx + "nope/cpu.prof", fx + "incident/app.jsonl"}, 2, "", "--cpuprofile: open"},
		{"heap profile to an unwritable path", "", []string{"diagnose", "--memprofile", fx + "nope/mem.prof", fx + "incident/app.jsonl"}, 2, "", "--memprofile: open"},
		{"line limit too large", "", []string{"diagnose", "--max-line-bytes", "4000000000", fx + "incident/app.jsonl"}, 2, "", "--max-line-bytes must be from 1024 to 1073741824"},
		{"bad color", "", []string{"--color", "purple", "rules"}, 2, "", "invalid --color"},
		{"--tier FILE=TIER of an unknown tier", "", []string{"diagnose", "--tier", "app.jsonl=database", fx + "incident/app.jsonl"}, 2, "", "--tier app.jsonl: unknown tier"},
		{"--tier FILE=TIER of a file not read", "", []string{"diagnose", "--tier", "client.log=client", fx + "incident/app.jsonl"}, 2, "",
			"--tier client.log: client.log is not one of the inputs (../fixtures/incident/app.jsonl)"},
		{"--tier without a tier", "", []string{"trace", "k", "--tier", "app.jsonl=", fx + "incident/app.jsonl"}, 2, "", "want FILE=TIER"},
		{"--tier FILE=TIER with standard input only", goodStdin, []string{"trace", "k", "--tier", "app.jsonl=server"}, 2, "", "no input file is named"},
		{"--tier naming two inputs by their base name", "", []string{"trace", "k", "--tier", "app.jsonl=server", fx + "incident/app.jsonl", fx + "scenarios/healthy/../retry-new-key/app.jsonl"}, 2, "", "names 2 inputs"},
		{"two --tier filters", "", []string{"diagnose", "--tier", "proxy", "--tier", "server", fx + "incident/app.jsonl"}, 2, "", "findings are kept for one tier"},
		{"rules", "", []string{"rules"}, 0, "non-atomic-reservation", ""},
		{"one rule", "", []string{"rules", "payload-mismatch"}, 0, "hypothesis", ""},
		{"unknown rule id", "", []string{"rules", "nope"}, 2, "", "unknown rule"},
		{"version", "", []string{"--version"}, 0, "idem ", ""},
		{"exit codes help", "", []string{"help", "exit-codes"}, 0, "130", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := run(t, tt.stdin, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, errOut)
			}
			if !strings.Contains(out, tt.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tt.stdout, out)
			}
			if !strings.Contains(errOut, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, errOut)
			}
		})
	}
}

func TestSinceUntilFilters(t *testing.T) {
	args := []string{"diagnose", "-o", "json", "../fixtures/scenarios/retry-new-key/app.jsonl", "../fixtures/scenarios/retry-new-key/client.har", "../fixtures/scenarios/retry-new-key/nginx.jsonl"}
	_, out, _ := run(t, "", append(args, "--since", "2026-11-30T15:00:00Z")...)
	if !strings.Contains(out, `"findings":[]`) {
		t.Errorf("--since after the incident kept findings:\n%s", out)
	}
	_, out, _ = run(t, "", append(args, "--until", "2026-11-30T15:00:00Z")...)
	if strings.Contains(out, `"findings":[]`) {
		t.Errorf("--until after the incident dropped findings")
	}
	// Relative times count back from the injected clock (12:00 that day).
	_, out, _ = run(t, "", append(args, "--since", "24h")...)
	if strings.Contains(out, `"findings":[]`) {
		t.Errorf("--since 24h dropped findings from 14:02")
	}
}

func TestNewCmdDiagnoseFlags(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	f := &Factory{IO: ios, Now: time.Now}
	var got *diagnoseOptions
	cmd := newCmdDiagnose(f, func(o *diagnoseOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"-o", "markdown", "--key", "a,b", "--rule", "response-lost", "--fail-on", "critical", "--retry-budget", "9", "x.jsonl", "-"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Format != "markdown" || len(got.Keys) != 2 || got.Rules[0] != "response-lost" || got.FailOn != "critical" ||
		got.Rule.RetryBudget != 9 || len(got.Paths) != 2 || got.Rule.Deadline != 60*time.Second {
		t.Errorf("options: %+v", got)
	}
}

func TestProgressOnlyOnATerminal(t *testing.T) {
	ios, _, out, errOut := iostreams.Test()
	ios.SetTTY(false, false, true)
	f := &Factory{IO: ios, Now: time.Now, Getenv: func(string) string { return "" }}
	// A tiny threshold, so the small fixture shows progress.
	fl := &inputFlags{MaxLineBytes: 1 << 20, progressMin: 0}
	set, err := readInputs(context.Background(), f, fl, []string{"../fixtures/incident/app.jsonl"})
	if err != nil || set == nil {
		t.Fatal(err)
	}
	if out.Len() != 0 {
		t.Errorf("progress went to stdout: %q", out.String())
	}
	if !strings.Contains(errOut.String(), "\r\x1b[K") {
		t.Errorf("no progress display or no final clear on a terminal: %q", errOut.String())
	}
	// Not a terminal, or --quiet: nothing.
	ios2, _, _, errOut2 := iostreams.Test()
	f2 := &Factory{IO: ios2, Now: time.Now, Getenv: func(string) string { return "" }}
	readInputs(context.Background(), f2, &inputFlags{MaxLineBytes: 1 << 20}, []string{"../fixtures/incident/app.jsonl"})
	ios2.SetTTY(false, false, true)
	readInputs(context.Background(), f2, &inputFlags{MaxLineBytes: 1 << 20, Quiet: true}, []string{"../fixtures/incident/app.jsonl"})
	if errOut2.Len() != 0 {
		t.Errorf("progress shown off a terminal or with --quiet: %q", errOut2.String())
	}
}

func TestProgressLine(t *testing.T) {
	p := &ingest.Progress{}
	p.Bytes.Store(400e6)
	p.Lines.Store(700000)
	p.Total.Store(800e6)
	got := progressLine(p, 2*time.Second)
	if got != "idem: read 400 MB of 800 MB (200 MB/s, 350k lines/s), ETA 2s" {
		t.Errorf("progress line %q", got)
	}
}

// TestExitCodesDocumented: README's exit-code table, `idem help
// exit-codes` and the codes idem returns name the same codes, so none is
// documented in one place only.
func TestExitCodesDocumented(t *testing.T) {
	want := []int{exitOK, exitFindings, exitError, exitInconclusive, exitInterrupted}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, help, _ := run(t, "", "help", "exit-codes")
	rowRE := regexp.MustCompile(`(?m)^\| (\d+) \| `)
	helpRE := regexp.MustCompile(`(?m)^  (\d+) +\S`)
	for name, re := range map[string]struct {
		re   *regexp.Regexp
		text string
	}{"README.md": {rowRE, string(readme)}, "idem help exit-codes": {helpRE, help}} {
		var got []int
		for _, m := range re.re.FindAllStringSubmatch(re.text, -1) {
			n, _ := strconv.Atoi(m[1])
			got = append(got, n)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s documents exit codes %v, idem returns %v", name, got, want)
		}
	}
	for _, w := range []string{"not evaluated", "inconclusive"} {
		if !strings.Contains(help, w) || !strings.Contains(string(readme), w) {
			t.Errorf("exit 3's documentation does not say %q", w)
		}
	}
}
