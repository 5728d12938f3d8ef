package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/idem-cli/idem/model"
)

// faultyStore fails chosen operations as a full disk would, at the
// storage boundary, and passes everything else to a real store.
type faultyStore struct {
	store
	mu   sync.Mutex
	fail map[string]error
}

func (f *faultyStore) set(op string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail == nil {
		f.fail = map[string]error{}
	}
	f.fail[op] = err
}

func (f *faultyStore) err(op string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.fail[op]; err != nil {
		return &storageError{Op: op, Err: err}
	}
	return nil
}

func (f *faultyStore) Reserve(ctx context.Context, rec record, now time.Time) (record, bool, error) {
	if err := f.err("reserve"); err != nil {
		return record{}, false, err
	}
	return f.store.Reserve(ctx, rec, now)
}

func (f *faultyStore) Complete(ctx context.Context, c completion) (record, error) {
	if err := f.err("complete"); err != nil {
		return record{}, err
	}
	return f.store.Complete(ctx, c)
}

func (f *faultyStore) TakeOver(ctx context.Context, scope, keyHash, from, to string, lease time.Time) (bool, error) {
	if err := f.err("take over"); err != nil {
		return false, err
	}
	return f.store.TakeOver(ctx, scope, keyHash, from, to, lease)
}

func (f *faultyStore) Release(ctx context.Context, scope, keyHash, owner string) error {
	if err := f.err("release"); err != nil {
		return err
	}
	return f.store.Release(ctx, scope, keyHash, owner)
}

// shared makes a store look shared with other processes, as PostgreSQL
// is: a foreign owner may be alive, so only its lease decides.
type shared struct{ store }

func (shared) Exclusive() bool { return false }

func serveStore(t *testing.T, st store, opts Options) (client, *syncBuffer) {
	t.Helper()
	var log syncBuffer
	opts.Log = &log
	srv := httptest.NewServer(New(opts, st).Handler())
	t.Cleanup(srv.Close)
	return client{t: t, url: srv.URL}, &log
}

// rawPost returns the status, the headers a replay must repeat and the body.
func rawPost(t *testing.T, url, key, body string) (int, string, []byte, bool) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+"/v1/demo-requests", strings.NewReader(body))
	req.Header.Set("Idempotency-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	head := "Content-Type: " + resp.Header.Get("Content-Type") + "\nContent-Length: " + resp.Header.Get("Content-Length")
	return resp.StatusCode, head, b, resp.Header.Get("Idempotent-Replayed") == "true"
}

var errDiskFull = fmt.Errorf("write: %w", syscall.ENOSPC)

func TestStorageErrorsAreNeverAcknowledged(t *testing.T) {
	tests := []struct {
		name string
		fail []string
	}{
		{"the reservation cannot be written", []string{"reserve"}},
		{"the commit fails, the release works", []string{"complete"}},
		{"the commit and the release fail", []string{"complete", "release"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := &faultyStore{store: mustOpen(t, filepath.Join(t.TempDir(), "state.db"))}
			c, log := serveStore(t, fs, Options{})
			for _, op := range tt.fail {
				fs.set(op, errDiskFull)
			}
			r := c.post("/v1/demo-requests", "k-full", `{"x":1}`)
			if r.status != 503 || r.retry == "" || r.body["id"] != nil {
				t.Fatalf("with the disk full: %+v", r)
			}
			if n := c.effects(); n != 0 {
				t.Fatalf("%d effects after a failed commit", n)
			}
			if strings.Contains(log.String(), `"event":"effect"`) {
				t.Fatalf("an effect was logged:\n%s", log.String())
			}
			// Space is back: the retry with the same key runs, once.
			fs.set("reserve", nil)
			fs.set("complete", nil)
			fs.set("release", nil)
			r = c.post("/v1/demo-requests", "k-full", `{"x":1}`)
			if r.status != 201 || r.replayed {
				t.Fatalf("the retry once space is back: %+v", r)
			}
			if again := c.post("/v1/demo-requests", "k-full", `{"x":1}`); !again.replayed || again.body["id"] != r.body["id"] || c.effects() != 1 {
				t.Errorf("after the retry: %+v, effects %d", again, c.effects())
			}
		})
	}
}

// TestStorageErrorsAreNotInProgress: a key whose reservation could be
// recovered, but not while storage fails, answers 503 storage_unavailable,
// as every storage failure does; "409 in progress" would send clients and
// idem diagnose after the wrong cause.
func TestStorageErrorsAreNotInProgress(t *testing.T) {
	fs := &faultyStore{store: mustOpen(t, filepath.Join(t.TempDir(), "state.db"))}
	c, _ := serveStore(t, fs, Options{})
	// The commit and the release fail: the reservation stays, its owner gone.
	fs.set("complete", errDiskFull)
	fs.set("release", errDiskFull)
	if r := c.post("/v1/demo-requests", "k-stuck", `{"x":1}`); r.status != 503 {
		t.Fatalf("the failed commit: %+v", r)
	}
	fs.set("complete", nil)
	fs.set("release", nil)
	// Still failing: the takeover cannot be written.
	fs.set("take over", errDiskFull)
	r := c.post("/v1/demo-requests", "k-stuck", `{"x":1}`)
	if r.status != 503 || r.body["error"] != "storage_unavailable" || r.retry != "1" {
		t.Fatalf("the takeover while storage fails: %+v", r)
	}
	// Storage is back: the next delivery recovers the key and runs once.
	fs.set("take over", nil)
	if r := c.post("/v1/demo-requests", "k-stuck", `{"x":1}`); r.status != 201 || r.replayed {
		t.Fatalf("once storage is back: %+v", r)
	}
	if n := c.effects(); n != 1 {
		t.Errorf("%d effects, want 1", n)
	}
}

// fillUntilFull sends new keys until the store refuses one; it returns the
// acknowledged keys with their ids, and the refused key.
func fillUntilFull(t *testing.T, c client, limit int) (map[string]string, string) {
	t.Helper()
	acked := map[string]string{}
	for i := 0; i < limit; i++ {
		key := fmt.Sprintf("fill-%05d", i)
		r := c.post("/v1/demo-requests", key, fillBody(key))
		switch r.status {
		case 201:
			acked[key] = r.body["id"].(string)
		case 503:
			return acked, key
		default:
			t.Fatalf("%s answered %+v", key, r)
		}
	}
	t.Fatalf("the store never filled up in %d keys", limit)
	return nil, ""
}

func fillBody(key string) string {
	return `{"key":"` + key + `","pad":"` + strings.Repeat("p", 2000) + `"}`
}

// checkAfterFull restarts on the same file and checks that every 201 was
// kept (its replay is the same id) and that the refused key runs once.
func checkAfterFull(t *testing.T, acked map[string]string, refused string, reopen func() store) {
	t.Helper()
	st := reopen()
	c, _ := serveStore(t, st, Options{})
	for key, id := range acked {
		if r := c.post("/v1/demo-requests", key, fillBody(key)); r.status != 201 || !r.replayed || r.body["id"] != id {
			t.Fatalf("%s was acknowledged as %s; after the restart it answers %+v", key, id, r)
		}
	}
	want := len(acked)
	if refused != "" {
		if r := c.post("/v1/demo-requests", refused, fillBody(refused)); r.status != 201 || r.replayed {
			t.Fatalf("the refused key after restart: %+v", r)
		}
		want++
	}
	if got := c.effects(); got != want {
		t.Errorf("%d effects, want %d", got, want)
	}
}

// TestDatabaseFull fills a real SQLite file up to its page limit: SQLite
// answers SQLITE_FULL, as it does for ENOSPC, through the real commit path.
func TestDatabaseFull(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	st, err := OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	db := st.(*sqlStore).db
	var pages int
	db.QueryRow("PRAGMA page_count").Scan(&pages)
	if _, err := db.Exec(fmt.Sprintf("PRAGMA max_page_count = %d", pages+40)); err != nil {
		t.Fatal(err)
	}
	c, _ := serveStore(t, st, Options{})
	acked, refused := fillUntilFull(t, c, 5000)
	t.Logf("%d keys acknowledged before SQLITE_FULL", len(acked))
	if len(acked) == 0 {
		t.Fatal("nothing fitted")
	}
	if _, err := db.Exec("PRAGMA max_page_count = 1073741823"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	checkAfterFull(t, acked, refused, func() store { return mustOpen(t, path) })
}

// TestFileSystemFull fills a small tmpfs for a real ENOSPC. It needs root
// (mount); elsewhere TestDatabaseFull covers the same path.
func TestFileSystemFull(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	defer exec.Command("umount", "-l", dir).Run()
	path := filepath.Join(dir, "state.db")
	st, err := OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := serveStore(t, st, Options{})
	// Leave a little room, then take the rest with a file freed later.
	filler, _ := os.Create(filepath.Join(dir, "filler"))
	buf := make([]byte, 4096)
	for {
		if _, err := filler.Write(buf); err != nil {
			break
		}
	}
	// Give back some room, so that some keys fit before the disk is full.
	if fi, err := filler.Stat(); err == nil {
		filler.Truncate(fi.Size() - 192<<10)
	}
	filler.Close()
	acked, refused := fillUntilFull(t, c, 5000)
	t.Logf("%d keys acknowledged before ENOSPC", len(acked))
	if len(acked) == 0 {
		t.Fatal("nothing fitted")
	}
	// Space is back: the same gateway takes the refused key again, even
	// if its release could not be written either.
	os.Remove(filepath.Join(dir, "filler"))
	r := c.post("/v1/demo-requests", refused, fillBody(refused))
	if r.status != 201 || r.replayed {
		t.Fatalf("the refused key once space is back: %+v", r)
	}
	acked[refused] = r.body["id"].(string)
	st.Close()
	checkAfterFull(t, acked, "", func() store { return mustOpen(t, path) })
}

func TestReplaysAreByteIdenticalAcrossRestarts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	st := mustOpen(t, path)
	srv := httptest.NewServer(New(Options{}, st).Handler())
	body := `{"sku":"A-1","amount":4200}`
	status, head, first, _ := rawPost(t, srv.URL, "k-bytes", body)
	if status != 201 {
		t.Fatalf("first delivery %d", status)
	}
	s2, h2, b2, replayed := rawPost(t, srv.URL, "k-bytes", body)
	srv.Close()
	st.Close()
	if !replayed || s2 != status || h2 != head || !bytes.Equal(b2, first) {
		t.Fatalf("replay before restart: %d %q %q, want %d %q %q", s2, h2, b2, status, head, first)
	}
	for round := 0; round < 2; round++ {
		st := mustOpen(t, path)
		srv := httptest.NewServer(New(Options{}, st).Handler())
		s3, h3, b3, replayed := rawPost(t, srv.URL, "k-bytes", body)
		srv.Close()
		st.Close()
		if !replayed || s3 != status || h3 != head || !bytes.Equal(b3, first) {
			t.Fatalf("replay after restart %d: %d %q %q, want %d %q %q", round+1, s3, h3, b3, status, head, first)
		}
	}
}

func TestJSONStateIsMigrated(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "gateway-state.json")
	route := "/v1/demo-requests"
	body := `{"sku":"A-1","amount":4200}`
	done, stuck := model.HashKey("k-old"), model.HashKey("k-stuck")
	// The old file re-indented the stored body: MarshalIndent wrote it.
	old := map[string]any{
		"keys": map[string]any{
			route + "|" + done: map[string]any{"scope": route, "key_hash": done, "fingerprint": model.Fingerprint([]byte(body)), "state": "completed",
				"status": 201, "body": json.RawMessage(`{"id":"dr_000001","status":"created"}`), "result_id": "dr_000001", "owner": "attempt-1",
				"created": "2026-11-30T09:00:00Z", "expires": "0001-01-01T00:00:00Z"},
			route + "|" + stuck: map[string]any{"scope": route, "key_hash": stuck, "fingerprint": model.Fingerprint([]byte(body)), "state": "in_progress",
				"owner": "attempt-9", "created": "2026-11-30T09:00:00Z", "expires": "2026-11-30T09:00:02Z"},
		},
		"effects": []map[string]any{{"result_id": "dr_000001", "route": route, "key_hash": done, "request_id": "attempt-1", "time": "2026-11-30T09:00:00Z"}},
		"seq":     1,
	}
	b, _ := json.MarshalIndent(old, "", "  ")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	st := mustOpen(t, path)
	c, _ := serveStore(t, st, Options{})
	status, head, got, replayed := rawPost(t, c.url, "k-old", body)
	if status != 201 || !replayed || string(got) != `{"id":"dr_000001","status":"created"}` || !strings.HasPrefix(head, "Content-Type: application/json\n") {
		t.Errorf("migrated replay: %d %q %q replayed=%v", status, head, got, replayed)
	}
	r := c.post("/v1/demo-requests", "k-stuck", body)
	if r.status != 201 || r.replayed || r.body["id"] != "dr_000002" {
		t.Errorf("the migrated reservation of a dead owner: %+v", r)
	}
	if n := c.effects(); n != 2 {
		t.Errorf("%d effects, want 2", n)
	}
	kept, err := os.ReadFile(path + ".json-v1")
	if err != nil || !bytes.Equal(kept, b) {
		t.Errorf("the old JSON was not kept: %v", err)
	}
	head16 := make([]byte, 16)
	f, _ := os.Open(path)
	io.ReadFull(f, head16)
	f.Close()
	if string(head16[:15]) != "SQLite format 3" {
		t.Errorf("the state is not a database now: %q", head16)
	}
}

func TestReservationsOfGoneOwnersAreRecovered(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	body := `{"x":1}`
	route := "/v1/demo-requests"
	orphan := func(st store, key string) {
		rec := record{Scope: route, Digest: keyDigest(key), Fingerprint: model.Fingerprint([]byte(body)), State: stateInProgress,
			Owner: "gw-dead/attempt-1", Lease: t0.Add(30 * time.Second), Created: t0}
		if _, ok, err := st.Reserve(context.Background(), rec, t0); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	tests := []struct {
		name      string
		shared    bool
		stuck     bool
		external  bool
		at        time.Duration // after t0
		want      int
		wantState string
	}{
		{"exclusive store: the lock proves the owner dead", false, false, false, time.Second, 201, "recovers"},
		{"shared store, lease running: the owner may be alive", true, false, false, time.Second, 409, "in progress"},
		{"shared store, lease over", true, false, false, time.Minute, 201, "recovers"},
		{"stuck-reservation fault, exclusive store", false, true, false, time.Second, 409, "in progress"},
		{"stuck-reservation fault, lease over", true, true, false, time.Hour, 409, "in progress"},
		{"an external call may have happened: reconcile first", false, false, true, time.Hour, 409, "reconcile with the provider by its key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var st store = mustOpen(t, "")
			if tt.shared {
				st = shared{st}
			}
			orphan(st, "k-orphan")
			now := t0.Add(tt.at)
			faults := Faults{StuckReservation: tt.stuck}
			if tt.external {
				faults.External = "http://127.0.0.1:1"
			}
			c, log := serveStore(t, st, Options{Now: func() time.Time { return now }, Faults: faults})
			state := c.get("/v1/keys/k-orphan")
			if !strings.Contains(state, `"state":"in_progress"`) || !strings.Contains(state, tt.wantState) || strings.Contains(state, "k-orphan") {
				t.Errorf("GET /v1/keys before the delivery: %s", state)
			}
			r := c.post("/v1/demo-requests", "k-orphan", body)
			if r.status != tt.want || (tt.want == 409 && !tt.external && r.retry != "1") {
				t.Fatalf("delivery: %+v", r)
			}
			if tt.external && (r.retry != "" || r.body["error"] != "idempotency_key_needs_reconciliation") {
				// The provider (none listens there) cannot be asked: only
				// an operator can settle the key, and retrying soon won't.
				t.Errorf("delivery: %+v, want needs reconciliation without Retry-After", r)
			}
			wantEffects := 0
			if tt.want == 201 {
				wantEffects = 1
				if !strings.Contains(log.String(), "reservation recovered") {
					t.Errorf("the recovery was not logged:\n%s", log.String())
				}
				if r := c.post("/v1/demo-requests", "k-orphan", `{"x":2}`); r.status != 409 {
					t.Errorf("another payload under the recovered key: %+v", r)
				}
			}
			if n := c.effects(); n != wantEffects {
				t.Errorf("%d effects, want %d", n, wantEffects)
			}
		})
	}
	t.Run("another payload never recovers a reservation", func(t *testing.T) {
		st := mustOpen(t, "")
		orphan(st, "k-other")
		c, _ := serveStore(t, st, Options{Now: func() time.Time { return t0.Add(time.Hour) }})
		if r := c.post("/v1/demo-requests", "k-other", `{"x":999}`); r.status != 409 || c.effects() != 0 {
			t.Errorf("%+v", r)
		}
	})
}

// TestSlowOwnerLosesItsLease: the lease passes while the owner still
// works; another replica recovers the key; the slow owner's commit is
// refused, so the effect happens once.
func TestSlowOwnerLosesItsLease(t *testing.T) {
	st := shared{mustOpen(t, "")}
	slow, _ := serveStore(t, st, Options{Delay: time.Second, Lease: 100 * time.Millisecond})
	fast, _ := serveStore(t, st, Options{Lease: time.Second})
	var first reply
	done := make(chan struct{})
	go func() { first = slow.post("/v1/demo-requests", "k-slow", `{"x":1}`); close(done) }()
	time.Sleep(300 * time.Millisecond)
	second := fast.post("/v1/demo-requests", "k-slow", `{"x":1}`)
	<-done
	if second.status != 201 || first.status != 503 || first.body["error"] != "reservation_lost" {
		t.Errorf("slow owner %+v, recovering replica %+v", first, second)
	}
	if n := fast.effects(); n != 1 {
		t.Errorf("%d effects, want 1", n)
	}
}

func (c client) get(path string) string {
	resp, err := http.Get(c.url + path)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return fmt.Sprintf("%d %s", resp.StatusCode, b)
}

func TestKeyStateEndpoint(t *testing.T) {
	c, _ := start(t, Options{TTL: time.Hour})
	if got := c.get("/v1/keys/never-used"); !strings.HasPrefix(got, "404 ") {
		t.Errorf("an unknown key: %s", got)
	}
	c.post("/v1/demo-requests", "k-state", `{"x":1}`)
	got := c.get("/v1/keys/k-state")
	for _, want := range []string{"200 ", `"state":"completed"`, `"result_id":"dr_000001"`, `"next_delivery":"replay"`, model.HashKey("k-state")} {
		if !strings.Contains(got, want) {
			t.Errorf("GET /v1/keys/k-state lacks %s: %s", want, got)
		}
	}
	if strings.Contains(strings.TrimPrefix(got, "200 "), "k-state") {
		t.Errorf("the key itself is in the answer: %s", got)
	}
	if got := c.get("/v1/keys/" + strings.Repeat("x", 300)); !strings.HasPrefix(got, "400 ") {
		t.Errorf("an overlong key: %s", got)
	}
}

func TestBodyIsBounded(t *testing.T) {
	c, _ := start(t, Options{})
	big := `{"pad":"` + strings.Repeat("x", maxBody) + `"}`
	if r := c.post("/v1/demo-requests", "k-big", big); r.status != 413 || c.effects() != 0 {
		t.Errorf("a body over 1 MiB: %+v", r)
	}
}

// TestSlowClientsAreCutOff holds connections half-sent: the headers, or
// the body, never finish. The server closes them all by its timeouts.
func TestSlowClientsAreCutOff(t *testing.T) {
	st := mustOpen(t, "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addrc := make(chan string, 1)
	go Serve(ctx, "127.0.0.1:0", New(Options{}, st).Handler(),
		timeouts{ReadHeader: 300 * time.Millisecond, Read: 500 * time.Millisecond, Write: time.Second, Idle: 300 * time.Millisecond},
		DefaultLimits, func(a string) { addrc <- a })
	addr := <-addrc
	partial := []string{
		"POST /v1/demo-requests HTTP/1.1\r\nHost: x\r\nIdempot",
		"POST /v1/demo-requests HTTP/1.1\r\nHost: x\r\nIdempotency-Key: k-half\r\nContent-Length: 100\r\n\r\n{\"x\":",
		"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", // then idle
	}
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < 60; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Error(err)
				return
			}
			defer conn.Close()
			conn.Write([]byte(partial[i%len(partial)]))
			conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			io.Copy(io.Discard, conn) // returns when the server closes
			if time.Since(start) > 3*time.Second {
				t.Errorf("connection %d was held %s", i, time.Since(start))
			}
		}()
	}
	wg.Wait()
}

// TestStateDeletedUnderTheGateway: once its path no longer names the file
// it opened, the gateway acknowledges nothing, says it is not healthy, and
// no second gateway starts on the path.
func TestStateDeletedUnderTheGateway(t *testing.T) {
	for _, how := range []string{"deleted", "replaced"} {
		t.Run(how, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.db")
			st, err := OpenStore(path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			c, _ := serveStore(t, st, Options{})
			if r := c.post("/v1/demo-requests", "k-before", `{"x":1}`); r.status != 201 {
				t.Fatalf("before: %+v", r)
			}
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if how == "replaced" {
				if err := os.WriteFile(path, nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			for _, key := range []string{"k-after", "k-before"} {
				if r := c.post("/v1/demo-requests", key, `{"x":1}`); r.status != 503 || r.body["error"] != "storage_unavailable" {
					t.Errorf("%s after the state was %s: %+v, want 503", key, how, r)
				}
			}
			resp, err := http.Get(c.url + "/healthz")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 503 || !strings.Contains(string(b), `"ok":false`) || strings.Contains(string(b), path) {
				t.Errorf("/healthz: %d %s", resp.StatusCode, b)
			}
			if second, err := OpenStore(path); !errors.Is(err, errStateLocked) {
				if second != nil {
					second.Close()
				}
				t.Errorf("a second gateway on the path: %v, want %v", err, errStateLocked)
			}
		})
	}
}
