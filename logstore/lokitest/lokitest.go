// Package lokitest starts Grafana Loki for tests: the single binary (every
// role in one process) on 127.0.0.1 with free ports, filesystem storage
// in a temporary directory, a tenant per X-Scope-OrgID (auth_enabled:
// true, so each case's lines stay apart), an in-memory ring and the tsdb
// store with schema v13. The binary is the one
// .ci/loki.sh builds; without it the tests skip, except under CI=true
// where they fail.
package lokitest

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// version is the Loki release the tests run against.
const version = "v3.7.8"

// binary finds loki: $IDEM_LOKI, the CI cache, or PATH.
func binary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("IDEM_LOKI"); p != "" {
		return p
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	p := filepath.Join(cache, "idem-ci", "loki-"+version, "loki")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	if p, err := exec.LookPath("loki"); err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("loki not found: run .ci/loki.sh")
	}
	t.Skip("loki not found (bash .ci/loki.sh builds it)")
	return ""
}

// Loki is one running loki process.
type Loki struct {
	Addr string // 127.0.0.1:PORT, HTTP
	cmd  *exec.Cmd
}

// URL is the instance's address as idem takes it.
func (l *Loki) URL() string { return "loki://" + l.Addr }

// Pause freezes Loki (SIGSTOP: a store that hangs).
func (l *Loki) Pause() { _ = l.cmd.Process.Signal(syscall.SIGSTOP) }

// Resume undoes Pause.
func (l *Loki) Resume() { _ = l.cmd.Process.Signal(syscall.SIGCONT) }

// Stop kills Loki (a store that went away).
func (l *Loki) Stop() { _ = l.cmd.Process.Kill(); _, _ = l.cmd.Process.Wait() }

// Start runs Loki and waits until /ready answers 200 (about 40 s on a
// busy machine, for the ring); it is stopped when the test ends.
//
// The ingesters hold every line of a test (nothing is flushed in its
// time), but the single binary on a filesystem store asks them only
// about the last few hours (ingester.query_store_max_look_back_period,
// whose 0 means max_chunk_age and some; set, it overrides the querier's
// query_ingesters_within): lines weeks old, accepted with 204, were not
// found, the parts of a query past those hours asking no ingester. -1
// asks the ingesters about every time.
//
// limits are limits_config lines ("name: value") over the ones Start
// writes, which let the fixtures' old dates in and lift the rates a test
// loads at.
func Start(t testing.TB, limits ...string) *Loki {
	t.Helper()
	bin := binary(t)
	dir := t.TempDir()
	httpAddr, grpcAddr := freeAddr(t), freeAddr(t)
	_, httpPort, _ := net.SplitHostPort(httpAddr)
	_, grpcPort, _ := net.SplitHostPort(grpcAddr)
	lim := map[string]string{
		// The fixtures are dated weeks before now: Loki rejects lines
		// older than a week.
		"reject_old_samples":          "false",
		"max_query_length":            "0",
		"allow_structured_metadata":   "true",
		"ingestion_rate_mb":           "256",
		"ingestion_burst_size_mb":     "512",
		"per_stream_rate_limit":       "256MB",
		"per_stream_rate_limit_burst": "512MB",
		"max_query_series":            "100000",
		// Unsplit: a window of weeks would be some 500 queries of an
		// hour each, every one asking the ingesters (minutes on 2 cores).
		"split_queries_by_interval":                "0",
		"split_instant_metric_queries_by_interval": "0",
		"max_entries_limit_per_query":              "5000",
		"max_line_size":                            "0",
		"max_global_streams_per_user":              "0",
		"max_streams_per_user":                     "0",
		"unordered_writes":                         "true",
		"increment_duplicate_timestamp":            "false",
	}
	for _, l := range limits {
		k, v, _ := strings.Cut(l, ":")
		lim[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	var lb strings.Builder
	for k, v := range lim {
		fmt.Fprintf(&lb, "  %s: %s\n", k, v)
	}
	cfg := fmt.Sprintf(`auth_enabled: true
server:
  http_listen_address: 127.0.0.1
  http_listen_port: %s
  grpc_listen_address: 127.0.0.1
  grpc_listen_port: %s
  log_level: error
  grpc_server_max_recv_msg_size: 67108864
  grpc_server_max_send_msg_size: 67108864
common:
  instance_addr: 127.0.0.1
  path_prefix: %[3]s
  storage:
    filesystem:
      chunks_directory: %[3]s/chunks
      rules_directory: %[3]s/rules
  replication_factor: 1
  ring:
    kvstore:
      store: inmemory
schema_config:
  configs:
    - from: 2020-10-24
      store: tsdb
      object_store: filesystem
      schema: v13
      index:
        prefix: index_
        period: 24h
ingester:
  lifecycler:
    min_ready_duration: 0s
    final_sleep: 0s
  query_store_max_look_back_period: -1
query_range:
  results_cache:
    cache:
      embedded_cache:
        enabled: false
  cache_results: false
frontend:
  encoding: json
analytics:
  reporting_enabled: false
pattern_ingester:
  enabled: false
limits_config:
%s`, httpPort, grpcPort, dir, lb.String())
	cfgPath := filepath.Join(dir, "loki.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-config.file="+cfgPath, "-target=all")
	logf, _ := os.Create(filepath.Join(dir, "loki.log"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("start loki: %v", err)
	}
	l := &Loki{Addr: httpAddr, cmd: cmd}
	t.Cleanup(func() { l.Resume(); l.Stop(); logf.Close() })
	deadline := time.Now().Add(120 * time.Second)
	for {
		resp, err := http.Get("http://" + httpAddr + "/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return l
			}
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logf.Name())
			t.Fatalf("loki on %s was not ready: %v\n%s", httpAddr, err, b)
		}
		if cmd.ProcessState != nil {
			b, _ := os.ReadFile(logf.Name())
			t.Fatalf("loki exited:\n%s", b)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return fmt.Sprintf("127.0.0.1:%d", l.Addr().(*net.TCPAddr).Port)
}
