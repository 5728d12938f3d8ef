package appharness

import (
	"testing"

	"github.com/idem-cli/idem/internal/kit/capture"
)

// nodeBackend runs testdata/node/server.js: pino with pino-http, with
// pino-http's default request ids or (mode "header") X-Request-Id.
func nodeBackend(name, mode string) func(t *testing.T, log, ledger string) (string, func()) {
	return func(t *testing.T, log, ledger string) (string, func()) {
		node := capture.Tool(t, "apt-get install nodejs npm", "node")
		capture.NodeModules(t, "testdata/node", "pino-http")
		args := []string{"testdata/node/server.js", log, ledger, name}
		if mode != "" {
			args = append(args, mode)
		}
		return startProcess(t, name, node, args...)
	}
}

// structlogBackend runs testdata/python/server.py with Debian's
// python3-structlog.
func structlogBackend(t *testing.T, log, ledger string) (string, func()) {
	py := capture.Python(t, "apt-get install python3-structlog", "structlog")
	return startProcess(t, "structlog", py, "testdata/python/server.py", log, ledger)
}

// startProcess starts a backend that prints "listening PORT" when ready.
func startProcess(t *testing.T, name, bin string, args ...string) (string, func()) {
	t.Helper()
	p := capture.Start(t, capture.Cmd{Name: name, Bin: bin, Args: args, Announce: "listening "})
	return "http://" + p.Addr, p.Stop
}

var extBackends = []backend{
	{library: "pino-http", format: "pino-http", abortLogged: true, tool: "node", start: nodeBackend("pino-http", "")},
	// The same service again: a second process (another pod, or the same
	// after a restart), whose counter starts at 1 again.
	{library: "pino-http-restart", format: "pino-http", abortLogged: true, tool: "node", start: nodeBackend("pino-http-restart", "")},
	{library: "pino-http-header", format: "pino-http", abortLogged: true, tool: "node", start: nodeBackend("pino-http-header", "header")},
	{library: "structlog", format: "structlog", tool: "python3", start: structlogBackend},
}
