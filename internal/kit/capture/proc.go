package capture

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// errNotReady is a process that did not start listening in time.
var errNotReady = errors.New("capture: process did not start listening")

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

// Cmd is a process for Start to run.
type Cmd struct {
	Name string // for messages
	Bin  string
	Args []string
	Env  []string // added to the test's environment
	// Stdout is where its standard output goes (a log written there, as
	// HAProxy's); nil keeps it with its standard error, for messages.
	Stdout *os.File
	// Listen are the addresses it accepts connections on once it is ready.
	Listen []string
	// Announce, instead, is the start of the line it prints on standard
	// output when it is ready, followed by its port ("listening 4242").
	Announce string
	// Graceful is the signal that stops it cleanly (SIGTERM unless set;
	// nginx's is SIGQUIT).
	Graceful syscall.Signal
}

// Proc is a process the kit started and stops when the test ends.
type Proc struct {
	Name string
	// Addr is where it listens: its first Listen address, or the loopback
	// port it announced.
	Addr string

	cmd      *exec.Cmd
	graceful syscall.Signal
	out      *lockedBuffer
	done     chan struct{}
	stopMu   sync.Mutex
}

// Start runs c and returns once it is ready; it is stopped (SIGTERM, then
// SIGKILL after 5 seconds) when the test ends.
func Start(t testing.TB, c Cmd) *Proc {
	t.Helper()
	p := &Proc{Name: c.Name, graceful: c.Graceful, out: &lockedBuffer{}, done: make(chan struct{})}
	if p.graceful == 0 {
		p.graceful = syscall.SIGTERM
	}
	p.cmd = exec.Command(c.Bin, c.Args...)
	p.cmd.Env = append(os.Environ(), c.Env...)
	p.cmd.Stderr = p.out
	var announced <-chan string
	var pw *os.File
	switch {
	case c.Announce != "":
		// A pipe of its own rather than StdoutPipe: it is read until the
		// process closes it, whenever Wait returns.
		pr, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		pw, p.cmd.Stdout = w, w
		announced = announce(pr, c.Announce, p.out)
	case c.Stdout != nil:
		p.cmd.Stdout = c.Stdout
	default:
		p.cmd.Stdout = p.out
	}
	// Its own process group, so that stopping it never signals the test.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err := p.cmd.Start()
	if pw != nil {
		pw.Close() // the process holds its end; the reader ends when it does
	}
	if err != nil {
		t.Fatalf("start %s: %v", c.Name, err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { p.signal(syscall.SIGTERM) })
	if announced != nil {
		select {
		case port, ok := <-announced:
			if !ok {
				p.signal(syscall.SIGKILL)
				t.Fatalf("%s exited before listening: %s", c.Name, p.out.String())
			}
			p.Addr = "127.0.0.1:" + port
		case <-time.After(20 * time.Second):
			p.signal(syscall.SIGKILL)
			t.Fatalf("%s did not start: %s", c.Name, p.out.String())
		}
	}
	for _, a := range c.Listen {
		if err := waitListening(a, 10*time.Second, p.done); err != nil {
			p.signal(syscall.SIGKILL)
			t.Fatalf("%s on %s: %v\n%s", c.Name, a, err, p.out.String())
		}
	}
	if len(c.Listen) > 0 {
		p.Addr = c.Listen[0]
	}
	return p
}

// announce reads r until a line starts with prefix and sends what follows
// it; it keeps the rest of the output for messages (and so that the
// process never blocks on a full pipe).
func announce(r io.ReadCloser, prefix string, rest io.Writer) <-chan string {
	ready := make(chan string, 1)
	go func() {
		defer r.Close()
		sc := bufio.NewScanner(r)
		sent := false
		for sc.Scan() {
			if port, ok := strings.CutPrefix(sc.Text(), prefix); ok && !sent {
				ready <- strings.TrimSpace(port)
				sent = true
				continue
			}
			fmt.Fprintln(rest, sc.Text())
		}
		if !sent {
			close(ready)
		}
	}()
	return ready
}

// Stop stops the process gracefully and waits for it, killing it after 5
// seconds. Stopping twice is harmless.
func (p *Proc) Stop() { p.signal(p.graceful) }

func (p *Proc) signal(sig syscall.Signal) {
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

// Output is what the process wrote to standard error (and to standard
// output when that goes nowhere else): for error messages.
func (p *Proc) Output() string { return p.out.String() }

func waitListening(addr string, timeout time.Duration, exited <-chan struct{}) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return fmt.Errorf("%w: it exited", errNotReady)
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("%w within %s", errNotReady, timeout)
}

// lockedBuffer keeps what a process writes, for messages.
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
