package gateway

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

type client struct {
	t   *testing.T
	url string
}

type reply struct {
	status   int
	body     map[string]any
	replayed bool
	retry    string
	err      error
}

func (c client) post(path, key, body string) reply {
	c.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, c.url+path, strings.NewReader(body))
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return reply{err: err}
	}
	defer resp.Body.Close()
	var m map[string]any
	b, _ := io.ReadAll(resp.Body)
	json.Unmarshal(b, &m)
	return reply{status: resp.StatusCode, body: m, replayed: resp.Header.Get("Idempotent-Replayed") == "true", retry: resp.Header.Get("Retry-After")}
}

func (c client) effects() int {
	resp, err := http.Get(c.url + "/v1/effects")
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	var m struct{ Count int }
	json.NewDecoder(resp.Body).Decode(&m)
	return m.Count
}

func start(t *testing.T, opts Options) (client, *syncBuffer) {
	t.Helper()
	store, err := OpenStore("")
	if err != nil {
		t.Fatal(err)
	}
	var log syncBuffer
	opts.Log = &log
	srv := httptest.NewServer(New(opts, store).Handler())
	t.Cleanup(srv.Close)
	return client{t: t, url: srv.URL}, &log
}

func TestContractInEveryProfile(t *testing.T) {
	for _, name := range ProfileNames() {
		t.Run(name, func(t *testing.T) {
			p := Profiles[name]
			c, log := start(t, Options{Profile: p})
			first := c.post("/v1/demo-requests", "k-1", `{"amount":100,"sku":"A"}`)
			if first.status != 201 || first.replayed {
				t.Fatalf("first delivery: %+v", first)
			}
			// Key order and spacing do not change the fingerprint.
			again := c.post("/v1/demo-requests", `"k-1"`, `{ "sku":"A", "amount":100 }`)
			if again.status != 201 || !again.replayed || again.body["id"] != first.body["id"] {
				t.Fatalf("replay: %+v, first %+v", again, first)
			}
			mismatch := c.post("/v1/demo-requests", "k-1", `{"amount":999,"sku":"A"}`)
			if mismatch.status != p.Conflict {
				t.Errorf("mismatch answered %d, want %d", mismatch.status, p.Conflict)
			}
			if got := c.post("/v1/demo-requests", "", `{"a":1}`); got.status != p.MissingKey {
				t.Errorf("missing key answered %d", got.status)
			}
			if got := c.post("/v1/demo-requests", "bad key with spaces", `{"a":1}`); got.status != 400 {
				t.Errorf("malformed key answered %d", got.status)
			}
			if got := c.post("/v1/demo-requests", "k-2", `not json`); got.status != 400 {
				t.Errorf("a non-JSON body answered %d", got.status)
			}
			if n := c.effects(); n != 1 {
				t.Errorf("effects %d, want 1", n)
			}
			for _, secret := range []string{`"k-1"`, "amount"} {
				if strings.Contains(log.String(), secret) {
					t.Errorf("the log holds %s", secret)
				}
			}
		})
	}
}

func TestConcurrentDeliveryGetsInProgress(t *testing.T) {
	c, _ := start(t, Options{Delay: 300 * time.Millisecond})
	got := concurrently(c, 2, "k-c")
	if got[201] != 1 || got[409] != 1 || c.effects() != 1 {
		t.Errorf("answers %v, effects %d", got, c.effects())
	}
}

func concurrently(c client, n int, key string) map[int]int {
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := map[int]int{}
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := c.post("/v1/demo-requests", key, `{"x":1}`)
			mu.Lock()
			got[r.status]++
			mu.Unlock()
		}()
		time.Sleep(20 * time.Millisecond)
	}
	wg.Wait()
	return got
}

func TestFaultModes(t *testing.T) {
	t.Run("non-atomic", func(t *testing.T) {
		c, _ := start(t, Options{Faults: Faults{NonAtomic: true}, NonAtomicWindow: 200 * time.Millisecond})
		got := concurrently(c, 2, "k-n")
		if got[201] != 2 || c.effects() != 2 {
			t.Errorf("answers %v, effects %d; want both to run", got, c.effects())
		}
	})
	t.Run("no-dedup", func(t *testing.T) {
		c, _ := start(t, Options{Faults: Faults{NoDedup: true}})
		c.post("/v1/demo-requests", "k", `{"x":1}`)
		r := c.post("/v1/demo-requests", "k", `{"x":1}`)
		if r.replayed || c.effects() != 2 {
			t.Errorf("no-dedup replayed %v, effects %d", r.replayed, c.effects())
		}
	})
	t.Run("no-fingerprint", func(t *testing.T) {
		c, _ := start(t, Options{Faults: Faults{NoFingerprint: true}})
		first := c.post("/v1/demo-requests", "k", `{"x":1}`)
		r := c.post("/v1/demo-requests", "k", `{"x":2}`)
		if r.status != 201 || !r.replayed || r.body["id"] != first.body["id"] {
			t.Errorf("no-fingerprint: %+v", r)
		}
	})
	t.Run("fail-after-commit", func(t *testing.T) {
		c, _ := start(t, Options{Faults: Faults{FailAfterCommit: true}})
		r := c.post("/v1/demo-requests", "k", `{"x":1}`)
		if r.err == nil {
			t.Fatalf("a response arrived: %+v", r)
		}
		again := c.post("/v1/demo-requests", "k", `{"x":1}`)
		if again.status != 201 || !again.replayed || c.effects() != 1 {
			t.Errorf("replay after a lost response: %+v, effects %d", again, c.effects())
		}
	})
	t.Run("ttl", func(t *testing.T) {
		now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
		var mu sync.Mutex
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		c, _ := start(t, Options{TTL: time.Minute, Now: clock})
		first := c.post("/v1/demo-requests", "k", `{"x":1}`)
		mu.Lock()
		now = now.Add(2 * time.Minute)
		mu.Unlock()
		r := c.post("/v1/demo-requests", "k", `{"x":1}`)
		if r.replayed || r.body["id"] == first.body["id"] || c.effects() != 2 {
			t.Errorf("after the TTL: %+v", r)
		}
	})
	t.Run("external crash", func(t *testing.T) {
		var plog syncBuffer
		prov := NewProvider(&plog, nil)
		ps := httptest.NewServer(prov.Handler())
		defer ps.Close()
		c, _ := start(t, Options{Faults: Faults{External: ps.URL, CrashAfterExternal: true}})
		if r := c.post("/v1/demo-requests", "k", `{"x":1}`); r.err == nil {
			t.Fatalf("the crash answered: %+v", r)
		}
		r := c.post("/v1/demo-requests", "k", `{"x":1}`)
		if r.status != 201 || c.effects() != 1 || strings.Count(plog.String(), `"event":"effect"`) != 2 {
			t.Errorf("retry %+v, effects %d, provider log:\n%s", r, c.effects(), plog.String())
		}
	})
}

func TestOperations(t *testing.T) {
	c, _ := start(t, Options{})
	body := `{"submissionId":"article-107","revision":1,"operation":"publish"}`
	first := c.post("/v1/operations/publish", "article-107:r1:publish", body)
	if first.status != 201 || !strings.HasPrefix(first.body["id"].(string), "rcpt_") {
		t.Fatalf("publish: %+v", first)
	}
	if r := c.post("/v1/operations/publish", "article-107:r1:publish", body); !r.replayed || r.body["id"] != first.body["id"] {
		t.Errorf("known key, same data: %+v", r)
	}
	if r := c.post("/v1/operations/publish", "article-107:r1:publish", `{"submissionId":"article-107","revision":1,"operation":"publish","channel":"x"}`); r.status != 409 {
		t.Errorf("known key, other data: %d", r.status)
	}
	for _, bad := range []struct{ path, key, body string }{
		{"/v1/operations/publish", "article-107:publish", body},
		{"/v1/operations/publish", "article-107:r1:release", body},
		{"/v1/operations/publish", "article-108:r1:publish", body},
		{"/v1/operations/publish", "article-107:r2:publish", body},
		{"/v1/operations/publish", "article-107:r1:publish:attempt-2", body},
	} {
		if r := c.post(bad.path, bad.key, bad.body); r.status != 400 {
			t.Errorf("key %s: %d, want 400", bad.key, r.status)
		}
	}
	// Release after publish is its own operation, not an undo.
	rel := c.post("/v1/operations/release", "article-107:r1:release", `{"submissionId":"article-107","revision":1,"operation":"release"}`)
	if rel.status != 201 || c.effects() != 2 {
		t.Errorf("release: %+v, effects %d", rel, c.effects())
	}
	if r := c.post("/v1/operations/compensate", "article-107:r1:release", body); r.status != 404 {
		t.Errorf("unknown operation: %d", r.status)
	}
}
