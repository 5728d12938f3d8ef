package appharness

import (
	"context"
	"flag"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/idem-cli/idem/internal/kit/capture"
)

var update = flag.Bool("update", false, "rewrite fixtures/real/ from this run's captures")

// fixturesDir is where the representative captures are kept.
const fixturesDir = "../../../fixtures/real"

// AppLog is the name of a backend's log in its capture folder.
const AppLog = "app.jsonl"

// runBackend drives one backend through the scenario and returns its
// capture, checked with check, kept under fixtures/real/<library>/ with
// -update.
func runBackend(t *testing.T, b backend, check func(testing.TB, *captureRecord)) {
	t.Helper()
	dir := t.TempDir()
	logPath, ledger := filepath.Join(dir, AppLog), filepath.Join(dir, "ledger.jsonl")
	base, stop := b.start(t, logPath, ledger)
	stop = sync.OnceFunc(stop)
	defer stop()
	c := &captureRecord{Library: b.library, Format: b.format, AbortLogged: b.abortLogged}
	c.Sent, c.Done = drive(t, base, scenario(b.library), ledger, stop)
	checkSent(t, c)
	folder := capture.Folder{Logs: map[string]string{AppLog: logPath}, RecordName: captureFile, Record: c}
	folder.Keep(t, filepath.Join(fixturesDir, b.library), *update, func(t *testing.T, dir string) {
		check(t, loadCapture(t, dir))
	})
}

// drive sends the steps to base, waits until the backend's ledger
// records every one, stops the backend (so that its log is whole) and
// returns what was sent and the ledger.
func drive(t *testing.T, base string, steps []step, ledger string, stop func()) ([]capture.Sent, []capture.Effect) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sent, err := driveSteps(ctx, base, steps, ledger)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range steps {
		if _, err := capture.WaitLedger(ctx, ledger, s.Name); err != nil {
			t.Fatal(err)
		}
	}
	stop()
	done, err := capture.ReadLedger(ledger)
	if err != nil {
		t.Fatal(err)
	}
	return sent, done
}

// loadCapture reads a capture folder's harness.json and its AppLog.
func loadCapture(t testing.TB, dir string) *captureRecord {
	t.Helper()
	c, err := readCapture(dir, AppLog)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// checkSent makes sure the harness did what the scenario says before
// anything is asked of idem: the lost response was lost, the rest
// answered, the retry found the first order.
func checkSent(t *testing.T, c *captureRecord) {
	t.Helper()
	done := map[string]capture.Effect{}
	for _, d := range c.Done {
		done[d.Step] = d
	}
	for _, s := range c.Sent {
		d := done[s.Step]
		switch {
		case s.Step == "lost" && s.Ended != capture.EndedTimeout:
			t.Fatalf("%s: the lost step got a response (%d in %s)", c.Library, s.Status, s.Elapsed())
		case s.Step != "lost" && s.Status != d.Status:
			t.Fatalf("%s: step %s answered %d, the backend wrote %d", c.Library, s.Step, s.Status, d.Status)
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
			runBackend(t, b, checkHTTP)
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
			dir := filepath.Join(fixturesDir, b.library)
			capture.Recorded(t, dir, captureFile, "go test ./internal/kit/appharness -run TestBackends -update")
			checkHTTP(t, loadCapture(t, dir))
		})
	}
}

// TestCountersAcrossProcesses reads two processes' pino-http logs
// together, as an export of every pod's log holds them: each trip stays
// its own delivery, though both processes numbered theirs 1, 2, ...
func TestCountersAcrossProcesses(t *testing.T) {
	var caps []*captureRecord
	var logs []string
	for _, lib := range []string{"pino-http", "pino-http-restart"} {
		c := loadCapture(t, filepath.Join(fixturesDir, lib))
		caps, logs = append(caps, c), append(logs, c.Log)
	}
	f := knownGaps.Facts(t, "pino-http-pods")
	r := capture.MustRead(t, logs...)
	sent := 0
	for _, c := range caps {
		sent += len(c.Sent)
		keys, byKey := capture.ByKey(c.Sent, func(s capture.Sent) string { return s.Key })
		for _, k := range keys {
			if k == "" {
				continue
			}
			f.Intent("intent", r.Set, k, capture.RequestIDs(byKey[k]))
		}
	}
	f.Check("deliveries", r.Set.DeliveryCount() == sent, "%d deliveries, want %d (one per request sent)", r.Set.DeliveryCount(), sent)
}
