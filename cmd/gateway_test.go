package cmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/internal/iostreams"
)

func TestNewCmdGatewayFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string // a usage error containing this; "" parses
		check   func(*gatewayOptions) bool
	}{
		{"defaults", nil, "", func(o *gatewayOptions) bool {
			return o.Listen == "127.0.0.1:8080" && o.profile.Name == "article" && o.TTL == 24*time.Hour && o.Lease == 30*time.Second && o.State == "" &&
				o.MaxConns == 4096 && o.MaxConnsPerClient == 256 && o.IdleTimeout == time.Minute && o.HeaderTimeout == 5*time.Second
		}},
		{"fault names fold into the switches", []string{"--fault", "stuck-reservation,no-fingerprint", "--fault", "non-atomic"}, "", func(o *gatewayOptions) bool {
			return o.Faults.StuckReservation && o.Faults.NoFingerprint && o.Faults.NonAtomic && !o.Faults.NoDedup
		}},
		{"a SQLite state", []string{"--state", "g.db", "--profile", "ietf", "--lease", "5s", "--delay", "1s"}, "", func(o *gatewayOptions) bool {
			return o.State == "g.db" && o.profile.Conflict == 422 && o.Lease == 5*time.Second
		}},
		{"a PostgreSQL store", []string{"--store", "postgresql://u@127.0.0.1/idem"}, "", func(o *gatewayOptions) bool { return o.Store != "" }},
		{"unknown profile", []string{"--profile", "nope"}, `unknown --profile "nope"`, nil},
		{"unknown fault", []string{"--fault", "slow-disk"}, `--fault: unknown fault "slow-disk"`, nil},
		{"crash without external", []string{"--crash-after-external"}, "needs --external", nil},
		{"crash by name without external", []string{"--fault", "crash-after-external"}, "needs --external", nil},
		{"negative ttl", []string{"--ttl", "-1s"}, "must not be negative", nil},
		{"lease shorter than the handler", []string{"--delay", "40s"}, "--lease (30s) must be longer than --delay (40s)", nil},
		{"an external timeout", []string{"--external", "http://127.0.0.1:9", "--external-timeout", "2s"}, "", func(o *gatewayOptions) bool {
			return o.ExternalTimeout == 2*time.Second && o.Faults.External != ""
		}},
		{"no external timeout", []string{"--external-timeout", "0s"}, "--external-timeout must be positive", nil},
		{"connection limits", []string{"--max-conns", "100", "--max-conns-per-client", "10", "--idle-timeout", "5s", "--header-timeout", "2s"}, "", func(o *gatewayOptions) bool {
			return o.MaxConns == 100 && o.MaxConnsPerClient == 10 && o.IdleTimeout == 5*time.Second && o.HeaderTimeout == 2*time.Second
		}},
		{"more per client than overall", []string{"--max-conns", "10", "--max-conns-per-client", "20"}, "no more than the first", nil},
		{"no connections", []string{"--max-conns", "0"}, "at least 1", nil},
		{"no idle timeout", []string{"--idle-timeout", "0s"}, "must be positive", nil},
		{"two stores", []string{"--state", "a.db", "--store", "postgres://h/db"}, "choose one", nil},
		{"a store that is not PostgreSQL", []string{"--store", "mysql://h/db"}, "postgres:// URL", nil},
		{"arguments", []string{"extra"}, "unknown command", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			var got *gatewayOptions
			cmd := newCmdGateway(&Factory{IO: ios, Now: time.Now}, func(o *gatewayOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SetOut(&strings.Builder{})
			cmd.SetErr(&strings.Builder{})
			err := cmd.Execute()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				var ue *usageError
				if tt.name != "arguments" && !errors.As(err, &ue) {
					t.Errorf("%v is not a usage error", err)
				}
				if got != nil {
					t.Error("the run function ran after a validation error")
				}
				return
			}
			if err != nil || got == nil {
				t.Fatalf("error %v, run %v", err, got != nil)
			}
			if !tt.check(got) {
				t.Errorf("options: %+v", got)
			}
		})
	}
}

// gatewayRun starts runGateway on a free port and returns its URL and a
// stop function that waits for it to end.
func gatewayRun(t *testing.T, args ...string) (string, func()) {
	t.Helper()
	ios, _, _, errOut := iostreams.Test()
	f := &Factory{IO: ios, Now: time.Now}
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	ctx, cancel := context.WithCancel(context.Background())
	cmd := newCmdGateway(f, nil)
	cmd.SetArgs(append([]string{"--listen", addr}, args...))
	cmd.SetContext(ctx)
	done := make(chan error, 1)
	go func() { done <- cmd.Execute() }()
	for i := 0; i < 200; i++ {
		if resp, err := http.Get("http://" + addr + "/healthz"); err == nil {
			resp.Body.Close()
			return "http://" + addr, func() {
				cancel()
				if err := <-done; err != nil {
					t.Errorf("the gateway ended with %v", err)
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	t.Fatalf("the gateway did not start: %v %s", <-done, errOut.String())
	return "", nil
}

func effectIDs(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ids []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := sc.Text(); strings.Contains(line, `"event":"effect"`) {
			_, rest, _ := strings.Cut(line, `"result_id":"`)
			id, _, _ := strings.Cut(rest, `"`)
			ids = append(ids, id)
		}
	}
	return ids
}

// TestGatewayLogNeverRestartsItsIds runs the gateway twice on one --log:
// in memory, the log starts again with the ids; with --state, both go on.
func TestGatewayLogNeverRestartsItsIds(t *testing.T) {
	for _, tt := range []struct {
		name  string
		state bool
		want  string
	}{
		{"in memory: a new log", false, "dr_000001"},
		{"with a state file: the log and the ids go on", true, "dr_000001 dr_000002"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			logPath := filepath.Join(dir, "gateway.jsonl")
			args := []string{"--log", logPath}
			if tt.state {
				args = append(args, "--state", filepath.Join(dir, "gateway.db"))
			}
			for run := 1; run <= 2; run++ {
				url, stop := gatewayRun(t, args...)
				req, _ := http.NewRequest(http.MethodPost, url+"/v1/demo-requests", strings.NewReader(`{"run":`+fmt.Sprint(run)+`}`))
				req.Header.Set("Idempotency-Key", fmt.Sprintf("order-%d", run))
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				stop()
			}
			if got := strings.Join(effectIDs(t, logPath), " "); got != tt.want {
				t.Errorf("effects in the log: %s, want %s", got, tt.want)
			}
		})
	}
}

// TestGatewayBoundsIdleConnections floods `idem gateway --max-conns-per-client
// 10` with 200 kept-alive idle connections: it holds at most 10, and a new
// client is served.
func TestGatewayBoundsIdleConnections(t *testing.T) {
	url, stop := gatewayRun(t, "--max-conns", "20", "--max-conns-per-client", "10")
	defer stop()
	addr := strings.TrimPrefix(url, "http://")
	deadline := time.Now().Add(20 * time.Second)
	var conns []net.Conn
	for i := 0; i < 200; i++ {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatalf("dial %d: %v", i, err)
		}
		defer c.Close()
		c.SetDeadline(deadline)
		conns = append(conns, c)
		io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
		if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{}}
	resp, err := client.Get(url + "/healthz")
	if err != nil {
		t.Fatalf("a new client after the flood: %v", err)
	}
	resp.Body.Close()
	held := 0
	for _, c := range conns {
		c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
		if _, err := c.Read(make([]byte, 1)); errors.Is(err, os.ErrDeadlineExceeded) {
			held++
		}
	}
	if held > 10 {
		t.Errorf("the gateway holds %d of 200 idle connections, want at most 10", held)
	}
}
