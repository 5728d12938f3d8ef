//go:build linux || darwin || freebsd

package cmd

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// The tests here run the built idem in a pseudo-terminal, as a person at a
// terminal would: what is decided from the terminal (colour, width, the
// standard-input hint) cannot be seen through pipes.

var (
	ptyBinOnce sync.Once
	ptyBin     string
	ptyBinErr  error
)

func idemBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	ptyBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "idem-pty-")
		if err != nil {
			ptyBinErr = err
			return
		}
		ptyBin = filepath.Join(dir, "idem")
		root, _ := filepath.Abs("..")
		build := exec.Command("go", "build", "-o", ptyBin, "./cmd/idem")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			ptyBinErr = errors.New(string(out))
		}
	})
	if ptyBinErr != nil {
		t.Fatalf("build: %v", ptyBinErr)
	}
	return ptyBin
}

// onTerminal runs idem with args on a terminal of cols columns, writes
// input to it, and returns everything the terminal showed.
func onTerminal(t *testing.T, cols int, input string, args ...string) string {
	t.Helper()
	cmd := exec.Command(idemBinary(t), args...)
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "TERM=xterm-256color", "NO_COLOR=", "CLICOLOR=", "COLUMNS=")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: uint16(cols)})
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must run this test: no pseudo-terminal: %v", err)
		}
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer tty.Close()
	var out bytes.Buffer
	done := make(chan struct{})
	go func() {
		io.Copy(&out, tty) // ends with EIO when the child exits
		close(done)
	}()
	if input != "" {
		time.Sleep(200 * time.Millisecond) // let idem start reading
		io.WriteString(tty, input)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case <-waited:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("idem %s did not finish; the terminal showed:\n%s", strings.Join(args, " "), out.String())
	}
	// Read what the child wrote before closing: the copy ends with EIO
	// once the terminal is drained (closing first could lose the output).
	select {
	case <-done:
	case <-time.After(10 * time.Second):
	}
	tty.Close()
	<-done
	// The terminal turns \n into \r\n.
	return strings.ReplaceAll(out.String(), "\r\n", "\n")
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

func TestOnATerminal(t *testing.T) {
	t.Run("rules line up in colour", func(t *testing.T) {
		out := onTerminal(t, 100, "", "rules")
		if !strings.Contains(out, "\x1b[") {
			t.Errorf("no colour on a terminal:\n%q", out)
		}
		col := -1
		for _, line := range strings.Split(strings.TrimSpace(ansi.ReplaceAllString(out, "")), "\n") {
			i := regexp.MustCompile(` (critical|warning|info) `).FindStringIndex(line)
			if i == nil {
				t.Fatalf("no severity in %q", line)
			}
			if col >= 0 && i[0] != col {
				t.Errorf("severity at column %d, not %d, in %q", i[0], col, line)
			}
			col = i[0]
		}
	})
	t.Run("the report fits the terminal", func(t *testing.T) {
		for _, cols := range []int{60, 80, 120} {
			out := onTerminal(t, cols, "", "diagnose", "fixtures/scenarios/retry-new-key/client.har",
				"fixtures/scenarios/retry-new-key/nginx.jsonl", "fixtures/scenarios/retry-new-key/app.jsonl")
			if !strings.Contains(out, "\x1b[") {
				t.Errorf("%d columns: no colour on a terminal", cols)
			}
			plain := ansi.ReplaceAllString(out, "")
			if !strings.Contains(plain, "findings by rule") || !strings.Contains(plain, "retry-new-key") {
				t.Fatalf("%d columns: no report:\n%s", cols, plain)
			}
			for i, line := range strings.Split(plain, "\n")[1:] {
				if n := len([]rune(line)); n > cols && len(strings.Fields(line)) > 1 {
					t.Errorf("%d columns: line %d is %d wide: %q", cols, i+2, n, line)
				}
			}
		}
	})
	t.Run("standard input at a terminal says how to end", func(t *testing.T) {
		line := `{"time":"2026-11-30T10:00:00Z","level":"INFO","msg":"request completed","request_id":"r1","method":"POST","route":"/x","status":201,"idempotency_key":"k"}`
		out := onTerminal(t, 100, line+"\n\x04", "diagnose", "-")
		plain := ansi.ReplaceAllString(out, "")
		if strings.Contains(plain, "idem: read ") {
			t.Errorf("a progress line was drawn over the typing:\n%q", out)
		}
		hint := strings.Index(plain, "idem: reading standard input; Ctrl-D to end")
		if hint < 0 {
			t.Fatalf("no hint:\n%s", plain)
		}
		if report := strings.Index(plain, "1 intent"); report < hint {
			t.Errorf("the report does not follow the hint:\n%s", plain)
		}
	})
	t.Run("no input named at a terminal is a usage error", func(t *testing.T) {
		out := ansi.ReplaceAllString(onTerminal(t, 100, "", "diagnose"), "")
		if !strings.Contains(out, "no input files") || !strings.Contains(out, "Run 'idem diagnose --help' for usage.") {
			t.Errorf("terminal showed:\n%s", out)
		}
	})
}
