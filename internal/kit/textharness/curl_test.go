package textharness

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/internal/kit/capture"
	"github.com/idem-cli/idem/model"
)

// CurlLog is the curl capture's client log: every step's curl -v trace.
const CurlLog = "curl-v.log"

// curlStep is one curl run: a step, and what it sends besides the key.
type curlStep struct {
	step
	RequestID string `json:"request_id,omitempty"`
	// Auth sends a credential, which the trace prints in its dump.
	Auth bool `json:"auth,omitempty"`
}

// curlSteps: an order with its own X-Request-Id (which chi's RequestID
// takes for its own), the same key again, and a step the service answers
// 503 first, which curl --retry sends again on its own. None carries a
// credential: the committed captures are read by every rule's tests, and
// a credential in a dump is proved by the format's own tests.
var curlSteps = []curlStep{
	{step: step{Step: "create", Method: "POST", Path: "/v1/orders", Key: "k-curl-create", Body: `{"sku":"a"}`}, RequestID: "rid-curl-create-1"},
	{step: step{Step: "replay", Method: "POST", Path: "/v1/orders", Key: "k-curl-create", Body: `{"sku":"a"}`}, RequestID: "rid-curl-replay-1"},
	{step: step{Step: "flaky", Method: "POST", Path: "/v1/orders", Key: "k-curl-flaky", Body: `{"sku":"b"}`}},
}

// CurlRecord is what the curl capture's harness did.
type CurlRecord struct {
	Software map[string]string `json:"software"`
	Steps    []curlStep        `json:"steps"`
	Arrivals []Arrival         `json:"arrivals"`
}

// TestCurl runs curl -v (and --retry) against the chi service, and checks
// what idem reads from curl's trace: each request line joined with the
// headers after it, its status from the response line, the retry marked;
// and the client's and the server's lines of one trip joined by the
// X-Request-Id the dump shows.
func TestCurl(t *testing.T) {
	curl := capture.Tool(t, "apt-get install curl", "curl")
	dir := t.TempDir()
	chiLog, curlLog := filepath.Join(dir, ChiLog), filepath.Join(dir, CurlLog)
	lf, err := os.Create(chiLog)
	if err != nil {
		t.Fatal(err)
	}
	svc := &chiService{orders: map[string]string{}, sends: map[string]int{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: svc.handler(lf), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	cf, err := os.Create(curlLog)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, s := range curlSteps {
		args := []string{"-v", "--no-progress-meter", "-o", os.DevNull, "-X", s.Method, "--retry", "2", "--retry-delay", "1",
			"-H", capture.HeaderStep + ": " + s.Step, "-H", "Idempotency-Key: " + s.Key, "-H", "Content-Type: application/json", "--data", s.Body}
		if s.RequestID != "" {
			args = append(args, "-H", "X-Request-Id: "+s.RequestID)
		}
		if s.Auth {
			args = append(args, "-H", "Authorization: Bearer sk_test_not_a_real_secret")
		}
		cmd := exec.CommandContext(ctx, curl, append(args, "http://"+ln.Addr().String()+s.Path)...)
		cmd.Stderr = cf // -v writes its trace there
		if out, err := cmd.Output(); err != nil {
			t.Fatalf("curl %s: %v\n%s", s.Step, err, out)
		}
	}
	cf.Close()
	_ = srv.Shutdown(ctx)
	lf.Close()
	rec := &CurlRecord{Software: map[string]string{
		"chi":  "github.com/go-chi/chi/v5 " + chiVersion(t),
		"curl": capture.Version("curl", curl, "--version"),
	}, Steps: curlSteps, Arrivals: svc.arrivals}
	if len(rec.Arrivals) != len(curlSteps)+1 || rec.Arrivals[len(rec.Arrivals)-1].Send != 2 {
		t.Fatalf("arrivals %+v: want the flaky step twice (curl's retry), every other once", rec.Arrivals)
	}
	folder := capture.Folder{Logs: map[string]string{ChiLog: chiLog, CurlLog: curlLog}, RecordName: RecordName, Record: rec}
	folder.Keep(t, filepath.Join(fixturesDir, "chi-curl"), *update, func(t *testing.T, dir string) { checkCurl(t, dir, loadCurlRecord(t, dir)) })
}

// TestCurlFixture checks the committed capture the same way.
func TestCurlFixture(t *testing.T) {
	if *update {
		t.Skip("rewriting the fixtures")
	}
	dir := filepath.Join(fixturesDir, "chi-curl")
	checkCurl(t, dir, loadCurlRecord(t, dir))
}

func loadCurlRecord(t testing.TB, dir string) *CurlRecord {
	t.Helper()
	var rec CurlRecord
	capture.ReadJSON(t, filepath.Join(dir, RecordName), &rec)
	return &rec
}

// checkCurl: one client request per send the service received, in
// order, with its method, path and status, the key and the X-Request-Id
// of its step's dump, a retry mark only on the second send; the
// credential counted, not kept; the trips whose X-Request-Id chi took
// joined across the two tiers.
func checkCurl(t testing.TB, dir string, rec *CurlRecord) {
	chiLog, curlLog := filepath.Join(dir, ChiLog), filepath.Join(dir, CurlLog)
	read := capture.MustRead(t, chiLog, curlLog)
	f := capture.Gaps{}.Facts(t, "chi-curl")
	steps := map[string]curlStep{}
	for _, s := range rec.Steps {
		steps[s.Step] = s
	}
	client := read.From(curlLog)
	f.Check("client/lines", len(client) == len(rec.Arrivals), "%d sends read from curl's trace, the service received %d", len(client), len(rec.Arrivals))
	for i, a := range rec.Arrivals {
		if i >= len(client) {
			break
		}
		o, s := client[i], steps[a.Step]
		id := fmt.Sprintf("client/%s#%d", a.Step, a.Send)
		f.Check(id, o.Format == "requestline" && o.Tier == model.TierClient, "%s: format %s, tier %v, want requestline, client", o.Source, o.Format, o.Tier)
		f.Check(id, o.Method == a.Method && o.Route == a.Path && o.Status == a.Status, "%s: %s %s %d, the service received %s %s and answered %d",
			o.Source, o.Method, o.Route, o.Status, a.Method, a.Path, a.Status)
		f.Check(id, o.Key == s.Key && o.RequestID == s.RequestID, "%s: key %q, request id %q; the step sent %q, %q", o.Source, o.Key, o.RequestID, s.Key, s.RequestID)
		f.Check(id, (o.RetryMark != "") == (a.Send > 1), "%s: retry mark %q on send %d of %s", o.Source, o.RetryMark, a.Send, a.Step)
	}
	auth := 0
	for _, s := range rec.Steps {
		if s.Auth {
			auth++
		}
	}
	if in := read.Input(curlLog); in == nil || in.Secrets["headers.authorization"] != auth {
		f.Errorf("credentials counted %v, want headers.authorization %d times", in.Secrets, auth)
	} else {
		for _, s := range in.SkipSamples {
			if strings.HasPrefix(s.Text, ">") || strings.HasPrefix(s.Text, "<") {
				f.Errorf("a line of curl's request or response was skipped: %s %s", s.Source, s.Text)
			}
		}
	}
	for _, o := range read.Obs {
		if strings.Contains(o.Detail+o.Message+o.Key+o.RequestID+o.RetryMark, "sk_test") {
			f.Errorf("%s: the credential was kept", o.Source)
		}
	}
	server := read.From(chiLog)
	f.Check("server/lines", len(server) == len(rec.Arrivals), "%d requests read from chi's log, the service received %d", len(server), len(rec.Arrivals))
	for _, s := range rec.Steps {
		if s.RequestID == "" {
			continue
		}
		d := read.Deliveries([]string{s.Key})[s.RequestID]
		ok := d != nil && strings.Contains(capture.Tiers(d), "client") && strings.Contains(capture.Tiers(d), "server")
		tiers := ""
		if d != nil {
			tiers = capture.Tiers(d)
		}
		f.Check("joined/"+s.Step, ok, "delivery %s: tiers %q, want curl's line and chi's joined", s.RequestID, tiers)
	}
}
