package serverharness

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/cmd"
	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/internal/iostreams"
	"github.com/idem-cli/idem/internal/kit/capture"
	"github.com/idem-cli/idem/load"
	"github.com/idem-cli/idem/model"
)

// replayCapture is express-idempotency's logs after one order and
// `idem replay --probe` against it: idem's own traffic, which no rule may
// report as an incident.
const replayCapture = "../../../fixtures/real/express-idempotency-replay"

// replayBody is the captured order's body, given to idem replay with
// --body since pino-http logs no bodies.
const replayBody = `{"sku":"sku-replayed","qty":2}`

// TestReplayIsOwnTraffic sends one order through nginx to the
// express-idempotency app, then runs idem replay with its probes (a
// replay, another body under the key, concurrent deliveries and a dropped
// connection under keys derived from it) against the same nginx, and
// checks the diagnosis of what nginx and the app logged: -update keeps it.
func TestReplayIsOwnTraffic(t *testing.T) {
	dir := t.TempDir()
	logPath, ledger := filepath.Join(dir, appLog), filepath.Join(dir, "ledger.jsonl")
	_, app, ngx := startApp(t, expressIdempotency, logPath, ledger)

	cl := newClient(t, ngx.URL)
	order := cl.add("order", capture.NewID(), replayBody, 0, patient)
	if order.Status != 201 {
		t.Fatalf("the order was answered %d %q", order.Status, order.Response)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if _, err := capture.WaitFor(ctx, ngx.Log(nginxLog), order.RequestID); err != nil {
		t.Fatal(err)
	}

	ios, _, stdout, stderr := iostreams.Test()
	code := cmd.Run(context.Background(), &cmd.Factory{IO: ios, Now: time.Now, Getenv: func(string) string { return "" }},
		[]string{"replay", "--key", order.Key, "--target", ngx.URL, "--yes", "--body", replayBody,
			"--probe", "mismatch,concurrent,lost-response", ngx.Log(nginxLog), logPath})
	// 0 or 1 is a verdict on the server; 2 and 3 mean nothing was tested.
	if code != 0 && code != 1 {
		t.Fatalf("idem replay exited %d:\n%s%s", code, stdout, stderr)
	}
	t.Logf("idem replay exited %d:\n%s%s", code, stdout, stderr)
	time.Sleep(500 * time.Millisecond) // nginx writes the dropped connection's line when the upstream answers
	ngx.Stop()
	app.Stop()

	folder := capture.Folder{
		Logs: map[string]string{nginxLog: ngx.Log(nginxLog), appLog: logPath},
		Texts: map[string]string{nginxConf: ngx.Config(),
			"replay.txt": strings.NewReplacer(ngx.Dir+"/", "", dir+"/", "").Replace(stdout.String())},
	}
	folder.Keep(t, replayCapture, *update, func(t *testing.T, dir string) { checkReplayCapture(t, dir, order.Key) })
}

// TestReplayCapture checks the committed capture where node and nginx are
// not installed.
func TestReplayCapture(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(replayCapture, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	key := regexp.MustCompile("order key `([^`]+)`").FindSubmatch(b)
	if key == nil {
		t.Fatal("README.md names no order key")
	}
	checkReplayCapture(t, replayCapture, string(key[1]))
}

var (
	replayID = regexp.MustCompile(`idem-replay-[0-9a-f]+`)
	probeKey = regexp.MustCompile(`-idem-[a-z][a-z-]*-`) // a probe's key: <key>-idem-<probe>-<hex>
)

// checkReplayCapture diagnoses a replay capture: the one order and idem's
// own deliveries, which the logs name by their idem-replay- request ids.
// No finding may be made, and the summary must count every one of those
// deliveries apart. The same logs with those ids renamed, as if another
// client had sent them, must be an incident: what keeps it quiet is the
// recognition, not the traffic.
func checkReplayCapture(t *testing.T, dir, orderKey string) {
	t.Helper()
	var own []string
	for _, name := range []string{nginxLog, appLog} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range replayID.FindAllString(string(b), -1) {
			if !slices.Contains(own, id) {
				own = append(own, id)
			}
		}
	}
	// A replay, a mismatch, concurrent deliveries and a lost response.
	if len(own) < 4 {
		t.Fatalf("the logs name %d of idem replay's deliveries (%v); the probes did not reach the server", len(own), own)
	}
	set, err := load.Files(context.Background(), captureLogs(dir), load.Options{Read: ingest.Options{}, Build: diagnose.DefaultOptions().Build()})
	if err != nil {
		t.Fatal(err)
	}
	res := diagnose.Run(set, diagnose.DefaultOptions())
	for _, f := range res.Findings {
		t.Errorf("idem's own traffic made a finding: %s %s", f.Rule.ID, f.Narrative)
	}
	if res.Summary.OwnTraffic != len(own) {
		t.Errorf("own traffic counted %d deliveries, the logs name %d: %v", res.Summary.OwnTraffic, len(own), own)
	}
	if !slices.ContainsFunc(set.Built, func(in *model.Intent) bool { return in.Key == orderKey }) {
		t.Errorf("the order's key %s is not among the intents", orderKey)
	}

	renamed := t.TempDir()
	for _, name := range []string{nginxLog, appLog} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		s := strings.ReplaceAll(string(b), "idem-replay-", "client-")
		s = probeKey.ReplaceAllString(s, "-retry-")
		capture.WriteFile(t, renamed, name, s)
	}
	set, err = load.Files(context.Background(), captureLogs(renamed), load.Options{Read: ingest.Options{}, Build: diagnose.DefaultOptions().Build()})
	if err != nil {
		t.Fatal(err)
	}
	if res := diagnose.Run(set, diagnose.DefaultOptions()); len(res.Findings) == 0 || res.Summary.OwnTraffic != 0 {
		t.Errorf("the same deliveries from another client are no incident: %d findings, %d own", len(res.Findings), res.Summary.OwnTraffic)
	}
}
