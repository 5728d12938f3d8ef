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

	"github.com/idem-cli/idem/model"
)

// standIn is a provider that records every call it receives, and every
// effect it makes, before it answers (or fails to): the ledger the tests
// count from, never the gateway's own log.
type standIn struct {
	mu      sync.Mutex
	effects int
	keys    []string // the Idempotency-Key of each call, "" for none
	paths   []string // every request's method and path
	byKey   map[string]bool
	lookup  bool // answers GET /v1/charges/by-key/{key}
	dedup   bool // honours the key on POST
	// failBefore calls fail with 500 before any charge is made or kept.
	failBefore int
	answer     func(w http.ResponseWriter, r *http.Request)
}

func newStandIn(t *testing.T, answer func(w http.ResponseWriter, r *http.Request)) (*standIn, string) {
	p := &standIn{answer: answer, byKey: map[string]bool{}}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return p, srv.URL
}

func (p *standIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	p.mu.Lock()
	p.paths = append(p.paths, r.Method+" "+r.URL.Path)
	if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/charges/by-key/") && p.lookup {
		found := p.byKey[strings.TrimPrefix(r.URL.Path, "/v1/charges/by-key/")]
		p.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"found": found, "id": "ch_x"})
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/charges" {
		p.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	key := r.Header.Get("Idempotency-Key")
	p.keys = append(p.keys, key)
	if p.failBefore > 0 {
		p.failBefore--
		p.mu.Unlock()
		http.Error(w, "down", http.StatusInternalServerError)
		return
	}
	if !(p.dedup && key != "" && p.byKey[key]) {
		p.effects++
	}
	if key != "" {
		p.byKey[key] = true
	}
	answer := p.answer
	p.mu.Unlock()
	answer(w, r)
}

func (p *standIn) ledger() (effects int, keys []string, paths []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.effects, append([]string(nil), p.keys...), append([]string(nil), p.paths...)
}

// TestProviderErrorNeverChargesTwice: a provider that charges, then answers
// 500, answers late, or redirects, is called once for one key, whatever
// the client retries; the client is never told that nothing happened.
func TestProviderErrorNeverChargesTwice(t *testing.T) {
	fail500 := func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", http.StatusInternalServerError) }
	slow := func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(2 * time.Second):
		case <-r.Context().Done():
		}
		writeJSON(w, http.StatusCreated, map[string]any{"id": "ch_late"})
	}
	redirect := func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/v1/charges", http.StatusTemporaryRedirect)
	}
	tests := []struct {
		name   string
		answer func(w http.ResponseWriter, r *http.Request)
	}{
		{"500 after the charge", fail500},
		{"an answer after the client's timeout", slow},
		{"a redirect after the charge", redirect},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prov, url := newStandIn(t, tt.answer)
			c, _ := start(t, Options{Faults: Faults{External: url}, Client: &http.Client{Timeout: 300 * time.Millisecond}})
			first := c.post("/v1/demo-requests", "k-ext-1", `{"amount":5900}`)
			if first.status != http.StatusBadGateway || first.body["error"] != "external_outcome_unknown" {
				t.Errorf("first delivery: %+v, want 502 external_outcome_unknown", first)
			}
			for i := 0; i < 3; i++ {
				r := c.post("/v1/demo-requests", "k-ext-1", `{"amount":5900}`)
				if r.status != http.StatusConflict || r.body["error"] != "idempotency_key_needs_reconciliation" || r.retry != "" {
					t.Errorf("retry %d: %+v, want 409 needs reconciliation without Retry-After", i+1, r)
				}
			}
			effects, keys, paths := prov.ledger()
			if effects != 1 || len(keys) != 1 {
				t.Fatalf("the provider made %d effects from %d calls (%v), want 1", effects, len(keys), paths)
			}
			if keys[0] != providerKey("/v1/demo-requests", keyDigest("k-ext-1")) || strings.Contains(keys[0], "k-ext-1") {
				t.Errorf("the provider got the key %q", keys[0])
			}
			if n := c.effects(); n != 0 {
				t.Errorf("%d effects at the gateway, want 0 until reconciled", n)
			}
		})
	}
}

// TestProviderKeyIsStable: every call for one key carries one provider
// key, derived from the key's digest and the operation, and a provider
// that can be asked by it settles a held key: found completes it without
// a second call, not found calls again with the same key.
func TestProviderKeyIsStable(t *testing.T) {
	if a, b := providerKey("/v1/operations/publish", keyDigest("k")), providerKey("/v1/operations/release", keyDigest("k")); a == b {
		t.Errorf("two operations share the provider key %s", a)
	}
	t.Run("found: completes without a second call", func(t *testing.T) {
		prov, url := newStandIn(t, func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", http.StatusServiceUnavailable) })
		prov.lookup, prov.dedup = true, true
		c, _ := start(t, Options{Faults: Faults{External: url}})
		c.post("/v1/demo-requests", "k-found", `{"x":1}`)
		r := c.post("/v1/demo-requests", "k-found", `{"x":1}`)
		again := c.post("/v1/demo-requests", "k-found", `{"x":1}`)
		effects, keys, _ := prov.ledger()
		if r.status != 201 || !again.replayed || again.body["id"] != r.body["id"] || effects != 1 || len(keys) != 1 || c.effects() != 1 {
			t.Errorf("retry %+v, again %+v; provider effects %d calls %d, gateway effects %d", r, again, effects, len(keys), c.effects())
		}
	})
	t.Run("not found: calls again with the same key", func(t *testing.T) {
		prov, url := newStandIn(t, func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusCreated, map[string]any{"id": "ch_1"})
		})
		prov.lookup, prov.dedup, prov.failBefore = true, true, 1
		c, _ := start(t, Options{Faults: Faults{External: url}})
		c.post("/v1/demo-requests", "k-nf", `{"x":1}`)
		r := c.post("/v1/demo-requests", "k-nf", `{"x":1}`)
		effects, keys, _ := prov.ledger()
		if r.status != 201 || effects != 1 || len(keys) != 2 || keys[0] != keys[1] || c.effects() != 1 {
			t.Errorf("retry %+v; provider effects %d, keys %v, gateway effects %d", r, effects, keys, c.effects())
		}
	})
	t.Run("a refusal releases the key", func(t *testing.T) {
		prov, url := newStandIn(t, func(w http.ResponseWriter, r *http.Request) { http.Error(w, "declined", http.StatusPaymentRequired) })
		c, _ := start(t, Options{Faults: Faults{External: url}})
		first := c.post("/v1/demo-requests", "k-402", `{"x":1}`)
		second := c.post("/v1/demo-requests", "k-402", `{"x":1}`)
		_, keys, _ := prov.ledger()
		if first.status != 502 || first.body["error"] != "external_failed" || second.status != 502 || len(keys) != 2 {
			t.Errorf("first %+v, second %+v, provider calls %d", first, second, len(keys))
		}
	})
}

// TestProviderRedirectIsNotFollowed: the body goes to the provider's URL
// only, never to where a 3xx points.
func TestProviderRedirectIsNotFollowed(t *testing.T) {
	var mu sync.Mutex
	elsewhere := 0
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		elsewhere++
		mu.Unlock()
		writeJSON(w, http.StatusCreated, map[string]any{"id": "ch_elsewhere"})
	}))
	defer other.Close()
	for _, code := range []int{301, 302, 303, 307, 308} {
		prov, url := newStandIn(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/v1/charges", code)
		})
		c, _ := start(t, Options{Faults: Faults{External: url}})
		r := c.post("/v1/demo-requests", "k-redirect", `{"x":1}`)
		_, keys, _ := prov.ledger()
		mu.Lock()
		n := elsewhere
		mu.Unlock()
		if r.status == 201 || n != 0 || len(keys) != 1 || c.effects() != 0 {
			t.Errorf("%d: answer %+v, %d calls elsewhere, %d at the provider, %d gateway effects", code, r, n, len(keys), c.effects())
		}
	}
}

// TestFakeProviderHonoursKeys: the fake provider makes one charge per key
// and says which, and a new charge per call without one.
func TestFakeProviderHonoursKeys(t *testing.T) {
	srv := httptest.NewServer(NewProvider(nil, nil).Handler())
	defer srv.Close()
	charge := func(key string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/charges", strings.NewReader(`{}`))
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m struct{ ID string }
		json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m.ID
	}
	lookup := func(key string) (found bool, id string) {
		resp, err := http.Get(srv.URL + "/v1/charges/by-key/" + key)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m struct {
			Found bool
			ID    string
		}
		json.NewDecoder(resp.Body).Decode(&m)
		return m.Found, m.ID
	}
	if found, _ := lookup("pk-1"); found {
		t.Error("a key never used was found")
	}
	_, a := charge("pk-1")
	_, b := charge("pk-1")
	_, c := charge("")
	_, d := charge("")
	if a != b || c == d || a == c {
		t.Errorf("charges %s %s %s %s", a, b, c, d)
	}
	if found, id := lookup("pk-1"); !found || id != a {
		t.Errorf("lookup: %v %s, want %s", found, id, a)
	}
}

// TestOperatorResolves: a key nothing can settle is settled by an
// operator on this host: done makes its retries replay a 201, not_done
// lets the next delivery run; neither through a proxy, nor while its
// owner may be alive.
func TestOperatorResolves(t *testing.T) {
	resolve := func(c client, key, body string, header http.Header) (int, map[string]any) {
		req, _ := http.NewRequest(http.MethodPost, c.url+"/v1/keys/"+key+"/resolve", strings.NewReader(body))
		for k, v := range header {
			req.Header[k] = v
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
	for _, outcome := range []string{"done", "not_done"} {
		t.Run(outcome, func(t *testing.T) {
			prov, url := newStandIn(t, func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 500) })
			c, _ := start(t, Options{Faults: Faults{External: url}})
			c.post("/v1/demo-requests", "k-res", `{"x":1}`)
			if r := c.post("/v1/demo-requests", "k-res", `{"x":1}`); r.body["error"] != "idempotency_key_needs_reconciliation" {
				t.Fatalf("before: %+v", r)
			}
			if code, m := resolve(c, "k-res", `{"outcome":"`+outcome+`"}`, http.Header{"X-Forwarded-For": {"203.0.113.9"}}); code != 403 {
				t.Errorf("through a proxy: %d %v", code, m)
			}
			for _, bad := range []string{``, `{"outcome":"maybe"}`, `{"outcome":"done","extra":1}`} {
				if code, _ := resolve(c, "k-res", bad, nil); code != 400 {
					t.Errorf("body %q: %d, want 400", bad, code)
				}
			}
			if code, m := resolve(c, "k-none", `{"outcome":"done"}`, nil); code != 404 {
				t.Errorf("a key never seen: %d %v", code, m)
			}
			code, m := resolve(c, "k-res", `{"outcome":"`+outcome+`","scope":"/v1/demo-requests"}`, nil)
			if code != 200 || m["resolved"] != outcome {
				t.Fatalf("resolve: %d %v", code, m)
			}
			prov.mu.Lock()
			prov.answer = func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 201, map[string]any{"id": "ch_2"}) }
			prov.mu.Unlock()
			r := c.post("/v1/demo-requests", "k-res", `{"x":1}`)
			effects, keys, _ := prov.ledger()
			switch outcome {
			case "done":
				if r.status != 201 || !r.replayed || r.body["id"] != m["result_id"] || effects != 1 || c.effects() != 1 {
					t.Errorf("after done: %+v, provider effects %d, gateway effects %d", r, effects, c.effects())
				}
			case "not_done":
				if r.status != 201 || r.replayed || len(keys) != 2 || c.effects() != 1 {
					t.Errorf("after not_done: %+v, provider calls %d, gateway effects %d", r, len(keys), c.effects())
				}
			}
			if code, _ := resolve(c, "k-res", `{"outcome":"done"}`, nil); code != 404 {
				t.Errorf("a second resolve: %d, want 404", code)
			}
		})
	}
	t.Run("the stuck-reservation fault ends by an operator", func(t *testing.T) {
		t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
		st := mustOpen(t, "")
		rec := record{Scope: "/v1/demo-requests", Digest: keyDigest("k-stuck"), Fingerprint: model.Fingerprint([]byte(`{"x":1}`)),
			State: stateInProgress, Owner: "gw-dead/1/r", Lease: t0.Add(30 * time.Second), Created: t0}
		st.Reserve(t.Context(), rec, t0)
		c, _ := serveStore(t, st, Options{Now: func() time.Time { return t0.Add(time.Second) }, Faults: Faults{StuckReservation: true}})
		if r := c.post("/v1/demo-requests", "k-stuck", `{"x":1}`); r.status != 409 || r.retry != "1" {
			t.Fatalf("stuck: %+v", r)
		}
		if code, m := resolve(c, "k-stuck", `{"outcome":"not_done"}`, nil); code != 200 {
			t.Fatalf("resolve: %d %v", code, m)
		}
		if r := c.post("/v1/demo-requests", "k-stuck", `{"x":1}`); r.status != 201 || c.effects() != 1 {
			t.Errorf("after not_done: %+v, effects %d", r, c.effects())
		}
	})
	t.Run("an owner that may be alive", func(t *testing.T) {
		t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
		st := shared{mustOpen(t, "")}
		rec := record{Scope: "/v1/demo-requests", Digest: keyDigest("k-live"), Fingerprint: "sha256:x", State: stateInProgress,
			Owner: "gw-other/1/r", Lease: t0.Add(30 * time.Second), Created: t0}
		st.Reserve(t.Context(), rec, t0)
		c, _ := serveStore(t, st, Options{Now: func() time.Time { return t0.Add(time.Second) }, Faults: Faults{External: "http://127.0.0.1:1"}})
		if code, m := resolve(c, "k-live", `{"outcome":"done"}`, nil); code != 409 || m["error"] != "owner_alive" || c.effects() != 0 {
			t.Errorf("%d %v", code, m)
		}
	})
}

// TestProviderActedButCommitFailed: the provider charged, then the store
// refused the commit. The key stays held, so the retry finds the charge
// by the key instead of making another.
func TestProviderActedButCommitFailed(t *testing.T) {
	prov, url := newStandIn(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 201, map[string]any{"id": "ch_1"}) })
	prov.lookup = true
	st := &faultyStore{store: mustOpen(t, "")}
	c, _ := serveStore(t, st, Options{Faults: Faults{External: url}})
	st.set("complete", errDiskFull)
	if r := c.post("/v1/demo-requests", "k-full", `{"x":1}`); r.status != 503 {
		t.Fatalf("with the disk full: %+v", r)
	}
	st.set("complete", nil)
	r := c.post("/v1/demo-requests", "k-full", `{"x":1}`)
	effects, keys, _ := prov.ledger()
	if r.status != 201 || effects != 1 || len(keys) != 1 || c.effects() != 1 {
		t.Errorf("retry %+v; provider effects %d from %d calls, gateway effects %d", r, effects, len(keys), c.effects())
	}
}
