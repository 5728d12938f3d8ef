package counterharness

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/formats"
	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/internal/kit/capture"
	"github.com/idem-cli/idem/load"
	"github.com/idem-cli/idem/model"
)

var update = flag.Bool("update", false, "rewrite fixtures/real/nginx-counter-replicas from this run's capture")

// capturedDir is where the capture is kept.
const capturedDir = "../../../fixtures/real/nginx-counter-replicas"

// The capture's files.
const (
	proxyLog   = "access.json.log"
	replicaA   = "app-a.jsonl"
	replicaB   = "app-b.jsonl"
	clientLog  = "client.jsonl"
	recordName = "harness.json"
)

// store is the replicas' shared order store (a database both use): an
// order per key, replayed for the key's later sends.
type store struct {
	mu    sync.Mutex
	n     int
	byKey map[string]string
}

// replica is one process of the order service: its own counter, its own
// log, what it did in its own record.
type replica struct {
	name  string
	addr  string
	log   *slog.Logger
	path  string
	store *store

	mu   sync.Mutex
	seq  int
	done []handled
}

// handled is what a replica did for one request: the harness's record.
type handled struct {
	Replica   string `json:"replica"`
	Step      string `json:"step"`
	RequestID string `json:"request_id"` // the replica's own counter
	Key       string `json:"key"`
	Status    int    `json:"status"`
	Order     string `json:"order"`
	New       bool   `json:"new_order"` // the send made the order: an effect
}

func startReplica(t *testing.T, name string, st *store) *replica {
	t.Helper()
	r := &replica{name: name, path: filepath.Join(t.TempDir(), name+".jsonl"), store: st}
	f, err := os.Create(r.path)
	if err != nil {
		t.Fatal(err)
	}
	r.log = slog.New(slog.NewJSONHandler(capture.NewSyncWriter(f), nil))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r.addr = ln.Addr().String()
	srv := &http.Server{Handler: http.HandlerFunc(r.serve), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close(); f.Close() })
	return r
}

// serve numbers the request from the replica's own counter, ignoring
// any X-Request-Id, as a framework's default request-id middleware does,
// and creates the key's order or replays it.
func (r *replica) serve(w http.ResponseWriter, req *http.Request) {
	start := time.Now()
	_, _ = io.Copy(io.Discard, req.Body)
	r.mu.Lock()
	r.seq++
	rid := fmt.Sprintf("req-%d", r.seq)
	r.mu.Unlock()
	key := req.Header.Get("Idempotency-Key")
	if d, err := time.ParseDuration(req.URL.Query().Get("delay")); err == nil {
		time.Sleep(d)
	}
	attrs := []any{"request_id", rid, "method", req.Method, "route", req.URL.Path, "idempotency_key", key}
	r.store.mu.Lock()
	id, replay := r.store.byKey[key]
	if !replay {
		r.store.n++
		id = fmt.Sprintf("ord_%d", r.store.n)
		r.store.byKey[key] = id
	}
	r.store.mu.Unlock()
	if !replay {
		r.log.Info("order created", append(attrs, "result_id", id, "effect", true)...)
	} else {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]string{"id": id})
	r.log.Info("request completed", append(attrs, "status", http.StatusCreated, "result_id", id, "duration_ms", time.Since(start).Milliseconds())...)
	r.mu.Lock()
	r.done = append(r.done, handled{Replica: r.name, Step: req.Header.Get(capture.HeaderStep), RequestID: rid, Key: key, Status: http.StatusCreated, Order: id, New: !replay})
	r.mu.Unlock()
}

func (r *replica) handled() []handled {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]handled(nil), r.done...)
}

// nginxHTTP balances over the two replicas, round robin, never marking
// one down (a 504 must not send the rest to the other); /v1/slow/ gives
// up after 500 ms.
const nginxHTTP = `  proxy_http_version 1.1;
  proxy_next_upstream off;
  upstream replicas {
    server %[2]s max_fails=0;
    server %[3]s max_fails=0;
  }
  server {
    listen 127.0.0.1:%[1]d;
    location / {
      proxy_pass http://replicas;
    }
    location /v1/slow/ {
      proxy_read_timeout 500ms;
      proxy_pass http://replicas;
    }
  }
`

// step is one send of the client.
type step struct {
	name, key, path string
	// after waits for the replicas to have handled this step first (the
	// first attempt's order committed before its retry is sent).
	after string
}

// Record is what the harness keeps beside the logs: what it sent and
// what each replica did.
type Record struct {
	Software string          `json:"software"`
	Sent     []capture.Sent  `json:"sent"`
	Handled  []handled       `json:"handled"`
	Client   []clientAttempt `json:"-"`
}

// clientAttempt is a line of the client's own log: each attempt, its
// key and what it got, no request id (the client sends none).
type clientAttempt struct {
	Time    string `json:"time"`
	Level   string `json:"level"`
	Msg     string `json:"msg"`
	Key     string `json:"idempotency_key"`
	Method  string `json:"method"`
	URL     string `json:"url"`
	Attempt int    `json:"attempt"`
	Status  int    `json:"status,omitempty"`
	Error   string `json:"error,omitempty"`
}

// TestCounterReplicas runs the stack and checks what it wrote.
func TestCounterReplicas(t *testing.T) {
	st := &store{byKey: map[string]string{}}
	a, b := startReplica(t, "a", st), startReplica(t, "b", st)
	n := capture.StartNginx(t, capture.NginxConfig{
		Logs: []capture.AccessLog{{File: proxyLog, Format: capture.NginxJSONKeyOnly}},
		HTTP: func(port int) string { return fmt.Sprintf(nginxHTTP, port, a.addr, b.addr) },
	})
	k := []string{capture.NewID(), capture.NewID(), capture.NewID(), capture.NewID(), capture.NewID()}
	plan := []step{
		{name: "first", key: k[0], path: "/v1/orders"},
		{name: "second", key: k[1], path: "/v1/orders"},
		// nginx answers 504 after 500 ms; the replica commits at 1.2 s.
		{name: "slow", key: k[2], path: "/v1/slow/orders?delay=1200ms"},
		// The client retries the 504 under the same key once the order
		// is committed: the other replica replays it.
		{name: "slow-retry", key: k[2], path: "/v1/slow/orders", after: "slow"},
		{name: "third", key: k[3], path: "/v1/orders"},
		{name: "fourth", key: k[4], path: "/v1/orders"},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rec := Record{Software: ""}
	attempts := map[string]int{}
	for _, s := range plan {
		if s.after != "" {
			waitHandled(ctx, t, s.after, a, b)
		}
		attempts[s.key]++
		sent := capture.Send(ctx, capture.Request{Step: s.name, Base: n.URL, Path: s.path, Key: s.key, Body: fmt.Sprintf(`{"item":%q}`, s.name)})
		rec.Sent = append(rec.Sent, sent)
		line := clientAttempt{Time: sent.Start.UTC().Format(time.RFC3339Nano), Level: "INFO", Key: s.key, Method: "POST", URL: n.URL + s.path,
			Attempt: attempts[s.key], Status: sent.Status, Error: sent.Error}
		line.Msg = fmt.Sprintf("POST %s attempt %d: %d", strings.SplitN(s.path, "?", 2)[0], line.Attempt, sent.Status)
		rec.Client = append(rec.Client, line)
	}
	waitHandled(ctx, t, "fourth", a, b)
	n.Stop()
	rec.Software = n.Software()
	rec.Handled = append(a.handled(), b.handled()...)
	checkHarness(t, rec)
	var cl strings.Builder
	for _, l := range rec.Client {
		j, _ := json.Marshal(l)
		cl.Write(append(j, '\n'))
	}
	folder := capture.Folder{
		Logs:       map[string]string{proxyLog: n.Log(proxyLog), replicaA: a.path, replicaB: b.path},
		Texts:      map[string]string{clientLog: cl.String(), "nginx.conf": n.Config()},
		RecordName: recordName, Record: rec,
	}
	folder.Keep(t, capturedDir, *update, checkCapture)
}

// TestCounterReplicasFixture checks the committed capture the same way,
// where nginx is not installed.
func TestCounterReplicasFixture(t *testing.T) {
	if *update {
		t.Skip("rewriting the fixture")
	}
	capture.Recorded(t, capturedDir, recordName, "go test ./internal/kit/counterharness -run TestCounterReplicas -update")
	checkCapture(t, capturedDir)
}

// waitHandled waits until a replica has answered step.
func waitHandled(ctx context.Context, t *testing.T, step string, rs ...*replica) {
	t.Helper()
	for ctx.Err() == nil {
		for _, r := range rs {
			for _, h := range r.handled() {
				if h.Step == step {
					return
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no replica handled %s", step)
}

// checkHarness makes sure the traffic is what the checks assume: the
// 504 and its retry, every send reaching a replica, and the counters
// colliding (one id in both replicas), else the capture proves nothing.
func checkHarness(t *testing.T, rec Record) {
	t.Helper()
	byStep := map[string]handled{}
	for _, h := range rec.Handled {
		byStep[h.Step] = h
	}
	for _, s := range rec.Sent {
		want := 201
		if s.Step == "slow" {
			want = 504
		}
		if s.Status != want {
			t.Errorf("%s: status %d, want %d", s.Step, s.Status, want)
		}
		if _, ok := byStep[s.Step]; !ok {
			t.Errorf("%s reached no replica", s.Step)
		}
	}
	if byStep["slow"].Replica == byStep["slow-retry"].Replica || byStep["slow"].RequestID != byStep["slow-retry"].RequestID {
		t.Errorf("the 504 and its retry should reach the two replicas under one counter id: %+v, %+v", byStep["slow"], byStep["slow-retry"])
	}
	if !byStep["slow"].New || byStep["slow-retry"].New {
		t.Errorf("the first attempt should make the order and the retry replay it: %+v, %+v", byStep["slow"], byStep["slow-retry"])
	}
}

// readRecord reads the harness's record of a capture.
func readRecord(t *testing.T, dir string) Record {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, recordName))
	if err != nil {
		t.Fatal(err)
	}
	var rec Record
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

// checkCapture checks what idem reads from a capture against what the
// harness sent and the replicas did: (a) the proxy's and the replicas'
// logs, each send one delivery, no id joined across the replicas;
// (b) the client's own log beside them, its tier corrected as --tier
// client.jsonl=client does, each attempt joining its send.
func checkCapture(t *testing.T, dir string) {
	rec := readRecord(t, dir)
	sends := map[string]int{} // per key
	for _, s := range rec.Sent {
		sends[s.Key]++
	}
	retries := len(rec.Sent) - len(sends)
	files := []string{filepath.Join(dir, proxyLog), filepath.Join(dir, replicaA), filepath.Join(dir, replicaB)}
	t.Run("proxy and replicas", func(t *testing.T) {
		checkReading(t, files, nil, rec, sends, retries, model.TierProxy)
	})
	t.Run("with the client's log", func(t *testing.T) {
		cfg := &formats.Config{Sources: []formats.SourceConfig{{Path: clientLog, Tier: "client"}}}
		checkReading(t, append(files, filepath.Join(dir, clientLog)), cfg, rec, sends, retries, model.TierProxy, model.TierClient)
	})
}

func checkReading(t *testing.T, files []string, cfg *formats.Config, rec Record, sends map[string]int, retries int, outer ...model.Tier) {
	t.Helper()
	if cfg != nil {
		if err := cfg.Compile(); err != nil {
			t.Fatal(err)
		}
	}
	opts := diagnose.DefaultOptions()
	set, err := load.Files(context.Background(), files, load.Options{Read: ingest.Options{Config: cfg}, Build: opts.Build()})
	if err != nil {
		t.Fatal(err)
	}
	if got := set.DeliveryCount(); got != len(rec.Sent) {
		t.Errorf("%d deliveries, want %d: one per send", got, len(rec.Sent))
	}
	for key, n := range sends {
		ins := set.FindIntent(key)
		if len(ins) != 1 {
			t.Errorf("key %s: %d intents, want 1", key, len(ins))
			continue
		}
		if got := len(ins[0].Deliveries); got != n {
			t.Errorf("key %s: %d deliveries, want %d (the sends under it)", key, got, n)
		}
		for _, d := range ins[0].Deliveries {
			for _, tier := range append(outer, model.TierServer) {
				if c := count(d, tier); c != 1 {
					t.Errorf("key %s: delivery %s has %d %s lines, want 1: %v", key, d.RequestID, c, tier, capture.Sources(d))
				}
			}
			for _, o := range d.Observations {
				if o.Tier != model.TierServer && o.RequestID != "" {
					t.Errorf("%s: a %s line shows request id %s, which it never logged", o.Source, o.Tier, o.RequestID)
				}
			}
		}
	}
	res := diagnose.Run(set, opts)
	for _, f := range res.Findings {
		if f.Rule.ID == "request-id-reused" {
			t.Errorf("request-id-reused fires on the replicas' counters: %s", f.Narrative)
		}
	}
	if got := len(res.Retries()); got != retries {
		var why []string
		for _, r := range res.Retries() {
			why = append(why, r.Delivery.RequestID+": "+r.Why)
		}
		t.Errorf("%d retries counted, want %d (the sends of a key after its first): %v", got, retries, why)
	}
}

// count is how many of d's lines tier t wrote.
func count(d *model.Delivery, t model.Tier) int {
	n := 0
	for _, o := range d.Observations {
		if o.Tier == t && (t != model.TierServer || strings.Contains(o.Message, "completed")) {
			n++
		}
	}
	return n
}
