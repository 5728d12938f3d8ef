package gateway

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// storeKinds opens each Store implementation afresh.
var storeKinds = []struct {
	name string
	open func(t *testing.T) store
}{
	{"sqlite-memory", func(t *testing.T) store { return mustOpen(t, "") }},
	{"sqlite-file", func(t *testing.T) store { return mustOpen(t, filepath.Join(t.TempDir(), "state.db")) }},
	{"postgres", func(t *testing.T) store { return mustOpen(t, PostgresURL(t)) }},
}

func mustOpen(t *testing.T, target string) store {
	t.Helper()
	st, err := OpenStore(target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func respond(id string) (int, http.Header, []byte) {
	return 201, http.Header{"Content-Type": {"application/json"}, "X-Not-Kept": {"1"}}, []byte(`{"id":"` + id + `"}`)
}

func TestStoreContract(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for _, kind := range storeKinds {
		t.Run(kind.name, func(t *testing.T) {
			st := kind.open(t)
			rec := record{Scope: "/r", Digest: "h1", Fingerprint: "f1", State: stateInProgress, Owner: "a/1", Lease: t0.Add(time.Minute), Created: t0}
			got, ok, err := st.Reserve(ctx, rec, t0)
			if err != nil || !ok || got.Owner != "a/1" {
				t.Fatalf("first reservation: %+v %v %v", got, ok, err)
			}
			rec2 := rec
			rec2.Owner = "b/2"
			got, ok, err = st.Reserve(ctx, rec2, t0)
			if err != nil || ok || got.Owner != "a/1" || !got.Lease.Equal(rec.Lease) {
				t.Fatalf("second reservation took the key: %+v %v %v", got, ok, err)
			}
			if _, err := st.Complete(ctx, completion{Scope: "/r", Digest: "h1", Owner: "b/2", Prefix: "dr", Dedup: true, Respond: respond}); !errors.Is(err, errNotOwner) {
				t.Fatalf("a non-owner completed: %v", err)
			}
			if n, _ := st.Effects(ctx, 0, 100); len(n) != 0 {
				t.Fatalf("a refused completion left an effect: %v", n)
			}
			if ok, err := st.TakeOver(ctx, "/r", "h1", "z/9", "b/2", t0); ok || err != nil {
				t.Fatalf("a take-over from a non-owner: %v %v", ok, err)
			}
			if ok, err := st.TakeOver(ctx, "/r", "h1", "a/1", "b/2", t0.Add(time.Hour)); !ok || err != nil {
				t.Fatalf("take-over: %v %v", ok, err)
			}
			done, err := st.Complete(ctx, completion{Scope: "/r", Digest: "h1", Owner: "b/2", Request: "2", Prefix: "dr", Time: t0,
				Expires: t0.Add(time.Hour), Dedup: true, Respond: respond})
			if err != nil || done.ResultID != "dr_000001" {
				t.Fatalf("complete: %+v %v", done, err)
			}
			got, _, _ = st.Get(ctx, "/r", "h1")
			if got.State != stateCompleted || got.Status != 201 || string(got.Body) != `{"id":"dr_000001"}` ||
				got.Header.Get("Content-Type") != "application/json" || got.Header.Get("X-Not-Kept") != "" || len(got.Header) != 1 {
				t.Fatalf("completed record: %+v %v", got, got.Header)
			}
			// A live completed record holds; an expired one gives way.
			if _, ok, _ := st.Reserve(ctx, rec, t0.Add(30*time.Minute)); ok {
				t.Fatal("a live completed record was replaced")
			}
			if _, ok, _ := st.Reserve(ctx, rec, t0.Add(2*time.Hour)); !ok {
				t.Fatal("an expired record was not replaced")
			}
			if err := st.Release(ctx, "/r", "h1", "b/2"); err != nil {
				t.Fatal(err)
			}
			if _, ok, _ := st.Get(ctx, "/r", "h1"); !ok {
				t.Fatal("a release by a non-owner deleted the key")
			}
			if err := st.Release(ctx, "/r", "h1", "a/1"); err != nil {
				t.Fatal(err)
			}
			if _, ok, _ := st.Get(ctx, "/r", "h1"); ok {
				t.Fatal("the owner's release kept the key")
			}
			// Ids never restart: the sequence lives in the store.
			st.Reserve(ctx, rec, t0)
			done, _ = st.Complete(ctx, completion{Scope: "/r", Digest: "h1", Owner: "a/1", Prefix: "rcpt", Dedup: true, Expires: t0.Add(time.Minute), Respond: respond})
			if done.ResultID != "rcpt_000002" {
				t.Errorf("second id %q", done.ResultID)
			}
			if n, err := st.Sweep(ctx, t0.Add(2*time.Minute)); n != 1 || err != nil {
				t.Errorf("sweep: %d %v", n, err)
			}
			if effects, _ := st.Effects(ctx, 0, 100); len(effects) != 2 || effects[0].ResultID != "dr_000001" || effects[1].ResultID != "rcpt_000002" {
				t.Errorf("effects %+v", effects)
			}
			if effects, _ := st.Effects(ctx, 1, 1); len(effects) != 1 || effects[0].ResultID != "rcpt_000002" || effects[0].Seq != 2 {
				t.Errorf("the page after 1: %+v", effects)
			}
			if n, err := st.EffectCount(ctx); n != 2 || err != nil {
				t.Errorf("effect count %d %v", n, err)
			}
		})
	}
}

// TestReserveIsAtomic races many reservations of one key: exactly one
// wins, whatever the store.
func TestReserveIsAtomic(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	for _, kind := range storeKinds {
		t.Run(kind.name, func(t *testing.T) {
			st := kind.open(t)
			var wg sync.WaitGroup
			var mu sync.Mutex
			wins := 0
			for i := 0; i < 64; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, ok, err := st.Reserve(ctx, record{Scope: "/r", Digest: "k", Fingerprint: "f", State: stateInProgress, Owner: "o/" + string(rune('A'+i)), Created: now}, now)
					if err != nil {
						t.Error(err)
					}
					if ok {
						mu.Lock()
						wins++
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			if wins != 1 {
				t.Errorf("%d reservations won", wins)
			}
		})
	}
}

func TestStateIsLockedByIdentityNotPath(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.db")
	st := mustOpen(t, path)
	link := filepath.Join(dir, "link.db")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.db")
	if err := os.Link(path, hard); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	for _, other := range []string{path, link, hard, filepath.Join(sub, "..", "state.db")} {
		if s2, err := OpenStore(other); !errors.Is(err, errStateLocked) {
			if s2 != nil {
				s2.Close()
			}
			t.Errorf("%s opened beside the open store: %v", other, err)
		}
	}
	st.Close()
	s2, err := OpenStore(link)
	if err != nil {
		t.Fatalf("after close, the link did not open: %v", err)
	}
	s2.Close()
}

func TestUnwritableState(t *testing.T) {
	dir := t.TempDir()
	if _, err := OpenStore(filepath.Join(dir, "missing-dir", "state.db")); err == nil {
		t.Error("a state in a missing directory opened")
	}
	garbage := filepath.Join(dir, "garbage.db")
	os.WriteFile(garbage, []byte("this is not a database, nor JSON\n"), 0o600)
	if st, err := OpenStore(garbage); err == nil {
		st.Close()
		t.Error("a file that is not a database opened")
	}
	badJSON := filepath.Join(dir, "bad.json")
	os.WriteFile(badJSON, []byte(`{"keys": [`), 0o600)
	if st, err := OpenStore(badJSON); err == nil {
		st.Close()
		t.Error("a truncated JSON state opened")
	}
	if os.Geteuid() != 0 {
		os.Chmod(dir, 0o500)
		defer os.Chmod(dir, 0o700)
		if _, err := OpenStore(filepath.Join(dir, "state.db")); err == nil {
			t.Error("a state in a read-only directory opened")
		}
	}
}

func TestHeaderBytesRoundTrip(t *testing.T) {
	for _, h := range []http.Header{{}, {"Content-Type": {"application/json"}}, {"Location": {"/a", "/b"}, "Content-Type": {"text/plain; charset=utf-8"}}} {
		got := decodeHeader(encodeHeader(h))
		if string(encodeHeader(got)) != string(encodeHeader(h)) {
			t.Errorf("%v came back as %v", h, got)
		}
	}
	// Hostile stored bytes never panic.
	for _, b := range []string{"", "\r\n", "no colon", ": empty name\r\n", "A: b\r\n\r\nC: d"} {
		decodeHeader([]byte(b))
	}
}

// FuzzStoredHeader: whatever bytes a record's header column holds, reading
// them never panics, and what is read writes back the same way.
func FuzzStoredHeader(f *testing.F) {
	f.Add([]byte("Content-Type: application/json\r\n"))
	f.Add([]byte("Location: /a\r\nLocation: /b\r\n"))
	f.Add([]byte(": \r\n\r\nX"))
	f.Fuzz(func(t *testing.T, b []byte) {
		once := encodeHeader(decodeHeader(b))
		if twice := encodeHeader(decodeHeader(once)); string(twice) != string(once) {
			t.Errorf("%q read back as %q", once, twice)
		}
	})
}

func TestStoreErrorsHideThePassword(t *testing.T) {
	for _, target := range []string{"postgres://idem:s3cr3t-pw@127.0.0.1:1/idem?connect_timeout=2", "postgres://idem:s3cr3t-pw@[bad"} {
		st, err := OpenStore(target)
		if err == nil {
			st.Close()
			t.Fatalf("%s opened", target)
		}
		if strings.Contains(err.Error(), "s3cr3t-pw") {
			t.Errorf("the error shows the password: %v", err)
		}
	}
}

// TestPostgresSchemaVersion: a store made before versions were recorded is
// migrated and keeps its keys; a store at the current version is only
// read; a store migrated by a newer gateway is refused.
func TestPostgresSchemaVersion(t *testing.T) {
	ctx := context.Background()
	url := PostgresURL(t)
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// The layout before versions: the tables, no idem_schema.
	if _, err := db.Exec(postgresSchema); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("UPDATE idem_seq SET value = 41 WHERE name = 'result'"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		st := mustOpen(t, url)
		done, err := st.Complete(ctx, completion{Scope: "/r", Digest: fmt.Sprint("h", i), Owner: "a", Prefix: "dr", Respond: respond})
		if err != nil || done.ResultID != fmt.Sprintf("dr_%06d", 42+i) {
			t.Fatalf("open %d: %+v %v", i, done, err)
		}
		st.Close()
	}
	var v int
	if err := db.QueryRow("SELECT version FROM idem_schema").Scan(&v); err != nil || v != schemaVersion {
		t.Fatalf("version %d %v", v, err)
	}
	if _, err := db.Exec("UPDATE idem_schema SET version = version + 1"); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenStore(url); !errors.Is(err, errSchemaNewer) {
		t.Fatalf("a newer schema was opened: %v", err)
	}
}
