package appharness

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// needTool skips a test whose tool is missing, except under CI, where
// .ci/appharness.sh installs it and a skip would hide a broken install.
func needTool(t *testing.T, what, install string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is missing; .ci/appharness.sh installs it (%s) and CI must not skip this test", what, install)
	}
	t.Skipf("%s is missing (%s); skipping", what, install)
}

// nodeBackend runs testdata/node/server.js: pino with pino-http, with
// pino-http's default request ids or (mode "header") X-Request-Id.
func nodeBackend(name, mode string) func(t *testing.T, log, ledger string) (string, func()) {
	return func(t *testing.T, log, ledger string) (string, func()) {
		node, err := exec.LookPath("node")
		if err != nil {
			needTool(t, "node", "apt-get install nodejs npm")
		}
		if _, err := os.Stat("testdata/node/node_modules/pino-http/package.json"); err != nil {
			needTool(t, "pino-http", "npm ci --prefix internal/appharness/testdata/node")
		}
		args := []string{"testdata/node/server.js", log, ledger, name}
		if mode != "" {
			args = append(args, mode)
		}
		return startProcess(t, exec.Command(node, args...))
	}
}

// structlogBackend runs testdata/python/server.py with Debian's
// python3-structlog.
func structlogBackend(t *testing.T, log, ledger string) (string, func()) {
	py := ""
	// Debian's python3 first: a python3 of its own earlier in PATH (pyenv)
	// does not see Debian's packages.
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if path, err := exec.LookPath(p); err == nil && exec.Command(path, "-c", "import structlog").Run() == nil {
			py = path
			break
		}
	}
	if py == "" {
		needTool(t, "python3 with structlog", "apt-get install python3-structlog")
	}
	return startProcess(t, exec.Command(py, "testdata/python/server.py", log, ledger))
}

// startProcess starts a backend that prints "listening PORT" when ready.
func startProcess(t *testing.T, cmd *exec.Cmd) (string, func()) {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if port, ok := strings.CutPrefix(sc.Text(), "listening "); ok {
				ready <- port
				return
			}
		}
		close(ready)
	}()
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}
	select {
	case port, ok := <-ready:
		if !ok {
			stop()
			t.Fatalf("%s exited before listening: %s", filepath.Base(cmd.Path), stderr.String())
		}
		return "http://127.0.0.1:" + port, stop
	case <-time.After(20 * time.Second):
		stop()
		t.Fatalf("%s did not start: %s", filepath.Base(cmd.Path), stderr.String())
	}
	return "", nil
}

var extBackends = []backend{
	{library: "pino-http", format: "pino-http", abortLogged: true, tool: "node", start: nodeBackend("pino-http", "")},
	// The same service again: a second process (another pod, or the same
	// after a restart), whose counter starts at 1 again.
	{library: "pino-http-restart", format: "pino-http", abortLogged: true, tool: "node", start: nodeBackend("pino-http-restart", "")},
	{library: "pino-http-header", format: "pino-http", abortLogged: true, tool: "node", start: nodeBackend("pino-http-header", "header")},
	{library: "structlog", format: "structlog", tool: "python3", start: structlogBackend},
}
