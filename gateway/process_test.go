package gateway

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// These tests run the built idem binary as child processes: killed with
// SIGKILL mid-request and restarted on the same state, or run as several
// replicas on one PostgreSQL database.

type proc struct {
	cmd    *exec.Cmd
	url    string
	stderr *syncBuffer
	wait   chan error // cmd.Wait's result
	once   sync.Once
	done   bool
}

// syncBuffer is a bytes.Buffer a child process and the test may share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startGateway runs `idem gateway args...` on a free port and waits until
// it answers.
func startGateway(t *testing.T, bin string, args ...string) *proc {
	t.Helper()
	p, err := tryStartGateway(bin, args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.kill)
	return p
}

// tryStartGateway is startGateway for any goroutine: it says why the
// gateway did not start instead of failing the test.
func tryStartGateway(bin string, args ...string) (*proc, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, append([]string{"gateway", "--listen", addr}, args...)...)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd, url: "http://" + addr, stderr: stderr}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	p.wait = exited
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		select {
		case err := <-exited:
			p.done = true
			return nil, fmt.Errorf("the gateway exited (%v): %s", err, stderr.String())
		default:
		}
		if resp, err := http.Get(p.url + "/healthz"); err == nil {
			resp.Body.Close()
			return p, nil
		}
		time.Sleep(25 * time.Millisecond)
	}
	p.kill()
	return nil, fmt.Errorf("the gateway did not start: %s", stderr.String())
}

func (p *proc) kill() {
	p.once.Do(func() {
		if !p.done {
			p.cmd.Process.Signal(syscall.SIGKILL)
			<-p.wait
		}
	})
}

type answer struct {
	status   int
	header   http.Header
	body     []byte
	replayed bool
	err      error
}

func post(url, key, body string) answer {
	req, _ := http.NewRequest(http.MethodPost, url+"/v1/demo-requests", strings.NewReader(body))
	req.Header.Set("Idempotency-Key", key)
	req.Header.Set("Content-Type", "application/json")
	client := &http.Client{Timeout: 20 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, header: resp.Header, body: b, replayed: resp.Header.Get("Idempotent-Replayed") == "true", err: err}
}

func getJSON(t *testing.T, url string, v any) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	json.NewDecoder(resp.Body).Decode(v)
	return resp.StatusCode
}

func effectCount(t *testing.T, url string) int {
	var m struct{ Count int }
	getJSON(t, url+"/v1/effects", &m)
	return m.Count
}

func keyStates(t *testing.T, url, key string) []string {
	var m struct {
		Records []struct{ State string }
	}
	getJSON(t, url+"/v1/keys/"+key, &m)
	var out []string
	for _, r := range m.Records {
		out = append(out, r.State)
	}
	return out
}

// TestKillNineAndRestart kills the gateway with requests in its handler,
// three times, and restarts it on the same state: every acknowledged
// result replays byte for byte, every interrupted key runs exactly once on
// its retry, and no result id is reused in the log.
func TestKillNineAndRestart(t *testing.T) {
	bin := IdemBinary(t)
	dir := t.TempDir()
	state, logPath := filepath.Join(dir, "state.db"), filepath.Join(dir, "gateway.jsonl")
	body := func(key string) string { return `{"sku":"A-1","key":"` + key + `"}` }
	acked := map[string]answer{}
	var interrupted []string
	// Round 2 opens the state through a symlink: what the killed process
	// committed (still in the WAL) must be found by either name.
	link := filepath.Join(dir, "link.db")
	if err := os.Symlink(state, link); err != nil {
		t.Fatal(err)
	}
	for round := 1; round <= 3; round++ {
		name := state
		if round == 2 {
			name = link
		}
		g := startGateway(t, bin, "--state", name, "--log", logPath, "--delay", "2500ms", "--ttl", "0")
		// Every key acknowledged before replays, byte for byte.
		for key, first := range acked {
			a := post(g.url, key, body(key))
			if a.status != first.status || !a.replayed || !bytes.Equal(a.body, first.body) || a.header.Get("Content-Type") != first.header.Get("Content-Type") {
				t.Fatalf("round %d: %s answered %d %q, first %d %q", round, key, a.status, a.body, first.status, first.body)
			}
		}
		// Every key interrupted before runs once now (its reservation's
		// owner died with the last process).
		answers := make([]answer, len(interrupted))
		var retries sync.WaitGroup
		for i, key := range interrupted {
			retries.Add(1)
			go func() { defer retries.Done(); answers[i] = post(g.url, key, body(key)) }()
		}
		retries.Wait()
		for i, key := range interrupted {
			if a := answers[i]; a.status != 201 || a.replayed {
				t.Fatalf("round %d: the interrupted %s answered %d %q", round, key, a.status, a.body)
			}
			acked[key] = answers[i]
		}
		interrupted = nil
		// New keys: five in the handler when the process dies.
		var wg sync.WaitGroup
		for i := 0; i < 5; i++ {
			key := fmt.Sprintf("crash-r%d-%d", round, i)
			interrupted = append(interrupted, key)
			wg.Add(1)
			go func() { defer wg.Done(); post(g.url, key, body(key)) }()
		}
		deadline := time.Now().Add(5 * time.Second)
		for _, key := range interrupted {
			for strings.Join(keyStates(t, g.url, key), ",") != stateInProgress {
				if time.Now().After(deadline) {
					t.Fatalf("%s was never reserved", key)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		g.kill()
		wg.Wait()
		if round == 1 {
			// The stuck-reservation fault keeps the old behaviour: the dead
			// owner's reservation answers "in progress" forever.
			s := startGateway(t, bin, "--state", state, "--log", logPath, "--fault", "stuck-reservation")
			for i := 0; i < 3; i++ {
				a := post(s.url, interrupted[0], body(interrupted[0]))
				if a.status != 409 || a.header.Get("Retry-After") != "1" {
					t.Fatalf("with stuck-reservation: %d %q", a.status, a.body)
				}
			}
			if got := keyStates(t, s.url, interrupted[0]); strings.Join(got, ",") != stateInProgress {
				t.Errorf("GET /v1/keys shows %v", got)
			}
			s.kill()
		}
	}
	g := startGateway(t, bin, "--state", state, "--log", logPath)
	for _, key := range interrupted {
		if a := post(g.url, key, body(key)); a.status != 201 || a.replayed {
			t.Fatalf("the interrupted %s answered %d %q", key, a.status, a.body)
		}
	}
	if n := effectCount(t, g.url); n != len(acked)+len(interrupted) {
		t.Errorf("%d effects, want %d", n, len(acked)+len(interrupted))
	}
	g.kill()
	// One log across restarts: each result id is made once.
	f, err := os.Open(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var line struct {
			Event    string `json:"event"`
			ResultID string `json:"result_id"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Event == "effect" {
			if seen[line.ResultID] {
				t.Errorf("result id %s was made twice", line.ResultID)
			}
			seen[line.ResultID] = true
		}
	}
	if len(seen) != len(acked)+len(interrupted) {
		t.Errorf("the log has %d effects, want %d", len(seen), len(acked)+len(interrupted))
	}
}
