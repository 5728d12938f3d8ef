package cmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/internal/iostreams"
	"github.com/idem-cli/idem/logstore/vltest"
	"github.com/tidwall/gjson"
)

// runEnv is run with an environment and a clock of now.
func runEnv(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	f := &Factory{IO: ios, Now: time.Now, Getenv: func(k string) string { return env[k] }}
	code = Run(context.Background(), f, args)
	return code, out.String(), errOut.String()
}

// findings is a JSON report's findings, which must not depend on where
// the lines were read from.
func findings(t *testing.T, report string) string {
	t.Helper()
	var r struct {
		Findings json.RawMessage `json:"findings"`
	}
	if err := json.Unmarshal([]byte(report), &r); err != nil {
		t.Fatalf("not a JSON report: %v\n%s", err, report)
	}
	var b bytes.Buffer
	_ = json.Indent(&b, r.Findings, "", " ")
	return b.String()
}

// storeCases are every scenario and the incident, each in its own tenant.
func storeCases(t *testing.T) map[string][]string {
	t.Helper()
	cases := map[string][]string{}
	dirs, _ := filepath.Glob("../fixtures/scenarios/*")
	dirs = append(dirs, "../fixtures/incident")
	for _, d := range dirs {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(d, "*"))
		cases[filepath.Base(d)] = files
	}
	return cases
}

// roundTrip exports each case and checks that --from finds what the
// files give, finding for finding, file:line for file:line.
func roundTrip(t *testing.T, to, check, from string) {
	i := 0
	for name, files := range storeCases(t) {
		i++
		tenant := fmt.Sprintf("?account=%d", 100+i)
		t.Run(name, func(t *testing.T) {
			args := append([]string{"export", "--to", to + tenant, "--timeout", "20s"}, files...)
			if check != "" {
				args = append(args[:3], append([]string{"--check", check + tenant}, args[3:]...)...)
			}
			if code, out, errOut := runEnv(t, nil, args...); code != 0 {
				t.Fatalf("export: exit %d\n%s%s", code, out, errOut)
			}
			_, want, _ := runEnv(t, nil, append([]string{"diagnose", "-q", "-o", "json"}, files...)...)
			code, got, errOut := runEnv(t, nil, "diagnose", "-o", "json", "--from", from+tenant, "--since", "2026-11-01T00:00:00Z")
			if code == 2 {
				t.Fatalf("diagnose --from: exit 2\n%s", errOut)
			}
			if findings(t, got) != findings(t, want) {
				t.Errorf("findings from the store differ from the files'\nstore:\n%s\nfiles:\n%s\nstderr: %s", findings(t, got), findings(t, want), errOut)
			}
			if !strings.Contains(errOut, "phase 1 pushed down") {
				t.Errorf("no account of what was pushed down:\n%s", errOut)
			}
			// No line crosses the wire twice, whichever tiers it joins.
			if m := regexp.MustCompile(`fetched (\d+) lines and kept (\d+)`).FindStringSubmatch(errOut); m == nil || m[1] != m[2] {
				t.Errorf("lines fetched twice: %v\n%s", m, errOut)
			}
		})
	}
}

func TestLogStoreRoundTripSingleNode(t *testing.T) {
	n := vltest.Single(t)
	roundTrip(t, n.URL(), "", n.URL())
}

func TestLogStoreRoundTripCluster(t *testing.T) {
	c := vltest.NewCluster(t)
	roundTrip(t, c.Insert.URL(), c.Select.URL(), c.Select.URL())
}

// A storage node that is down or hung is an incomplete result: exit 2
// within --timeout, naming the store's answer, never "No findings".
func TestLogStoreIncompleteCluster(t *testing.T) {
	// The select node allows partial responses by default here: idem must
	// refuse them on each query all the same.
	c := vltest.NewCluster(t, "-search.allowPartialResponse")
	files := storeCases(t)["incident"]
	if code, out, errOut := runEnv(t, nil, append([]string{"export", "--to", c.Insert.URL(), "--check", c.Select.URL()}, files...)...); code != 0 {
		t.Fatalf("export: exit %d\n%s%s", code, out, errOut)
	}
	check := func(t *testing.T, wantAnswer string) {
		start := time.Now()
		code, out, errOut := runEnv(t, nil, "diagnose", "--from", c.Select.URL(), "--timeout", "4s")
		took := time.Since(start)
		if code != exitError {
			t.Errorf("exit %d, want 2\nstdout: %s\nstderr: %s", code, out, errOut)
		}
		if strings.Contains(out, "No findings") || out != "" {
			t.Errorf("a report was written from part of the lines:\n%s", out)
		}
		if !strings.Contains(errOut, "incomplete result from "+c.Select.URL()) || !strings.Contains(errOut, wantAnswer) {
			t.Errorf("stderr does not name the incomplete result and the store's answer %q:\n%s", wantAnswer, errOut)
		}
		if took > 8*time.Second {
			t.Errorf("took %s, want within --timeout 4s", took)
		}
	}
	t.Run("hung storage node", func(t *testing.T) {
		c.Storage[1].Pause()
		defer c.Storage[1].Resume()
		// The select node answers 503 when its own wait runs out, or on a
		// loaded machine drops the connection first: either is named.
		check(t, "")
	})
	t.Run("stopped storage node", func(t *testing.T) {
		c.Storage[1].Stop()
		check(t, "HTTP 502")
	})
}

// The round trip keeps what the store's traps would lose: an export
// counts what the store kept, so a store that drops old lines while
// answering 200 (the default 7-day retention) is an error.
func TestExportCountsWhatTheStoreKept(t *testing.T) {
	n := vltest.Start(t, "-storageDataPath="+t.TempDir()) // default retention: 7 days
	old := filepath.Join(t.TempDir(), "old.jsonl")
	line := `{"time":"%s","level":"INFO","msg":"request completed","request_id":"r%d","method":"POST","route":"/x","status":201,"idempotency_key":"k%d"}` + "\n"
	var b strings.Builder
	for i := range 3 {
		fmt.Fprintf(&b, line, time.Now().Add(-30*24*time.Hour).UTC().Format(time.RFC3339), i, i)
	}
	fmt.Fprintf(&b, line, time.Now().UTC().Format(time.RFC3339), 9, 9)
	if err := os.WriteFile(old, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runEnv(t, nil, "export", "--to", n.URL(), "--timeout", "3s", old)
	if code != exitError || !strings.Contains(errOut, "kept 1 of the 4 lines") || !strings.Contains(errOut, "retention") {
		t.Errorf("exit %d, want 2 naming the lines the store dropped\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}

// Credentials come from the environment, reach the store, and reach no
// output, not even an error.
func TestLogStoreCredentialsNeverShown(t *testing.T) {
	n := vltest.Single(t)
	env := map[string]string{"IDEM_LOGSTORE_USER": "ops", "IDEM_LOGSTORE_PASSWORD": "hunter2-secret"}
	files := storeCases(t)["incident"]
	code, out, errOut := runEnv(t, env, append([]string{"export", "--to", n.URL()}, files...)...)
	if code != 0 {
		t.Fatalf("export: exit %d\n%s", code, errOut)
	}
	_, out2, errOut2 := runEnv(t, env, "diagnose", "--from", n.URL())
	code3, out3, errOut3 := runEnv(t, env, "diagnose", "--from", "victorialogs://127.0.0.1:1", "--timeout", "2s")
	if code3 != exitError {
		t.Errorf("unreachable store: exit %d, want 2", code3)
	}
	for _, s := range []string{out, errOut, out2, errOut2, out3, errOut3} {
		if strings.Contains(s, "hunter2") {
			t.Errorf("the password reached the output:\n%s", s)
		}
	}
	code, _, errOut = runEnv(t, nil, "diagnose", "--from", "victorialogs://ops:hunter2@127.0.0.1:1")
	if code != exitError || strings.Contains(errOut, "hunter2") || !strings.Contains(errOut, "IDEM_LOGSTORE_USER") {
		t.Errorf("credentials in the address: exit %d\n%s", code, errOut)
	}
}

// Flag validation happens before anything is sent.
func TestLogStoreFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"diagnose", "--from", "victorialogs://127.0.0.1:1", "x.log"}, "name no files"},
		{[]string{"diagnose", "--query", "app:api", "x.log"}, "--query needs --from"},
		{[]string{"diagnose", "--from", "victorialogs://127.0.0.1:1", "--timeout", "0s"}, "--timeout must be positive"},
		{[]string{"diagnose", "--from", "elasticsearch://127.0.0.1:1"}, "unknown store"},
		{[]string{"diagnose", "--from", "loki://127.0.0.1:1?parser=xml"}, "parser is json or logfmt"},
		{[]string{"diagnose", "--from", "127.0.0.1:9428"}, "store address"},
		{[]string{"diagnose", "--from", "victorialogs://127.0.0.1:1?account=x"}, "account and project are numbers"},
		{[]string{"trace", "k", "--since", "2h", "x.log"}, "need --from"},
		{[]string{"trace", "k", "--from", "victorialogs://127.0.0.1:1", "--since", "yesterday"}, "--since"},
		{[]string{"export", "x.log"}, "needs --to"},
		{[]string{"export", "--to", "victorialogs://127.0.0.1:1"}, "needs the files"},
	}
	for _, tt := range tests {
		code, _, errOut := runEnv(t, nil, tt.args...)
		if code != exitError || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, want 2 with %q\n%s", tt.args, code, tt.want, errOut)
		}
	}
}

// trace --from follows one key through the store as through the files.
func TestTraceFromStore(t *testing.T) {
	n := vltest.Single(t)
	files := storeCases(t)["response-lost"]
	if code, _, errOut := runEnv(t, nil, append([]string{"export", "--to", n.URL()}, files...)...); code != 0 {
		t.Fatalf("export: %s", errOut)
	}
	_, want, _ := runEnv(t, nil, "diagnose", "-q", "-o", "json", files[0], files[1])
	var rep struct {
		Findings []struct{ Keys []string } `json:"findings"`
	}
	_ = json.Unmarshal([]byte(want), &rep)
	if len(rep.Findings) == 0 || len(rep.Findings[0].Keys) == 0 {
		t.Skip("scenario has no keyed finding")
	}
	key := rep.Findings[0].Keys[0]
	_, fromFiles, _ := runEnv(t, nil, append([]string{"trace", key, "-q", "-o", "json"}, files...)...)
	code, fromStore, errOut := runEnv(t, nil, "trace", key, "-q", "-o", "json", "--from", n.URL(), "--since", "2026-11-01T00:00:00Z")
	if code != 0 || fromStore != fromFiles {
		t.Errorf("trace --from: exit %d\n%s\nstore:\n%s\nfiles:\n%s", code, errOut, fromStore, fromFiles)
	}
}

// sourceless is a report's findings without where each fact was read:
// lines shipped by something else than idem export are cited by their
// stream in the store.
func sourceless(t *testing.T, report string) string {
	out := regexp.MustCompile(`"(source|input)": "[^"]*"`).ReplaceAllString(findings(t, report), `"$1": ""`)
	// A retry's why cites its line, (file:line), too.
	return regexp.MustCompile(`\([^()"]*:\d+\)`).ReplaceAllString(out, "(…)")
}

// Lines a shipper sent (not idem export) come back as fields: every
// value a string, empty values gone, and the fields named by _msg_field
// and _time_field folded into _msg and _time. msg_field and time_field on
// the address put them back, and the nginx format reads the lines again.
func TestLogStoreShippedLines(t *testing.T) {
	n := vltest.Single(t)
	for i, file := range []string{"../fixtures/incident/nginx-access.jsonl", "../fixtures/scenarios/retry-new-key/nginx.jsonl"} {
		body, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		account := fmt.Sprint(500 + i)
		req, _ := http.NewRequest(http.MethodPost, "http://"+n.Addr+"/insert/jsonline?_msg_field=request_uri&_time_field=msec", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/stream+json")
		req.Header.Set("AccountID", account)
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("ingest: %v %v", err, resp)
		}
		resp.Body.Close()
		if resp, err := http.Get("http://" + n.Addr + "/internal/force_flush"); err == nil {
			resp.Body.Close()
		}
		_, want, _ := runEnv(t, nil, "diagnose", "-q", "-o", "json", file)
		addr := n.URL() + "?account=" + account + "&msg_field=request_uri&time_field=msec"
		code, got, errOut := runEnv(t, nil, "diagnose", "-o", "json", "--from", addr)
		if code == exitError {
			t.Fatalf("%s: exit 2: %s", file, errOut)
		}
		if sourceless(t, got) != sourceless(t, want) {
			t.Errorf("%s: findings differ\nstore:\n%s\nfile:\n%s\n%s", file, sourceless(t, got), sourceless(t, want), errOut)
		}
		if !strings.Contains(got, "victorialogs:{}") && strings.Contains(want, `"source"`) {
			t.Errorf("%s: shipped lines are not cited by their stream:\n%s", file, got)
		}
	}
}

// workloadIntents is the size of the generated workload the store tests
// load (IDEM_LOGSTORE_INTENTS; .ci/logstore.sh loads 1.32 million intents,
// over 2 million lines).
func workloadIntents(t *testing.T) string {
	if n := os.Getenv("IDEM_LOGSTORE_INTENTS"); n != "" {
		return n
	}
	if testing.Short() || raceEnabled {
		t.Skip("the generated workload runs without -short and -race (.ci/logstore.sh)")
	}
	return "130000"
}

// generate writes loggen's nginx workload of so many intents, its fault
// rates scaled by faults.
func generate(t *testing.T, intents, faults string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "nginx-"+intents+"-"+faults+".jsonl")
	gen := exec.Command("go", "run", "../internal/tools/loggen", "-intents", intents, "-seed", "1", "-faults", faults, "-o", file)
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("loggen: %v\n%s", err, out)
	}
	return file
}

// floorLines counts, from the generated file itself, the lines any
// diagnosis must read: every line of a key with more than one line or a
// status other than 201 (a lost response replayed, a conflict), and for a
// lost write whose key has no other line, the same client's next POST to
// the same route (its retry under a new key, which retry-new-key
// compares). A store that transfers these and nothing else is at the
// floor.
func floorLines(t *testing.T, file string) (stored, floor int) {
	t.Helper()
	scan := func(each func(ip, key, method, route, status string)) {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			r := gjson.GetManyBytes(sc.Bytes(), "remote_addr", "http_idempotency_key", "request_method", "request_uri", "status")
			each(r[0].String(), r[1].String(), r[2].String(), r[3].String(), r[4].String())
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	lines, bad := map[string]int{}, map[string]bool{}
	scan(func(ip, key, method, route, status string) {
		stored++
		if key != "" {
			lines[key]++
			bad[key] = bad[key] || status != "201"
		}
	})
	lost := map[string]string{} // client → route of a lost write with no other line
	scan(func(ip, key, method, route, status string) {
		switch {
		case key != "" && (lines[key] > 1 || bad[key]):
			floor++
			if lines[key] == 1 && status == "499" {
				lost[ip] = route
			}
		case method == "POST" && lost[ip] == route:
			floor++
			delete(lost, ip)
		}
	})
	return stored, floor
}

// On a generated workload the store does the search: the findings are the
// file's, only the lines of the candidates come back, and each once.
func TestLogStoreWorkload(t *testing.T) {
	single := vltest.Single(t)
	cluster := vltest.NewCluster(t)
	// Half the default fault rates (1.5% of intents lose their response
	// and are replayed, 0.5% are retried under a new key, 0.25% reuse a
	// key with another payload): still more than most services see. The
	// default rates, on a smaller workload, in a tenant of its own.
	realistic := generate(t, workloadIntents(t), "0.5")
	dflt := generate(t, "130000", "1")
	for _, tt := range []struct {
		name, file, to, check, from string
		share                       float64 // of the stored lines, at most
	}{
		{"single node", realistic, single.URL(), single.URL(), single.URL(), 0.05},
		{"cluster", realistic, cluster.Insert.URL(), cluster.Select.URL(), cluster.Select.URL(), 0.05},
		{"default mix", dflt, single.URL() + "?account=1", single.URL() + "?account=1", single.URL() + "?account=1", 0.07},
	} {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			if code, out, errOut := runEnv(t, nil, "export", "--to", tt.to, "--check", tt.check, "--timeout", "600s", tt.file); code != 0 {
				t.Fatalf("export: exit %d\n%s%s", code, out, errOut)
			}
			exported := time.Since(start)
			_, want, _ := runEnv(t, nil, "diagnose", "-q", "-o", "json", tt.file)
			start = time.Now()
			code, got, errOut := runEnv(t, nil, "diagnose", "-o", "json", "--from", tt.from, "--timeout", "300s")
			t.Logf("export %s, diagnose --from %s: %s", exported.Round(time.Millisecond), time.Since(start).Round(time.Millisecond), strings.TrimSpace(errOut))
			if code == exitError {
				t.Fatalf("diagnose --from: exit 2\n%s", errOut)
			}
			if findings(t, got) != findings(t, want) {
				t.Errorf("findings from the store differ from the file's")
			}
			m := regexp.MustCompile(`(\d+) lines in the window.* fetched (\d+) lines and kept (\d+)`).FindStringSubmatch(errOut)
			if m == nil {
				t.Fatalf("no account of the transfer: %s", errOut)
			}
			stored, _ := strconv.Atoi(m[1])
			fetched, _ := strconv.Atoi(m[2])
			kept, _ := strconv.Atoi(m[3])
			lines, floor := floorLines(t, tt.file)
			t.Logf("stored %d, floor %d (%.2f%%), fetched %d (%.2f%%)", stored, floor, 100*float64(floor)/float64(stored), fetched, 100*float64(fetched)/float64(stored))
			if stored != lines {
				t.Fatalf("%d lines in the store's window, %d in the file", stored, lines)
			}
			if fetched != kept {
				t.Errorf("fetched %d lines, kept %d: %d came twice", fetched, kept, fetched-kept)
			}
			// Above the floor are only the lines secret-in-logs counts
			// wherever they are (a random request id that looks like a
			// token): 0.1% of the floor here.
			if kept < floor || fetched*100 > floor*101 {
				t.Errorf("fetched %d lines, want at least the %d the rules read and at most 1%% more", fetched, floor)
			}
			if float64(fetched) > tt.share*float64(stored) {
				t.Errorf("fetched %d of %d lines (%.2f%%), want at most %.0f%%", fetched, stored, 100*float64(fetched)/float64(stored), 100*tt.share)
			}
		})
	}
	// A store answering "the query took too long" is an incomplete result
	// naming it, never a diagnosis of part of the lines.
	t.Run("query over the store's time limit", func(t *testing.T) {
		sel := vltest.Start(t, "-storageNode="+cluster.Storage[0].Addr+","+cluster.Storage[1].Addr, "-insert.disable", "-search.maxQueryDuration=1ms")
		code, out, errOut := runEnv(t, nil, "diagnose", "--from", sel.URL(), "--timeout", "60s")
		if code != exitError || out != "" || !strings.Contains(errOut, "incomplete result from "+sel.URL()) || !strings.Contains(errOut, "maxQueryDuration") {
			t.Errorf("exit %d, want 2 naming the store's time limit\nstdout: %s\nstderr: %s", code, out, errOut)
		}
	})
}

// --query narrows every query: two incidents in one tenant, one asked for.
func TestLogStoreQueryNarrows(t *testing.T) {
	n := vltest.Single(t)
	cases := storeCases(t)
	both := append(append([]string{}, cases["response-lost"]...), cases["payload-mismatch"]...)
	if code, _, errOut := runEnv(t, nil, append([]string{"export", "--to", n.URL()}, both...)...); code != 0 {
		t.Fatalf("export: %s", errOut)
	}
	_, want, _ := runEnv(t, nil, append([]string{"diagnose", "-q", "-o", "json"}, cases["response-lost"]...)...)
	code, got, errOut := runEnv(t, nil, "diagnose", "-q", "-o", "json", "--from", n.URL(), "--query", `"idem.file":~"response-lost"`)
	if code == exitError || findings(t, got) != findings(t, want) {
		t.Errorf("exit %d\n%s\nstore:\n%s\nfiles:\n%s", code, errOut, findings(t, got), findings(t, want))
	}
	_, all, _ := runEnv(t, nil, "diagnose", "-q", "-o", "json", "--from", n.URL())
	if findings(t, all) == findings(t, want) {
		t.Errorf("without --query the other incident's findings are missing")
	}
}
