package gateway

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idem-cli/idem/internal/kit/harness"
)

// replicasHTTP is the http block of the nginx in front of the replicas
// (harness.RunNginx writes the rest).
const replicasHTTP = `  access_log off;
  upstream gateways {
%[4]s  }
  server {
    listen 127.0.0.1:%[3]d;
    location / {
      proxy_pass http://gateways;
      proxy_http_version 1.1;
      proxy_read_timeout 30s;
      proxy_next_upstream off;
    }
  }
`

// frontReplicas puts one nginx in front of the replicas and returns its
// URL. Without nginx (outside CI) the client spreads the deliveries itself.
func frontReplicas(t *testing.T, replicas []*proc) func(i int) string {
	bin := ""
	for _, p := range []string{"nginx", "/usr/sbin/nginx"} {
		if path, err := exec.LookPath(p); err == nil {
			bin = path
			break
		}
	}
	if bin == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("nginx is not installed; .ci/run installs it and CI must not skip this test")
		}
		t.Log("nginx is not installed: the client spreads the deliveries over the replicas")
		return func(i int) string { return replicas[i%len(replicas)].url }
	}
	var servers strings.Builder
	for _, r := range replicas {
		fmt.Fprintf(&servers, "    server %s;\n", strings.TrimPrefix(r.url, "http://"))
	}
	n := harness.RunNginx(t, func(dir string, port int) string {
		return fmt.Sprintf(replicasHTTP, "", dir, port, servers.String())
	})
	return func(int) string { return n.URL }
}

// TestReplicasShareOneDatabase runs three gateway processes on one
// PostgreSQL database behind one nginx, and sends 200 concurrent
// deliveries of each key: the correct mode makes one effect per key; the
// non-atomic fault makes the cross-process race happen for real.
func TestReplicasShareOneDatabase(t *testing.T) {
	bin := IdemBinary(t)
	const replicas, deliveries = 3, 200
	keys := []string{"replica-k1", "replica-k2"}
	for _, mode := range []struct {
		name   string
		args   []string
		atomic bool
	}{
		{"atomic reservation", nil, true},
		{"non-atomic fault", []string{"--non-atomic"}, false},
	} {
		t.Run(mode.name, func(t *testing.T) {
			url := PostgresURL(t)
			var procs []*proc
			for i := 0; i < replicas; i++ {
				procs = append(procs, startGateway(t, bin, append([]string{"--store", url, "--delay", "300ms"}, mode.args...)...))
			}
			front := frontReplicas(t, procs)
			for _, key := range keys {
				body := `{"seats":["F12"],"key":"` + key + `"}`
				answers := make([]answer, deliveries)
				var wg sync.WaitGroup
				for i := 0; i < deliveries; i++ {
					wg.Add(1)
					go func() { defer wg.Done(); answers[i] = post(front(i), key, body) }()
				}
				wg.Wait()
				counts := map[string]int{}
				for _, a := range answers {
					switch {
					case a.err != nil:
						counts["error"]++
					case a.status == 201 && a.replayed:
						counts["replay"]++
					default:
						counts[fmt.Sprint(a.status)]++
					}
				}
				t.Logf("%s: %v", key, counts)
				if mode.atomic && (counts["201"] != 1 || counts["201"]+counts["409"]+counts["replay"] != deliveries) {
					t.Errorf("%s: answers %v; want one fresh 201, the others 409 or replays", key, counts)
				}
			}
			n := effectCount(t, procs[0].url)
			if mode.atomic && n != len(keys) {
				t.Errorf("%d effects for %d keys", n, len(keys))
			}
			if !mode.atomic && n <= len(keys) {
				t.Errorf("the non-atomic fault made only %d effects for %d keys: the race did not show", n, len(keys))
			}
			// Every replica sees the same effects: one table.
			for _, p := range procs[1:] {
				if m := effectCount(t, p.url); m != n {
					t.Errorf("replicas disagree: %d and %d effects", n, m)
				}
			}
		})
	}
}

// TestReplicaKilledMidRequest kills one replica with a delivery in its
// handler: on a shared database its reservation waits out its lease (the
// owner might be alive), then another replica recovers it, once.
func TestReplicaKilledMidRequest(t *testing.T) {
	bin := IdemBinary(t)
	url := PostgresURL(t)
	args := []string{"--store", url, "--delay", "2s", "--lease", "3s"}
	a, b := startGateway(t, bin, args...), startGateway(t, bin, args...)
	body := `{"sku":"A-1"}`
	go post(a.url, "replica-kill-1", body)
	deadline := time.Now().Add(5 * time.Second)
	for strings.Join(keyStates(t, b.url, "replica-kill-1"), ",") != stateInProgress {
		if time.Now().After(deadline) {
			t.Fatal("the key was never reserved")
		}
		time.Sleep(20 * time.Millisecond)
	}
	killed := time.Now()
	a.kill()
	if r := post(b.url, "replica-kill-1", body); r.status != 409 || r.header.Get("Retry-After") != "1" {
		t.Fatalf("within the lease: %d %s", r.status, r.body)
	}
	time.Sleep(time.Until(killed.Add(3100 * time.Millisecond)))
	if r := post(b.url, "replica-kill-1", body); r.status != 201 || r.replayed {
		t.Fatalf("after the lease: %d %s", r.status, r.body)
	}
	if r := post(b.url, "replica-kill-1", body); r.status != 201 || !r.replayed {
		t.Fatalf("the replay: %d %s", r.status, r.body)
	}
	if n := effectCount(t, b.url); n != 1 {
		t.Errorf("%d effects, want 1", n)
	}
}

// TestReplicasStartUnderLoad starts replicas, several at once, on a
// database that other replicas are serving under load: every start must
// succeed, and no live delivery may be refused or lost because of it.
// (Creating the schema in one transaction at every start once deadlocked
// with live commits: starts failed with 40P01, and live commits got 503.)
func TestReplicasStartUnderLoad(t *testing.T) {
	bin := IdemBinary(t)
	url := PostgresURL(t)
	live := []*proc{startGateway(t, bin, "--store", url), startGateway(t, bin, "--store", url)}
	stop := make(chan struct{})
	var (
		mu      sync.Mutex
		answers = map[string]int{}
		failed  []string
		wg      sync.WaitGroup
	)
	for w := 0; w < 12; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				key := fmt.Sprintf("load-%d-%d", w, i)
				a := post(live[i%len(live)].url, key, `{"sku":"A-1","key":"`+key+`"}`)
				mu.Lock()
				if a.err != nil || a.status != 201 || a.replayed {
					failed = append(failed, fmt.Sprintf("%s: %d %v %s", key, a.status, a.err, a.body))
				} else {
					answers[key] = a.status
				}
				mu.Unlock()
			}
		}()
	}
	time.Sleep(300 * time.Millisecond)
	const starts = 10
	errs := make([]error, starts)
	var starting sync.WaitGroup
	for i := 0; i < starts; i++ {
		starting.Add(1)
		go func() {
			defer starting.Done()
			p, err := tryStartGateway(bin, "--store", url)
			if err != nil {
				errs[i] = err
				return
			}
			t.Cleanup(p.kill)
			// The new replica serves too.
			key := fmt.Sprintf("started-%d", i)
			if a := post(p.url, key, `{"sku":"A-1"}`); a.status != 201 {
				errs[i] = fmt.Errorf("its first delivery answered %d %v %s", a.status, a.err, a.body)
				return
			}
			mu.Lock()
			answers[key] = 201
			mu.Unlock()
		}()
	}
	starting.Wait()
	close(stop)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("replica %d: %v", i, err)
		}
	}
	for _, f := range failed {
		t.Errorf("a live delivery failed during the starts: %s", f)
	}
	if n := effectCount(t, live[0].url); n != len(answers) {
		t.Errorf("%d effects for %d acknowledged keys", n, len(answers))
	}
	t.Logf("%d deliveries served while %d replicas started", len(answers), starts)
}
