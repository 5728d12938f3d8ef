package gateway

import (
	"bytes"
	"context"
	"database/sql"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/model"
)

// TestKeysSharingHashBitsAreApart: two keys whose digests share their
// first 64 bits (the logs' key_hash) are two records. Keyed by those bits,
// the second key was the first: it got the first's stored result.
func TestKeysSharingHashBitsAreApart(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	a := keyDigest("order-1")
	b := a[:len(digestPrefix)+16] + strings.Repeat("0", 48)
	for _, kind := range storeKinds {
		t.Run(kind.name, func(t *testing.T) {
			st := kind.open(t)
			for i, d := range []string{a, b} {
				owner := "o/" + d[len(d)-4:]
				if _, ok, err := st.Reserve(ctx, record{Scope: "/r", Digest: d, Fingerprint: "f", State: stateInProgress, Owner: owner, Created: t0}, t0); !ok || err != nil {
					t.Fatalf("key %d was not new: %v %v", i+1, ok, err)
				}
				done, err := st.Complete(ctx, completion{Scope: "/r", Digest: d, Owner: owner, Prefix: "dr", Dedup: true, Respond: respond})
				if err != nil || done.ResultID != []string{"dr_000001", "dr_000002"}[i] {
					t.Fatalf("key %d: %+v %v", i+1, done, err)
				}
			}
			for d, want := range map[string]string{a: "dr_000001", b: "dr_000002"} {
				if got, ok, err := st.Get(ctx, "/r", d); !ok || err != nil || got.ResultID != want || got.Digest != d {
					t.Errorf("%s: %+v %v %v, want %s", d, got, ok, err, want)
				}
			}
			// A delivery's record is named by its key's whole digest; the
			// log keeps the 64-bit key_hash it correlates by.
			c, log := serveStore(t, st, Options{})
			if r := c.post("/v1/demo-requests", "order-9", `{"x":1}`); r.status != 201 {
				t.Fatalf("order-9: %+v", r)
			}
			if got, ok, err := st.Get(ctx, "/v1/demo-requests", keyDigest("order-9")); !ok || err != nil || got.ResultID != "dr_000003" {
				t.Errorf("order-9 is not stored under its whole digest: %+v %v %v", got, ok, err)
			}
			if !strings.Contains(log.String(), `"key_hash":"`+model.HashKey("order-9")+`"`) {
				t.Errorf("the log lacks the key_hash:\n%s", log.String())
			}
		})
	}
}

// v1Keys are the keys of the version 1 stores in testdata, with the body
// each was sent with and what it answered.
var v1Keys = []struct{ route, key, body, result string }{
	{"/v1/demo-requests", "order-1", `{"sku":"A-1","key":"order-1"}`, `{"id":"dr_000001","status":"created"}`},
	{"/v1/demo-requests", "order-2", `{"sku":"A-1","key":"order-2"}`, `{"id":"dr_000002","status":"created"}`},
	{"/v1/operations/publish", "article-7:r1:publish", `{"submissionId":"article-7","revision":1}`, `{"id":"rcpt_000003","status":"created"}`},
}

// TestVersion1StoresAreMigrated opens stores made by the gateway before
// whole digests were stored (a SQLite file it wrote; the statements it ran
// on PostgreSQL): every completed key replays its stored answer byte for
// byte, the key killed in flight runs once, ids go on, a key that shares
// an old record's 64 bits cannot reach it once its key has claimed it, and
// the old gateway's statements fail on the migrated table.
func TestVersion1StoresAreMigrated(t *testing.T) {
	ctx := context.Background()
	kinds := []struct {
		name string
		open func(t *testing.T) (target string, db *sql.DB)
	}{
		{"sqlite", func(t *testing.T) (string, *sql.DB) {
			b, err := os.ReadFile("testdata/v1-state.db")
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "state.db")
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			return path, nil
		}},
		{"postgres", func(t *testing.T) (string, *sql.DB) {
			url := PostgresURL(t)
			script, err := os.ReadFile("testdata/v1-postgres.sql")
			if err != nil {
				t.Fatal(err)
			}
			db, err := sql.Open("pgx", url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			if _, err := db.Exec(string(script)); err != nil {
				t.Fatal(err)
			}
			return url, db
		}},
	}
	for _, kind := range kinds {
		t.Run(kind.name, func(t *testing.T) {
			target, db := kind.open(t)
			st := mustOpen(t, target)
			srv := httptest.NewServer(New(Options{}, st).Handler())
			defer srv.Close()
			c := client{t: t, url: srv.URL}
			// Looking finds an old record, and does not claim it.
			if got := c.get("/v1/keys/order-2"); !strings.Contains(got, `"next_delivery":"replay"`) || !strings.Contains(got, `"result_id":"dr_000002"`) {
				t.Errorf("GET /v1/keys/order-2 before its delivery: %s", got)
			}
			for _, k := range v1Keys {
				status, body, replayed := postRaw(t, srv.URL+k.route, k.key, k.body)
				if status != 201 || !replayed || body != k.result {
					t.Errorf("%s answered %d %q (replayed %v), want the stored %q", k.key, status, body, replayed, k.result)
				}
			}
			// order-3 was in flight when its gateway was killed: no effect
			// was committed, so its retry runs, once, with the next id.
			status, body, replayed := postRaw(t, srv.URL+"/v1/demo-requests", "order-3", `{"sku":"A-1","key":"order-3"}`)
			if status != 201 || replayed || body != `{"id":"dr_000004","status":"created"}` {
				t.Errorf("order-3 answered %d %q (replayed %v)", status, body, replayed)
			}
			if status, body, replayed = postRaw(t, srv.URL+"/v1/demo-requests", "order-3", `{"sku":"A-1","key":"order-3"}`); !replayed || body != `{"id":"dr_000004","status":"created"}` {
				t.Errorf("order-3's replay answered %d %q (replayed %v)", status, body, replayed)
			}
			if n := c.effects(); n != 4 {
				t.Errorf("%d effects, want 4", n)
			}
			// Claimed by its key, order-1's record is under its whole
			// digest: another digest with the same 64 bits is another key.
			d := keyDigest("order-1")
			if got, ok, err := st.Get(ctx, "/v1/demo-requests", d); !ok || err != nil || got.Digest != d {
				t.Errorf("order-1's record: %+v %v %v", got, ok, err)
			}
			if got, ok, err := st.Get(ctx, "/v1/demo-requests", d[:len(digestPrefix)+16]+strings.Repeat("f", 48)); ok || err != nil {
				t.Errorf("a key sharing order-1's 64 bits found %+v %v", got, err)
			}
			st.Close()
			// The old gateway's reservation names key_hash: it fails, so it
			// cannot write a record this version would not see.
			if db == nil {
				db = openSQLiteForTest(t, target)
			}
			_, err := db.Exec("INSERT INTO idem_keys (scope, key_hash, fingerprint, state, owner, created_ns) VALUES ('/v1/demo-requests', 'sha256:0000000000000000', 'f', 'in_progress', 'old', 1)")
			if err == nil {
				t.Error("a version 1 gateway's insert succeeded on the migrated store")
			}
			// Opened again: current, and every key still answers.
			st2 := mustOpen(t, target)
			srv2 := httptest.NewServer(New(Options{}, st2).Handler())
			defer srv2.Close()
			for _, k := range v1Keys {
				if status, body, replayed := postRaw(t, srv2.URL+k.route, k.key, k.body); status != 201 || !replayed || body != k.result {
					t.Errorf("reopened: %s answered %d %q", k.key, status, body)
				}
			}
		})
	}
}

func openSQLiteForTest(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// postRaw returns a delivery's status, its body as bytes and whether it
// was marked as a replay.
func postRaw(t *testing.T, url, key, body string) (int, string, bool) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Idempotency-Key", key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(bytes.TrimSpace(b)), resp.Header.Get("Idempotent-Replayed") == "true"
}
