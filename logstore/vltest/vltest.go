// Package vltest starts VictoriaLogs for tests, on 127.0.0.1 with free
// ports: a single node, or a cluster of two storage nodes behind an insert
// and a select node. The binary is the one .ci/logstore.sh builds; without
// it the tests skip, except under CI=true where they fail.
package vltest

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Version is the VictoriaLogs release the tests run against.
const Version = "v1.52.1"

// Binary finds victoria-logs: $IDEM_VICTORIALOGS, the CI cache, or PATH.
func Binary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("IDEM_VICTORIALOGS"); p != "" {
		return p
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	p := filepath.Join(cache, "idem-ci", "victorialogs-"+Version, "victoria-logs")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	if p, err := exec.LookPath("victoria-logs"); err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("victoria-logs not found: run .ci/logstore.sh")
	}
	t.Skip("victoria-logs not found (bash .ci/logstore.sh builds it)")
	return ""
}

// Node is one running victoria-logs process.
type Node struct {
	Addr string // 127.0.0.1:PORT
	cmd  *exec.Cmd
}

// URL is the node's address as idem takes it.
func (n *Node) URL() string { return "victorialogs://" + n.Addr }

// Stop kills the node (a storage node that went away).
func (n *Node) Stop() { _ = n.cmd.Process.Kill(); _, _ = n.cmd.Process.Wait() }

// Pause freezes the node (SIGSTOP: a storage node that hangs).
func (n *Node) Pause() { _ = n.cmd.Process.Signal(syscall.SIGSTOP) }

// Resume undoes Pause.
func (n *Node) Resume() { _ = n.cmd.Process.Signal(syscall.SIGCONT) }

// Start runs victoria-logs with args on a free port and waits until it
// answers; it is stopped when the test ends.
func Start(t testing.TB, args ...string) *Node {
	t.Helper()
	bin := Binary(t)
	addr := freeAddr(t)
	// A query may take longer than the default 30 s on a loaded machine
	// with millions of lines; the tests bound it with idem's --timeout.
	all := append([]string{"-httpListenAddr=" + addr, "-loggerLevel=ERROR", "-search.maxQueryDuration=10m"}, args...)
	cmd := exec.Command(bin, all...)
	logf, _ := os.Create(filepath.Join(t.TempDir(), "victoria-logs.log"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("start victoria-logs: %v", err)
	}
	n := &Node{Addr: addr, cmd: cmd}
	t.Cleanup(func() { n.Resume(); n.Stop(); logf.Close() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return n
			}
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logf.Name())
			t.Fatalf("victoria-logs on %s did not start: %v\n%s", addr, err, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Retention lets the fixtures' dates in (they are in 2026-11).
var Retention = []string{"-retentionPeriod=100y", "-futureRetention=10y"}

// Single starts a single node.
func Single(t testing.TB, extra ...string) *Node {
	return Start(t, append(append([]string{"-storageDataPath=" + t.TempDir()}, Retention...), extra...)...)
}

// Cluster is two storage nodes behind an insert and a select node.
type Cluster struct {
	Storage        [2]*Node
	Insert, Select *Node
}

// NewCluster starts a cluster; selectArgs go to the select node.
func NewCluster(t testing.TB, selectArgs ...string) *Cluster {
	c := &Cluster{}
	for i := range c.Storage {
		c.Storage[i] = Single(t)
	}
	nodes := "-storageNode=" + c.Storage[0].Addr + "," + c.Storage[1].Addr
	c.Insert = Start(t, nodes, "-select.disable")
	c.Select = Start(t, append([]string{nodes, "-insert.disable"}, selectArgs...)...)
	return c
}

func freeAddr(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return fmt.Sprintf("127.0.0.1:%d", l.Addr().(*net.TCPAddr).Port)
}
