// Package harness runs the real software idem reads the logs of (nginx,
// HAProxy, Caddy, Chromium) on 127.0.0.1, in front of a small Go backend,
// drives real traffic through it and hands the logs it wrote to the tests.
// What a test expects comes from what the harness did (which requests it
// sent, with which ids and keys, and how each one ended), never from
// idem's reading of the logs.
//
// Every process gets its own temporary directory for its config, pid and
// log files and listens on a free loopback port; nothing is installed or
// started outside the test.
package harness

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// ErrNotReady is a process that did not start listening in time.
var ErrNotReady = errors.New("harness: process did not start listening")

// Tool finds an installed program by its names or paths. When none is
// found the test skips, except under CI (CI=true), where a missing tool is a
// failure: CI installs them (.ci/harness.sh) and must not skip silently.
func Tool(t testing.TB, install string, names ...string) string {
	t.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is not installed; .ci/harness.sh installs it (%s) and CI must not skip this test", names[0], install)
	}
	t.Skipf("%s is not installed (%s); skipping", names[0], install)
	return ""
}

// FreePort returns a loopback port nothing listens on right now.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Addr is a loopback host:port.
func Addr(port int) string { return fmt.Sprintf("127.0.0.1:%d", port) }

// NewID returns a random UUID (version 4), as clients and proxies make
// request ids and Idempotency-Keys.
func NewID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// WriteFile writes a config or data file into dir and returns its path.
func WriteFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// ReadJSON decodes the JSON file at path into v, failing t when it cannot.
func ReadJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", filepath.Base(path), err)
	}
}

// Proc is a process the harness started and stops when the test ends.
type Proc struct {
	Name   string
	cmd    *exec.Cmd
	out    *lockedBuffer
	done   chan struct{}
	stopMu sync.Mutex
	waited error
}

// Start runs bin with args, its stdout going to stdout (a file, or nil to
// keep it with stderr for error messages), and waits until it listens on
// every addr. The process is stopped gracefully at the end of the test.
func Start(t testing.TB, name string, stdout *os.File, env []string, bin string, args []string, addrs ...string) *Proc {
	t.Helper()
	p := &Proc{Name: name, out: &lockedBuffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stderr = p.out
	if stdout != nil {
		p.cmd.Stdout = stdout
	} else {
		p.cmd.Stdout = p.out
	}
	// Its own process group, so that stopping it never signals the test.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() { p.waited = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { p.Stop(syscall.SIGTERM) })
	for _, a := range addrs {
		if err := waitListening(a, 10*time.Second, p.done); err != nil {
			p.Stop(syscall.SIGKILL)
			t.Fatalf("%s on %s: %v\n%s", name, a, err, p.out.String())
		}
	}
	return p
}

// Stop signals the process (SIGTERM, or SIGQUIT for nginx's graceful
// stop) and waits for it, killing it after 5 seconds. Stopping twice is
// harmless.
func (p *Proc) Stop(sig syscall.Signal) {
	p.stopMu.Lock()
	defer p.stopMu.Unlock()
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// Output is what the process wrote to stderr (and stdout when not sent to
// a file): for error messages.
func (p *Proc) Output() string { return p.out.String() }

func waitListening(addr string, timeout time.Duration, exited <-chan struct{}) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return fmt.Errorf("%w: it exited", ErrNotReady)
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("%w within %s", ErrNotReady, timeout)
}

// WaitFor waits until every needle appears in the file, for a process
// that writes its log line after the client is gone, and returns the
// file's lines.
func WaitFor(ctx context.Context, path string, needles ...string) ([]string, error) {
	for {
		lines, err := readLines(path)
		missing := ""
		for _, n := range needles {
			if LineOf(lines, n) == 0 {
				missing = n
				break
			}
		}
		if err == nil && missing == "" {
			return lines, nil
		}
		select {
		case <-ctx.Done():
			return lines, fmt.Errorf("%s: no line with %q: %w", path, missing, ctx.Err())
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// ReadLines is the file's complete lines.
func ReadLines(path string) ([]string, error) { return readLines(path) }

func readLines(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(b) > 0 && b[len(b)-1] != '\n' && len(lines) > 0 {
		lines = lines[:len(lines)-1] // still being written
	}
	return lines, sc.Err()
}

// LineOf is the 1-based number of the first line of lines containing s,
// or 0.
func LineOf(lines []string, s string) int {
	for i, l := range lines {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	return 0
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() > 1<<20 {
		return len(p), nil // enough for an error message
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Version names the software that wrote a capture: its Debian package
// and version where dpkg knows it, else the last line the program prints
// about its version (nginx prints it on stderr; Debian's chromium wrapper
// prints noise before it).
func Version(pkg, bin string, args ...string) string {
	if out, err := exec.Command("dpkg-query", "-W", "-f", "${Package} ${Version} (Debian)", pkg).Output(); err == nil && len(out) > 0 {
		return string(out)
	}
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}
