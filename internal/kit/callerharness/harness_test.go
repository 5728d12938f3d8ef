package callerharness

import (
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idem-cli/idem/internal/kit/capture"
)

var update = flag.Bool("update", false, "rewrite fixtures/real/ from this run's captures")

// fixturesDir is where the captures are kept.
const fixturesDir = "../../../fixtures/real"

// The capture's files.
const (
	CallerLog  = "caller.log"
	APILog     = "orders-api.log"
	RecordName = "harness.json"
)

// Step is one order the caller places: its key, how long it waits for
// each send, how many sends it makes at most, and whether it calls an
// address where nothing listens.
type Step struct {
	Step      string `json:"step"`
	Key       string `json:"key"`
	SKU       string `json:"sku"`
	TimeoutMS int    `json:"timeout_ms"`
	Tries     int    `json:"tries"`
	Down      bool   `json:"down,omitempty"`
	// SlowFirst makes the API answer the key's first send after the
	// caller stopped waiting.
	SlowFirst bool `json:"slow_first,omitempty"`
}

// Send is one send the caller made, as its ledger records it: the status
// it received and the order named, or the error it met.
type Send struct {
	Step      string    `json:"step"`
	Key       string    `json:"key"`
	RequestID string    `json:"request_id"`
	Attempt   int       `json:"attempt"`
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	Status    int       `json:"status,omitempty"`
	OrderID   string    `json:"order_id,omitempty"`
	Error     string    `json:"error,omitempty"`
}

// Arrival is one request the API received and what it did.
type Arrival struct {
	RequestID string `json:"request_id"`
	Key       string `json:"key"`
	Send      int    `json:"send"`
	Status    int    `json:"status"`
	OrderID   string `json:"order_id"`
	Created   bool   `json:"created"`
}

// Record is what the harness did.
type Record struct {
	Software map[string]string `json:"software"`
	Steps    []Step            `json:"steps"`
	Sends    []Send            `json:"sends"`
	Arrivals []Arrival         `json:"arrivals"`
}

// steps: an order answered at once; one whose first send the API answers
// after the caller gave up (ETIMEDOUT), sent again under its key and
// answered with the stored order; one to an address where nothing
// listens (ECONNREFUSED).
var steps = []Step{
	{Step: "create", Key: "k-call-1", SKU: "a", TimeoutMS: 3000, Tries: 1},
	{Step: "timeout-retry", Key: "k-call-2", SKU: "b", TimeoutMS: 300, Tries: 3, SlowFirst: true},
	{Step: "refused", Key: "k-call-3", SKU: "c", TimeoutMS: 1000, Tries: 1, Down: true},
}

// ordersAPI is the API the caller calls: it makes an order for a key's
// first request and answers the stored one after, and logs with slog.
type ordersAPI struct {
	mu       sync.Mutex
	orders   map[string]string
	sends    map[string]int
	arrivals []Arrival
	slow     map[string]bool
	log      *slog.Logger
}

func (a *ordersAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	key, rid := r.Header.Get("Idempotency-Key"), r.Header.Get("X-Request-Id")
	a.mu.Lock()
	a.sends[key]++
	n := a.sends[key]
	id, seen := a.orders[key]
	if !seen {
		id = fmt.Sprintf("ord_%d", len(a.orders)+1)
		a.orders[key] = id
	}
	a.mu.Unlock()
	if n == 1 && a.slow[key] {
		time.Sleep(900 * time.Millisecond)
	}
	if seen {
		a.log.Info("replaying stored response", "request_id", rid, "idempotency_key", key, "order_id", id)
	} else {
		a.log.Info("order created", "request_id", rid, "idempotency_key", key, "order_id", id)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	fmt.Fprintf(w, `{"id":%q}`, id)
	a.log.Info("request handled", "method", r.Method, "path", r.URL.Path, "status", http.StatusCreated,
		"request_id", rid, "idempotency_key", key, "remote_addr", r.RemoteAddr, "duration_ms", time.Since(start).Milliseconds())
	a.mu.Lock()
	a.arrivals = append(a.arrivals, Arrival{RequestID: rid, Key: key, Send: n, Status: http.StatusCreated, OrderID: id, Created: !seen})
	a.mu.Unlock()
}

// TestCallerCapture runs the caller against the API and checks the
// capture; with -update it keeps it as fixtures/real/node-caller.
func TestCallerCapture(t *testing.T) {
	node := capture.Tool(t, "apt-get install nodejs", "node")
	dir := t.TempDir()
	callerLog, apiLog, ledger := filepath.Join(dir, CallerLog), filepath.Join(dir, APILog), filepath.Join(dir, "sends.jsonl")
	lf, err := os.Create(apiLog)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	api := &ordersAPI{orders: map[string]string{}, sends: map[string]int{}, slow: map[string]bool{},
		log: slog.New(slog.NewJSONHandler(capture.NewSyncWriter(lf), nil))}
	for _, s := range steps {
		api.slow[s.Key] = s.SlowFirst
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: api}
	go srv.Serve(ln)
	defer srv.Close()
	down := "http://" + capture.Addr(capture.FreePort(t))
	stepsJSON, _ := json.Marshal(steps)
	out, err := exec.Command(node, "testdata/caller.js", "http://"+ln.Addr().String(), down, callerLog, ledger, string(stepsJSON)).CombinedOutput()
	if err != nil {
		t.Fatalf("caller: %v\n%s", err, out)
	}
	time.Sleep(time.Second) // the slow first send's answer, written after the caller gave up
	rec := &Record{Software: map[string]string{"node": capture.Version("nodejs", node, "--version"), "go": strings.TrimPrefix(runtime.Version(), "go")}, Steps: steps}
	b, err := os.ReadFile(ledger)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var s Send
		if err := json.Unmarshal([]byte(l), &s); err != nil {
			t.Fatal(err)
		}
		rec.Sends = append(rec.Sends, s)
	}
	api.mu.Lock()
	rec.Arrivals = append(rec.Arrivals, api.arrivals...)
	api.mu.Unlock()
	capture.Folder{Logs: map[string]string{CallerLog: callerLog, APILog: apiLog}, RecordName: RecordName, Record: rec}.
		Keep(t, filepath.Join(fixturesDir, "node-caller"), *update, func(t *testing.T, dir string) { checkCaller(t, dir) })
}

// TestCallerFixture checks the committed capture.
func TestCallerFixture(t *testing.T) {
	dir := filepath.Join(fixturesDir, "node-caller")
	capture.Recorded(t, dir, RecordName, "go test ./internal/kit/callerharness -run TestCallerCapture -update")
	checkCaller(t, dir)
}
