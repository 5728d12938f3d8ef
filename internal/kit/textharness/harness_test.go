package textharness

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/idem-cli/idem/internal/kit/capture"
	"github.com/idem-cli/idem/model"
)

var update = flag.Bool("update", false, "rewrite fixtures/real/ from this run's captures")

// chiVersion is the version of chi go.mod requires, which the test is
// built with.
func chiVersion(t *testing.T) string {
	b, err := os.ReadFile("../../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "github.com/go-chi/chi/v5" {
			return f[1]
		}
	}
	t.Fatal("go.mod requires no chi")
	return ""
}

// fixturesDir is where the captures are kept.
const fixturesDir = "../../../fixtures/real"

// The captures' files.
const (
	ChiLog     = "chi.log"
	ClientLog  = "urllib3.log"
	UvicornLog = "uvicorn-access.log"
	RecordName = "harness.json"
)

// Arrival is one request the chi service received, as its handler saw
// it: which step, which send of that step (the client's own retry is the
// second), and what it answered.
type Arrival struct {
	Step   string `json:"step"`
	Send   int    `json:"send"`
	Method string `json:"method"`
	Path   string `json:"path"`
	Key    string `json:"key,omitempty"`
	Status int    `json:"status"`
}

// Record is what a capture's harness did: the software that wrote its
// logs, and either what the chi service received or what the harness
// sent to uvicorn.
type Record struct {
	Software map[string]string `json:"software"`
	Arrivals []Arrival         `json:"arrivals,omitempty"`
	Sent     []capture.Sent    `json:"sent,omitempty"`
}

// loadRecord reads a capture folder's record.
func loadRecord(t testing.TB, dir string) *Record {
	t.Helper()
	var rec Record
	capture.ReadJSON(t, filepath.Join(dir, RecordName), &rec)
	return &rec
}

// step is one request the client makes.
type step struct {
	Step   string `json:"step"`
	Method string `json:"method"`
	Path   string `json:"path"`
	Key    string `json:"key,omitempty"`
	Body   string `json:"body,omitempty"`
}

// clientSteps: an order, one whose first send the service answers 503
// (urllib3 sends it again on its own), the first again under its key, a
// read, a miss.
var clientSteps = []step{
	{Step: "create", Method: "POST", Path: "/v1/orders", Key: "k-create-1", Body: `{"sku":"a"}`},
	{Step: "flaky", Method: "POST", Path: "/v1/orders", Key: "k-flaky-1", Body: `{"sku":"b"}`},
	{Step: "replay", Method: "POST", Path: "/v1/orders", Key: "k-create-1", Body: `{"sku":"a"}`},
	{Step: "read", Method: "GET", Path: "/v1/orders/ord_1"},
	{Step: "missing", Method: "GET", Path: "/v1/orders/nope"},
}

// chiService is the order service on chi, logging with chi's default
// middleware.Logger (its own layout, without colour: a file is no
// terminal) behind middleware.RequestID, and keeping its ledger.
type chiService struct {
	mu       sync.Mutex
	orders   map[string]string
	sends    map[string]int
	arrivals []Arrival
}

func (s *chiService) handler(logTo *os.File) http.Handler {
	r := chi.NewRouter()
	r.Use(middleware.RequestID)
	r.Use(middleware.RequestLogger(&middleware.DefaultLogFormatter{Logger: log.New(logTo, "", log.LstdFlags), NoColor: true}))
	r.Post("/v1/orders", func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		s.mu.Lock()
		defer s.mu.Unlock()
		a := s.arrive(r, key)
		switch id, seen := s.orders[key]; {
		case a.Step == "flaky" && a.Send == 1:
			a.Status = http.StatusServiceUnavailable // urllib3's Retry sends it again
		case seen:
			// The first answer again, as a key store replays it.
			w.Header().Set("Idempotent-Replayed", "true")
			a.Status = s.answer(w, http.StatusCreated, id)
		default:
			id = fmt.Sprintf("ord_%d", len(s.orders)+1)
			s.orders[key] = id
			a.Status = s.answer(w, http.StatusCreated, id)
		}
		if a.Status == http.StatusServiceUnavailable {
			w.WriteHeader(a.Status)
		}
		s.arrivals = append(s.arrivals, *a)
	})
	r.Get("/v1/orders/{id}", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		a := s.arrive(r, "")
		a.Status = http.StatusNotFound
		for _, id := range s.orders {
			if id == chi.URLParam(r, "id") {
				a.Status = s.answer(w, http.StatusOK, id)
			}
		}
		if a.Status == http.StatusNotFound {
			w.WriteHeader(a.Status)
		}
		s.arrivals = append(s.arrivals, *a)
	})
	return r
}

func (s *chiService) arrive(r *http.Request, key string) *Arrival {
	st := r.Header.Get(capture.HeaderStep)
	s.sends[st]++
	return &Arrival{Step: st, Send: s.sends[st], Method: r.Method, Path: r.URL.Path, Key: key}
}

func (s *chiService) answer(w http.ResponseWriter, status int, id string) int {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"id":%q}`, id)
	return status
}

// TestChiAndURLLib3 runs the chi service and the Python client against
// it, and checks what idem reads from both logs.
func TestChiAndURLLib3(t *testing.T) {
	py := capture.Python(t, "apt-get install python3-requests", "requests", "urllib3")
	dir := t.TempDir()
	chiLog, clientLog := filepath.Join(dir, ChiLog), filepath.Join(dir, ClientLog)
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

	steps, _ := json.Marshal(clientSteps)
	cf, err := os.Create(clientLog)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, filepath.Join("testdata", "python", "client.py"), "http://"+ln.Addr().String(), string(steps))
	cmd.Stderr = cf // logging.basicConfig writes there
	out, err := cmd.Output()
	cf.Close()
	if err != nil {
		t.Fatalf("client: %v\n%s", err, out)
	}
	_ = srv.Shutdown(ctx)
	lf.Close()

	rec := &Record{Software: map[string]string{
		"chi":      "github.com/go-chi/chi/v5 " + chiVersion(t),
		"requests": capture.Version("python3-requests", py, "-c", "import requests; print(requests.__version__)"),
		"urllib3":  capture.Version("python3-urllib3", py, "-c", "import urllib3; print(urllib3.__version__)"),
	}, Arrivals: svc.arrivals}
	checkClientRan(t, out, rec)
	folder := capture.Folder{Logs: map[string]string{ChiLog: chiLog, ClientLog: clientLog}, RecordName: RecordName, Record: rec}
	folder.Keep(t, filepath.Join(fixturesDir, "chi-urllib3"), *update, func(t *testing.T, dir string) { checkChi(t, dir, loadRecord(t, dir)) })
}

// checkClientRan makes sure the traffic did what the scenario says before
// anything is asked of idem: urllib3 sent the flaky step twice, on its
// own, and every step ended as the service answered its last send.
func checkClientRan(t *testing.T, out []byte, rec *Record) {
	t.Helper()
	var ended []struct {
		Step   string `json:"step"`
		Status int    `json:"status"`
	}
	if err := json.Unmarshal(out, &ended); err != nil || len(ended) != len(clientSteps) {
		t.Fatalf("client printed %q (%v)", out, err)
	}
	last := map[string]int{}
	sends := map[string]int{}
	for _, a := range rec.Arrivals {
		last[a.Step] = a.Status
		sends[a.Step]++
	}
	for _, e := range ended {
		if e.Status != last[e.Step] {
			t.Fatalf("step %s ended %d for the client, the service last answered %d", e.Step, e.Status, last[e.Step])
		}
	}
	if sends["flaky"] != 2 || len(rec.Arrivals) != len(clientSteps)+1 {
		t.Fatalf("arrivals %+v: want the flaky step twice (urllib3's retry), every other once", rec.Arrivals)
	}
}

// TestChiAndURLLib3Fixture checks the committed capture the same way.
func TestChiAndURLLib3Fixture(t *testing.T) {
	if *update {
		t.Skip("rewriting the fixtures")
	}
	dir := filepath.Join(fixturesDir, "chi-urllib3")
	checkChi(t, dir, loadRecord(t, dir))
}

// checkChi checks a chi capture folder: each request the service received
// is one line of chi's log and one line of urllib3's, in order, each
// with its method, path and status, the server's and the client's tier;
// chi's generated request id on each server line, no id on the client's;
// the client's own retry marked on its second send of the flaky step,
// and on no other.
func checkChi(t testing.TB, dir string, rec *Record) {
	chiLog, clientLog := filepath.Join(dir, ChiLog), filepath.Join(dir, ClientLog)
	read := capture.MustRead(t, chiLog, clientLog)
	f := capture.Gaps{}.Facts(t, "chi-urllib3")

	server := read.From(chiLog)
	f.Check("server/lines", len(server) == len(rec.Arrivals), "%d requests read from chi's log, the service received %d", len(server), len(rec.Arrivals))
	ids := map[string]bool{}
	for i, a := range rec.Arrivals {
		if i >= len(server) {
			break
		}
		o := server[i]
		id := fmt.Sprintf("server/%s#%d", a.Step, a.Send)
		f.Check(id, o.Format == "requestline" && o.Tier == model.TierServer, "%s: format %s, tier %v, want requestline, server", o.Source, o.Format, o.Tier)
		f.Check(id, o.Method == a.Method && o.Route == a.Path && o.Status == a.Status, "%s: %s %s %d, the service received %s %s and answered %d",
			o.Source, o.Method, o.Route, o.Status, a.Method, a.Path, a.Status)
		f.Check(id, o.RequestID != "" && !ids[o.RequestID], "%s: request id %q, want chi's own, one per request", o.Source, o.RequestID)
		ids[o.RequestID] = true
		f.Check(id, o.Duration > 0 && !o.Time.IsZero(), "%s: duration %s, time %s: want both read", o.Source, o.Duration, o.Time)
		f.Check(id, o.RetryMark == "" && o.Key == "", "%s: retry mark %q, key %q: chi's line names neither", o.Source, o.RetryMark, o.Key)
	}
	if in := read.Input(chiLog); in == nil || in.Skipped != 0 {
		f.Errorf("chi's log: lines skipped: %+v", in)
	}

	client := read.From(clientLog)
	f.Check("client/lines", len(client) == len(rec.Arrivals), "%d sends read from urllib3's log, the service received %d", len(client), len(rec.Arrivals))
	for i, a := range rec.Arrivals {
		if i >= len(client) {
			break
		}
		o := client[i]
		id := fmt.Sprintf("client/%s#%d", a.Step, a.Send)
		f.Check(id, o.Format == "requestline" && o.Tier == model.TierClient, "%s: format %s, tier %v, want requestline, client", o.Source, o.Format, o.Tier)
		f.Check(id, o.Method == a.Method && o.Route == a.Path && o.Status == a.Status, "%s: %s %s %d, the service received %s %s and answered %d",
			o.Source, o.Method, o.Route, o.Status, a.Method, a.Path, a.Status)
		f.Check(id, (o.RetryMark != "") == (a.Send > 1), "%s: retry mark %q on send %d of %s", o.Source, o.RetryMark, a.Send, a.Step)
		f.Check(id, o.RequestID == "" && o.Duration == 0, "%s: request id %q, duration %s: urllib3's line names neither (the number after the status is a byte count)", o.Source, o.RequestID, o.Duration)
	}
	// What urllib3 says besides its sends (new connections) is skipped and
	// said so; none of it is a request line.
	if in := read.Input(clientLog); in != nil {
		for _, s := range in.SkipSamples {
			if strings.Contains(s.Text, ` HTTP/1.1" `) {
				f.Errorf("a request line of urllib3 was skipped: %s %s", s.Source, s.Text)
			}
		}
	}
}

// TestUvicorn runs Debian's uvicorn with its default access log and
// checks what idem reads from it.
func TestUvicorn(t *testing.T) {
	py := capture.Python(t, "apt-get install python3-uvicorn", "uvicorn")
	dir := t.TempDir()
	accessLog := filepath.Join(dir, UvicornLog)
	af, err := os.Create(accessLog)
	if err != nil {
		t.Fatal(err)
	}
	defer af.Close()
	addr := capture.Addr(capture.FreePort(t))
	host, port, _ := net.SplitHostPort(addr)
	proc := capture.Start(t, capture.Cmd{Name: "uvicorn", Bin: py,
		Args: []string{"-m", "uvicorn", "app:app", "--app-dir", filepath.Join("testdata", "python"), "--host", host, "--port", port,
			"--lifespan", "off", "--no-use-colors"},
		Env: []string{"PYTHONUNBUFFERED=1"}, Stdout: af, Listen: []string{addr}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	base := "http://" + addr
	var sent []capture.Sent
	for _, r := range []capture.Request{
		{Step: "create", Path: "/v1/orders", Key: "k-uv-1", Body: `{"sku":"a"}`},
		{Step: "replay", Path: "/v1/orders", Key: "k-uv-1", Body: `{"sku":"a"}`},
		{Step: "no-key", Path: "/v1/orders", Body: `{"sku":"b"}`},
		{Step: "read", Method: "GET", Path: "/v1/orders/ord_1"},
		{Step: "missing", Method: "GET", Path: "/v1/orders/nope"},
	} {
		r.Base = base
		s := capture.Send(ctx, r)
		if s.Ended != capture.EndedResponse {
			t.Fatalf("step %s: %s %s", s.Step, s.Ended, s.Error)
		}
		sent = append(sent, s)
	}
	proc.Stop()
	rec := &Record{Software: map[string]string{"uvicorn": capture.Version("python3-uvicorn", py, "-m", "uvicorn", "--version")}, Sent: sent}
	folder := capture.Folder{Logs: map[string]string{UvicornLog: accessLog}, RecordName: RecordName, Record: rec}
	folder.Keep(t, filepath.Join(fixturesDir, "uvicorn"), *update, func(t *testing.T, dir string) { checkUvicorn(t, dir, loadRecord(t, dir)) })
}

// TestUvicornFixture checks the committed capture the same way.
func TestUvicornFixture(t *testing.T) {
	if *update {
		t.Skip("rewriting the fixtures")
	}
	dir := filepath.Join(fixturesDir, "uvicorn")
	checkUvicorn(t, dir, loadRecord(t, dir))
}

// checkUvicorn: each request sent is one access line, in order, read with
// its method, path and status as the server's; the address and port
// before it are no request id.
func checkUvicorn(t testing.TB, dir string, rec *Record) {
	accessLog := filepath.Join(dir, UvicornLog)
	read := capture.MustRead(t, accessLog)
	f := capture.Gaps{}.Facts(t, "uvicorn")
	obs := read.From(accessLog)
	f.Check("lines", len(obs) == len(rec.Sent), "%d requests read, %d sent", len(obs), len(rec.Sent))
	for i, s := range rec.Sent {
		if i >= len(obs) {
			break
		}
		o := obs[i]
		f.Check(s.Step, o.Format == "requestline" && o.Tier == model.TierServer, "%s: format %s, tier %v, want requestline, server", o.Source, o.Format, o.Tier)
		f.Check(s.Step, o.Method == s.HTTPMethod() && o.Route == s.Route() && o.Status == s.Status, "%s: %s %s %d, sent %s %s and answered %d",
			o.Source, o.Method, o.Route, o.Status, s.HTTPMethod(), s.Route(), s.Status)
		f.Check(s.Step, o.RequestID == "" && o.Key == "", "%s: request id %q, key %q: uvicorn's line names neither", o.Source, o.RequestID, o.Key)
	}
	if in := read.Input(accessLog); in == nil || in.Skipped != 0 {
		f.Errorf("uvicorn's access log: lines skipped: %+v", in)
	}
}
