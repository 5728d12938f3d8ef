package gateway

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idem-cli/idem/model"
)

// BenchmarkGateway drives the gateway over loopback with a bounded number
// of requests and reports requests per second and p50/p99 latency:
// new keys with 1k and 100k keys already stored, replays, and 200-way
// bursts on one key, on each store. docs/performance.md has the figures
// and the command. IDEM_GATEWAY_URL drives an external gateway instead
// (new keys only, stored keys sent over HTTP first): how the old JSON
// state file was measured.
func BenchmarkGateway(b *testing.B) {
	if url := os.Getenv("IDEM_GATEWAY_URL"); url != "" {
		for _, stored := range []int{1000} {
			b.Run(fmt.Sprintf("external/new/stored=%d", stored), func(b *testing.B) {
				for i := 0; i < stored; i++ {
					post1(url, fmt.Sprintf("seed-%06d", i))
				}
				for i := 0; i < b.N; i++ {
					sendLoad(b, url, 200, 4, func(j int) string { return fmt.Sprintf("new-%d-%06d", i, j) })
				}
			})
		}
		return
	}
	kinds := []struct {
		name string
		open func(b *testing.B) store
	}{
		{"memory", func(b *testing.B) store { return benchOpen(b, "") }},
		{"sqlite", func(b *testing.B) store { return benchOpen(b, filepath.Join(b.TempDir(), "state.db")) }},
		{"postgres", func(b *testing.B) store { return benchOpen(b, PostgresURL(b)) }},
	}
	for _, kind := range kinds {
		for _, stored := range []int{1000, 100000} {
			b.Run(fmt.Sprintf("%s/new/stored=%d", kind.name, stored), func(b *testing.B) {
				url := benchServer(b, kind.open(b), stored)
				for i := 0; i < b.N; i++ {
					sendLoad(b, url, 2000, 8, func(j int) string { return fmt.Sprintf("new-%d-%06d", i, j) })
				}
			})
		}
		b.Run(kind.name+"/replay/stored=1000", func(b *testing.B) {
			url := benchServer(b, kind.open(b), 1000)
			for i := 0; i < b.N; i++ {
				sendLoad(b, url, 2000, 8, func(j int) string { return fmt.Sprintf("seed-%06d", j%1000) })
			}
		})
		b.Run(kind.name+"/burst=200/stored=1000", func(b *testing.B) {
			url := benchServer(b, kind.open(b), 1000)
			for i := 0; i < b.N; i++ {
				sendLoad(b, url, 200, 200, func(int) string { return fmt.Sprintf("burst-%d", i) })
			}
		})
	}
}

func benchOpen(b *testing.B, target string) store {
	st, err := OpenStore(target)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return st
}

const benchBody = `{"sku":"A-1","amount":4200}`

// benchServer seeds n completed keys (seed-000000…) in one transaction and
// serves the store on loopback.
func benchServer(b *testing.B, st store, n int) string {
	b.Helper()
	now := time.Now()
	recs := make([]record, n)
	effects := make([]effect, n)
	for i := range recs {
		key := fmt.Sprintf("seed-%06d", i)
		id := fmt.Sprintf("dr_%06d", i+1)
		recs[i] = record{Scope: "/v1/demo-requests", Digest: keyDigest(key), Fingerprint: model.Fingerprint([]byte(benchBody)),
			State: stateCompleted, Owner: "seed/" + key, Status: 201, Header: http.Header{"Content-Type": {"application/json"}},
			Body: []byte(`{"id":"` + id + `","status":"created"}`), ResultID: id, Created: now, Expires: now.Add(24 * time.Hour)}
		effects[i] = effect{ResultID: id, Route: "/v1/demo-requests", KeyHash: model.HashKey(key), Request: key, Time: now}
	}
	sq := st.(*sqlStore)
	if err := sq.importState(context.Background(), recs, effects, int64(n)); err != nil {
		b.Fatal(err)
	}
	// Measure the steady state, not the seed's checkpoint in the background.
	settle := []string{"PRAGMA wal_checkpoint(TRUNCATE)"}
	if sq.dollar {
		settle = []string{"VACUUM ANALYZE idem_keys", "VACUUM ANALYZE idem_effects", "CHECKPOINT"}
	}
	for _, q := range settle {
		if _, err := sq.db.Exec(q); err != nil {
			b.Fatal(err)
		}
	}
	srv := httptest.NewServer(New(Options{TTL: 24 * time.Hour}, st).Handler())
	b.Cleanup(srv.Close)
	runtime.GC() // the seed's garbage is not the requests' cost
	b.ResetTimer()
	return srv.URL
}

// benchClient keeps its connections, as a load balancer would.
var benchClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}, Timeout: 30 * time.Second}

func post1(url, key string) (int, error) {
	req, _ := http.NewRequest(http.MethodPost, url+"/v1/demo-requests", strings.NewReader(benchBody))
	req.Header.Set("Idempotency-Key", key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := benchClient.Do(req)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// sendLoad sends n requests from c workers and reports the rate and the
// latency quantiles.
func sendLoad(b *testing.B, url string, n, c int, key func(int) string) {
	b.Helper()
	lat := make([]time.Duration, n)
	statuses := make([]int, n)
	next := make(chan int, n)
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < c; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				t := time.Now()
				statuses[i], _ = post1(url, key(i))
				lat[i] = time.Since(t)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	counts := map[int]int{}
	for _, s := range statuses {
		counts[s]++
	}
	if counts[201] == 0 {
		b.Fatalf("no 201 among the answers: %v", counts)
	}
	b.ReportMetric(float64(n)/elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(lat[n/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[n*99/100].Microseconds())/1000, "p99-ms")
	b.Logf("statuses %v", counts)
}
