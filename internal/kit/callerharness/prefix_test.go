package callerharness

import (
	"encoding/json"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/idem-cli/idem/internal/kit/capture"
	"github.com/idem-cli/idem/model"
)

// Made is one thing a service logs: made for its key (a noun of its
// domain, on no list, beside the order it belongs to), or replayed.
type Made struct {
	Key     string `json:"key"`
	Noun    string `json:"noun"`
	ID      string `json:"id"`
	Parent  string `json:"parent"`
	Created bool   `json:"created"`
}

// planFor is what a library's service logs: two orders made, the first
// replayed to a retry, under keys of its own (the capture's logs are read
// together too).
func planFor(lib, noun string) []Made {
	id := func(n int) string { return fmt.Sprintf("%s_%s_%d", noun[:3], lib, n) }
	return []Made{
		{Key: "k-" + lib + "-1", Noun: noun, ID: id(1), Parent: "ord_" + lib + "_1", Created: true},
		{Key: "k-" + lib + "-2", Noun: noun, ID: id(2), Parent: "ord_" + lib + "_2", Created: true},
		{Key: "k-" + lib + "-1", Noun: noun, ID: id(1), Created: false},
	}
}

// prefixLogger is a logging library at its default prefix: the file it
// writes, whether its prefix holds the date and time, and how to run it.
type prefixLogger struct {
	lib   string
	noun  string // what its service makes
	file  string
	dated bool
	run   func(t *testing.T, path string, plan []Made) string // writes path, returns the software
}

// PrefixRecord is what the prefix capture did: the software, and the
// plan each program logged.
type PrefixRecord struct {
	Software map[string]string `json:"software"`
	Plans    map[string][]Made `json:"plans"` // by file
}

func planJSON(plan []Made) string { b, _ := json.Marshal(plan); return string(b) }

// runTo runs bin with args, its standard output and error into path.
func runTo(t *testing.T, path, bin string, args ...string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Run(); err != nil {
		b, _ := os.ReadFile(path)
		t.Fatalf("%s: %v\n%s", bin, err, b)
	}
}

var prefixLoggers = []prefixLogger{
	{lib: "python", noun: "refund", file: "python-basicconfig.log", run: func(t *testing.T, path string, plan []Made) string {
		py := capture.Python(t, "apt-get install python3", "logging")
		runTo(t, path, py, "testdata/orders.py", planJSON(plan))
		return capture.Version("python3", py, "--version")
	}},
	{lib: "ruby", noun: "booking", file: "ruby-logger.log", dated: true, run: func(t *testing.T, path string, plan []Made) string {
		ruby := capture.Tool(t, "apt-get install ruby", "ruby")
		runTo(t, path, ruby, "testdata/orders.rb", planJSON(plan))
		return capture.Version("ruby", ruby, "--version")
	}},
	{lib: "logback", noun: "ticket", file: "logback-default.log", run: func(t *testing.T, path string, plan []Made) string {
		javac := capture.Tool(t, "apt-get install default-jdk-headless", "javac")
		java := capture.Tool(t, "apt-get install default-jdk-headless", "java")
		var cp []string
		for _, j := range []string{"logback-classic", "logback-core", "slf4j-api"} {
			p := "/usr/share/java/" + j + ".jar"
			if _, err := os.Stat(p); err != nil {
				capture.Missing(t, j, "apt-get install liblogback-java libslf4j-java")
			}
			cp = append(cp, p)
		}
		classes := t.TempDir()
		if out, err := exec.Command(javac, "-d", classes, "-cp", strings.Join(cp, ":"), "testdata/Orders.java").CombinedOutput(); err != nil {
			t.Fatalf("javac: %v\n%s", err, out)
		}
		var lines []string
		for _, m := range plan {
			lines = append(lines, fmt.Sprintf("%s %s %s %s %v", m.Key, m.Noun, m.ID, m.Parent, m.Created))
		}
		runTo(t, path, java, "-cp", strings.Join(append(cp, classes), ":"), "Orders", strings.Join(lines, "\n"))
		return capture.Version("liblogback-java", java, "-version")
	}},
	{lib: "golog", noun: "voucher", file: "go-log.log", dated: true, run: func(t *testing.T, path string, plan []Made) string {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		l := log.New(f, "", log.LstdFlags)
		l.Print("starting orders")
		for _, m := range plan {
			if m.Created {
				l.Printf("created %s %s_id=%s order_id=%s idempotency_key=%s", m.Noun, m.Noun, m.ID, m.Parent, m.Key)
			} else {
				l.Printf("replaying stored response %s_id=%s idempotency_key=%s", m.Noun, m.ID, m.Key)
			}
		}
		return runtime.Version()
	}},
}

// TestPrefixCapture runs each logging library at its default and checks
// what idem reads; with -update it keeps fixtures/real/default-prefixes.
func TestPrefixCapture(t *testing.T) {
	dir := t.TempDir()
	rec := &PrefixRecord{Software: map[string]string{}, Plans: map[string][]Made{}}
	logs := map[string]string{}
	for _, pl := range prefixLoggers {
		path := filepath.Join(dir, pl.file)
		rec.Plans[pl.file] = planFor(pl.lib, pl.noun)
		rec.Software[pl.file] = pl.run(t, path, rec.Plans[pl.file])
		logs[pl.file] = path
	}
	capture.Folder{Logs: logs, RecordName: RecordName, Record: rec}.
		Keep(t, filepath.Join(fixturesDir, "default-prefixes"), *update, func(t *testing.T, dir string) { checkPrefixes(t, dir) })
}

// TestPrefixFixture checks the committed capture.
func TestPrefixFixture(t *testing.T) {
	dir := filepath.Join(fixturesDir, "default-prefixes")
	capture.Recorded(t, dir, RecordName, "go test ./internal/kit/callerharness -run TestPrefixCapture -update")
	checkPrefixes(t, dir)
}

// checkPrefixes checks that every line the plan made each library log is
// read: its key, what it made (a refund, a booking, a ticket, a voucher,
// named for itself and not by the order beside it), an effect where it
// was made and a replay where it was answered again, the prefix's time where it has
// the date; and that the library's other line, which holds no pair, is
// skipped with its file:line, never taken for a request.
func checkPrefixes(t *testing.T, dir string) {
	t.Helper()
	var rec PrefixRecord
	capture.ReadJSON(t, filepath.Join(dir, RecordName), &rec)
	for _, pl := range prefixLoggers {
		path := filepath.Join(dir, pl.file)
		plan := rec.Plans[pl.file]
		r := capture.MustRead(t, path)
		in := r.Input(path)
		if in == nil || in.Observations != len(plan) || in.Skipped != in.Lines-len(plan) {
			t.Errorf("%s: %+v; want %d observations, the rest (no pair) skipped", pl.file, in, len(plan))
			continue
		}
		obs := r.From(path)
		for i, m := range plan {
			o := obs[i]
			if o.Key != m.Key || o.ResultID != m.ID || o.Effect != m.Created || o.Replayed == m.Created || o.Tier != model.TierServer {
				t.Errorf("%s: key %q, result %q, effect %v, replayed %v, tier %s; the library logged %+v", o.Source, o.Key, o.ResultID, o.Effect, o.Replayed, o.Tier, m)
			}
			if o.Time.IsZero() == pl.dated {
				t.Errorf("%s: time %v; its prefix has the date: %v", o.Source, o.Time, pl.dated)
			}
		}
		made := map[string]int{}
		for _, m := range plan {
			if m.Created {
				made[m.Key]++
			}
		}
		for k, n := range made {
			ins := r.Set.FindIntent(k)
			if len(ins) != 1 || len(ins[0].Effects()) != n {
				t.Errorf("%s: key %s: %d intents; want one with %d effects", pl.file, k, len(ins), n)
			}
		}
	}
}
