package gateway

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// hangingProvider charges, then holds its answer until let go: the call a
// gateway is killed in the middle of. Its counts are the ledger.
type hangingProvider struct {
	mu      sync.Mutex
	effects int
	keys    map[string]bool
	lookup  bool
	called  chan struct{} // one value per charge
	release chan struct{}
}

func (p *hangingProvider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "application/json")
	if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/charges/by-key/") && p.lookup {
		p.mu.Lock()
		found := p.keys[strings.TrimPrefix(r.URL.Path, "/v1/charges/by-key/")]
		p.mu.Unlock()
		json.NewEncoder(w).Encode(map[string]any{"found": found, "id": "ch_1"})
		return
	}
	if r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	p.mu.Lock()
	p.effects++
	if k := r.Header.Get("Idempotency-Key"); k != "" {
		p.keys[k] = true
	}
	p.mu.Unlock()
	p.called <- struct{}{}
	select {
	case <-p.release:
	case <-r.Context().Done():
	}
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(map[string]any{"id": "ch_1"})
}

func (p *hangingProvider) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.effects
}

// TestKillNineMidProviderCall kills the gateway while the provider call
// is in flight and restarts it on the same state: the key ends, by asking
// the provider where it can be asked, by an operator where it cannot,
// and never with a second charge or a Retry-After: 1 loop.
func TestKillNineMidProviderCall(t *testing.T) {
	bin := IdemBinary(t)
	for _, lookup := range []bool{true, false} {
		name := "the provider is asked by the key"
		if !lookup {
			name = "an operator resolves the key"
		}
		t.Run(name, func(t *testing.T) {
			prov := &hangingProvider{keys: map[string]bool{}, lookup: lookup, called: make(chan struct{}, 4), release: make(chan struct{})}
			ps := httptest.NewServer(prov)
			defer ps.Close()
			defer close(prov.release)
			state := filepath.Join(t.TempDir(), "state.db")
			g := startGateway(t, bin, "--state", state, "--external", ps.URL)
			go post(g.url, "k-kill", `{"amount":5900}`)
			select {
			case <-prov.called:
			case <-time.After(10 * time.Second):
				t.Fatal("the provider was never called")
			}
			g.kill()
			g = startGateway(t, bin, "--state", state, "--external", ps.URL)
			first := post(g.url, "k-kill", `{"amount":5900}`)
			if lookup {
				if first.status != 201 || prov.count() != 1 {
					t.Fatalf("retry: %d %s (Retry-After %q), provider effects %d", first.status, first.body, first.header.Get("Retry-After"), prov.count())
				}
			} else {
				if first.status != 409 || first.header.Get("Retry-After") != "" || !strings.Contains(string(first.body), "idempotency_key_needs_reconciliation") {
					t.Fatalf("retry: %d %s (Retry-After %q)", first.status, first.body, first.header.Get("Retry-After"))
				}
				resp, err := http.Post(g.url+"/v1/keys/k-kill/resolve", "application/json", strings.NewReader(`{"outcome":"done"}`))
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					t.Fatalf("resolve: %d %s", resp.StatusCode, b)
				}
			}
			again := post(g.url, "k-kill", `{"amount":5900}`)
			if again.status != 201 || !again.replayed || prov.count() != 1 || effectCount(t, g.url) != 1 {
				t.Errorf("after it ended: %d %s replayed %v, provider effects %d, gateway effects %d", again.status, again.body, again.replayed, prov.count(), effectCount(t, g.url))
			}
		})
	}
}

// TestReplicaReconcilesAfterTheLease: on PostgreSQL, a replica killed mid
// provider call leaves its key to the others once its lease passes; the
// next delivery there asks the provider by the key and makes no second
// charge.
func TestReplicaReconcilesAfterTheLease(t *testing.T) {
	bin := IdemBinary(t)
	url := PostgresURL(t)
	prov := &hangingProvider{keys: map[string]bool{}, lookup: true, called: make(chan struct{}, 4), release: make(chan struct{})}
	ps := httptest.NewServer(prov)
	defer ps.Close()
	defer close(prov.release)
	args := []string{"--store", url, "--external", ps.URL, "--lease", "2s"}
	a, b := startGateway(t, bin, args...), startGateway(t, bin, args...)
	go post(a.url, "k-replica", `{"amount":5900}`)
	select {
	case <-prov.called:
	case <-time.After(10 * time.Second):
		t.Fatal("the provider was never called")
	}
	a.kill()
	// Until the lease passes the owner may be alive: in progress.
	if r := post(b.url, "k-replica", `{"amount":5900}`); r.status != 409 || r.header.Get("Retry-After") != "1" {
		t.Errorf("within the lease: %d %s (Retry-After %q)", r.status, r.body, r.header.Get("Retry-After"))
	}
	time.Sleep(2500 * time.Millisecond)
	r := post(b.url, "k-replica", `{"amount":5900}`)
	again := post(b.url, "k-replica", `{"amount":5900}`)
	if r.status != 201 || !again.replayed || prov.count() != 1 || effectCount(t, b.url) != 1 {
		t.Errorf("after the lease: %d %s, again %d replayed %v; provider effects %d, gateway effects %d",
			r.status, r.body, again.status, again.replayed, prov.count(), effectCount(t, b.url))
	}
}
