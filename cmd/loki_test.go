package cmd

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/logstore/lokitest"
)

// Every fixture case exported to Loki (a tenant each) and diagnosed from
// it gives the files' findings, file:line for file:line, each line
// fetched once.
func TestLokiRoundTrip(t *testing.T) {
	l := lokitest.Start(t)
	i := 0
	for name, files := range storeCases(t) {
		i++
		addr := fmt.Sprintf("%s?tenant=case%d", l.URL(), i)
		t.Run(name, func(t *testing.T) {
			code, out, errOut := runEnv(t, nil, append([]string{"export", "--to", addr, "--timeout", "30s"}, files...)...)
			if code != 0 || !strings.Contains(out, "exported ") {
				t.Fatalf("export: exit %d\n%s%s", code, out, errOut)
			}
			_, want, _ := runEnv(t, nil, append([]string{"diagnose", "-q", "-o", "json"}, files...)...)
			code, got, errOut := runEnv(t, nil, "diagnose", "-o", "json", "--from", addr, "--since", "2026-11-01T00:00:00Z")
			if code == exitError {
				t.Fatalf("diagnose --from: exit 2\n%s", errOut)
			}
			if findings(t, got) != findings(t, want) {
				t.Errorf("findings from Loki differ from the files'\nloki:\n%s\nfiles:\n%s\nstderr: %s", findings(t, got), findings(t, want), errOut)
			}
			if m := regexp.MustCompile(`fetched (\d+) lines and kept (\d+)`).FindStringSubmatch(errOut); m == nil || m[1] != m[2] {
				t.Errorf("lines fetched twice: %v\n%s", m, errOut)
			}
		})
	}
	// A selector narrows every query: two incidents in one tenant, the
	// streams of one asked for.
	t.Run("selector", func(t *testing.T) {
		cases := storeCases(t)
		addr := l.URL() + "?tenant=two"
		both := append(append([]string{}, cases["response-lost"]...), cases["payload-mismatch"]...)
		if code, _, errOut := runEnv(t, nil, append([]string{"export", "--to", addr}, both...)...); code != 0 {
			t.Fatalf("export: %s", errOut)
		}
		_, want, _ := runEnv(t, nil, append([]string{"diagnose", "-q", "-o", "json"}, cases["payload-mismatch"]...)...)
		var services []string
		for _, f := range cases["payload-mismatch"] {
			base := f[strings.LastIndexByte(f, '/')+1:]
			services = append(services, base[:strings.IndexByte(base, '.')])
		}
		sel := `{service=~"` + strings.Join(services, "|") + `"}`
		code, got, errOut := runEnv(t, nil, "diagnose", "-q", "-o", "json", "--from", addr, "--selector", sel, "--since", "2026-11-01T00:00:00Z")
		if code == exitError || findings(t, got) != findings(t, want) {
			t.Errorf("exit %d\n%s\nloki:\n%s\nfiles:\n%s", code, errOut, findings(t, got), findings(t, want))
		}
	})
}

// On a generated workload Loki does the search: the findings are the
// file's, only the candidates' lines come back, each once; the share of
// the lines transferred is logged beside VictoriaLogs' (TestLogStoreWorkload).
func TestLokiWorkload(t *testing.T) {
	intents := "20000"
	if testing.Short() || raceEnabled {
		t.Skip("the generated workload runs without -short and -race (.ci/loki.sh)")
	}
	l := lokitest.Start(t)
	addr := l.URL() + "?tenant=workload"
	file := generate(t, intents, "1")
	start := time.Now()
	if code, out, errOut := runEnv(t, nil, "export", "--to", addr, "--timeout", "300s", file); code != 0 {
		t.Fatalf("export: exit %d\n%s%s", code, out, errOut)
	}
	exported := time.Since(start)
	_, want, _ := runEnv(t, nil, "diagnose", "-q", "-o", "json", file)
	start = time.Now()
	code, got, errOut := runEnv(t, nil, "diagnose", "-o", "json", "--from", addr, "--since", "2026-11-01T00:00:00Z", "--timeout", "300s")
	t.Logf("export %s, diagnose --from %s: %s", exported.Round(time.Millisecond), time.Since(start).Round(time.Millisecond), strings.TrimSpace(errOut))
	if code == exitError {
		t.Fatalf("diagnose --from: exit 2\n%s", errOut)
	}
	if findings(t, got) != findings(t, want) {
		t.Errorf("findings from Loki differ from the file's")
	}
	m := regexp.MustCompile(`(\d+) lines in the window.* fetched (\d+) lines and kept (\d+)`).FindStringSubmatch(errOut)
	if m == nil {
		t.Fatalf("no account of the transfer: %s", errOut)
	}
	stored, _ := strconv.Atoi(m[1])
	fetched, _ := strconv.Atoi(m[2])
	kept, _ := strconv.Atoi(m[3])
	lines, floor := floorLines(t, file)
	t.Logf("loki: stored %d, floor %d (%.2f%%), fetched %d (%.2f%%)", stored, floor, 100*float64(floor)/float64(stored), fetched, 100*float64(fetched)/float64(stored))
	if stored != lines {
		t.Fatalf("%d lines in Loki's window, %d in the file", stored, lines)
	}
	if fetched != kept {
		t.Errorf("fetched %d lines, kept %d: %d came twice", fetched, kept, fetched-kept)
	}
	if kept < floor || fetched*100 > floor*101 {
		t.Errorf("fetched %d lines, want at least the %d the rules read and at most 1%% more", fetched, floor)
	}
}
