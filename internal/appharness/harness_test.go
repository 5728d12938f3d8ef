package appharness

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite fixtures/real/ from this run's captures")

// fixturesDir is where the representative captures are kept.
const fixturesDir = "../../fixtures/real"

// AppLog is the name of a backend's log in its capture folder.
const AppLog = "app.jsonl"

// runBackend drives one backend through the scenario and returns its
// capture, saved under fixtures/real/<library>/ with -update.
func runBackend(t *testing.T, b backend) *Capture {
	t.Helper()
	dir := t.TempDir()
	logPath, ledger := filepath.Join(dir, AppLog), filepath.Join(dir, "ledger.jsonl")
	base, stop := b.start(t, logPath, ledger)
	stopped := false
	defer func() {
		if !stopped {
			stop()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	steps := Scenario(b.library)
	sent, err := Drive(ctx, base, steps, ledger)
	if err != nil {
		t.Fatalf("driving %s: %v", b.library, err)
	}
	for _, s := range steps {
		if _, err := WaitLedger(ctx, ledger, s.Name); err != nil {
			t.Fatal(err)
		}
	}
	stop()
	stopped = true
	done, err := ReadLedger(ledger)
	if err != nil {
		t.Fatal(err)
	}
	c := &Capture{Library: b.library, Format: b.format, AbortLogged: b.abortLogged, Sent: sent, Done: done, Log: logPath}
	checkSent(t, c)
	if *update {
		out := filepath.Join(fixturesDir, b.library)
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
		log, err := os.ReadFile(logPath)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, AppLog), log, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := c.Save(out); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// checkSent makes sure the harness did what the scenario says before
// anything is asked of idem: the lost response was lost, the rest
// answered, the retry found the first order.
func checkSent(t *testing.T, c *Capture) {
	t.Helper()
	done := map[string]Done{}
	for _, d := range c.Done {
		done[d.Step] = d
	}
	for _, s := range c.Sent {
		d := done[s.Name]
		switch {
		case s.Name == "lost" && !s.TimedOut:
			t.Fatalf("%s: the lost step got a response (%d in %s)", c.Library, s.Status, s.Elapsed())
		case s.Name != "lost" && s.Status != d.Status:
			t.Fatalf("%s: step %s answered %d, the backend wrote %d", c.Library, s.Name, s.Status, d.Status)
		}
	}
	if done["same-key-retry"].Created || done["same-key-retry"].OrderID != done["lost"].OrderID {
		t.Fatalf("%s: the same-key retry made %+v, want the lost step's order %s replayed", c.Library, done["same-key-retry"], done["lost"].OrderID)
	}
	if !done["new-key-retry"].Created {
		t.Fatalf("%s: the new-key retry made no order", c.Library)
	}
}

// TestBackends runs every backend on the real library and checks what
// idem reads from its log.
func TestBackends(t *testing.T) {
	for _, b := range append(append([]backend{}, goBackends...), extBackends...) {
		t.Run(b.library, func(t *testing.T) {
			t.Parallel()
			checkHTTP(t, runBackend(t, b))
		})
	}
}

// TestFixtures checks the committed captures the same way, so that what
// the libraries wrote is checked even where node or python3 is missing.
func TestFixtures(t *testing.T) {
	if *update {
		t.Skip("rewriting the fixtures")
	}
	for _, b := range append(append([]backend{}, goBackends...), extBackends...) {
		t.Run(b.library, func(t *testing.T) {
			c, err := LoadCapture(filepath.Join(fixturesDir, b.library), AppLog)
			if err != nil {
				t.Fatalf("%v (go test ./internal/appharness -run TestBackends -update writes it)", err)
			}
			checkHTTP(t, c)
		})
	}
}

// TestCountersAcrossProcesses reads two processes' pino-http logs
// together, as an export of every pod's log holds them: each trip stays
// its own delivery, though both processes numbered theirs 1, 2, ...
func TestCountersAcrossProcesses(t *testing.T) {
	var caps []*Capture
	var logs []string
	for _, lib := range []string{"pino-http", "pino-http-restart"} {
		c, err := LoadCapture(filepath.Join(fixturesDir, lib), AppLog)
		if err != nil {
			t.Fatal(err)
		}
		caps, logs = append(caps, c), append(logs, c.Log)
	}
	f := newFacts(t, "pino-http-pods")
	r := readLogs(t, logs...)
	sent := 0
	for _, c := range caps {
		sent += len(c.Sent)
		byKey := map[string][]string{}
		for _, s := range c.Sent {
			if s.Key != "" {
				byKey[s.Key] = append(byKey[s.Key], s.RequestID)
			}
		}
		for k, want := range byKey {
			ins := r.set.FindIntent(k)
			var got []string
			for _, in := range ins {
				for _, d := range in.Deliveries {
					got = append(got, d.RequestID)
				}
			}
			sort.Strings(got)
			sort.Strings(want)
			f.expect("intent", len(ins) == 1 && slices.Equal(got, want), "key %s: %d intents, deliveries %v, want %v", k, len(ins), got, want)
		}
	}
	f.expect("deliveries", r.set.DeliveryCount() == sent, "%d deliveries, want %d (one per request sent)", r.set.DeliveryCount(), sent)
}
