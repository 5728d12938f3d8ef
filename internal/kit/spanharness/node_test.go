package spanharness

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/idem-cli/idem/internal/kit/capture"
)

// nodeDir holds the Node service and client (testdata/node: tracing.js,
// server.js, client.js) and their npm packages, installed by .ci/spans.sh
// from the committed lock file.
const nodeDir = "testdata/node"

// nodeModules are the packages the Node programs load.
var nodeModules = []string{"@opentelemetry/sdk-trace-node", "@opentelemetry/instrumentation-http", "@opentelemetry/exporter-trace-otlp-http",
	"@opentelemetry/resources", "@opentelemetry/instrumentation", "@opentelemetry/api"}

// TestNode captures the Node client and service's spans.
func TestNode(t *testing.T) {
	run{library: "node-http", drive: driveNode}.capture(t, "spans-node-http")
}

// driveNode runs the Node service, then the Node client through the
// steps, both exporting to c; it stops the service (which flushes its
// spans) and returns what the client says it sent.
func driveNode(t *testing.T, c *collector, dir string, steps []step) ([]capture.Sent, []string) {
	t.Helper()
	node := capture.Tool(t, "apt-get install nodejs", "node")
	capture.NodeModules(t, nodeDir, nodeModules...)
	abs, err := filepath.Abs(nodeDir)
	if err != nil {
		t.Fatal(err)
	}
	ledger := filepath.Join(dir, "ledger.jsonl")
	env := []string{"OTLP_URL=" + c.URL + "/v1/traces", "LEDGER=" + ledger}
	srv := capture.Start(t, capture.Cmd{Name: "node orders-api", Bin: node, Args: []string{filepath.Join(abs, "server.js")}, Env: env,
		Announce: "listening "})
	b, err := json.Marshal(steps)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, filepath.Join(abs, "client.js"))
	cmd.Env = append(append(os.Environ(), env...), "STEPS="+string(b), "BASE=http://"+srv.Addr)
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("node client: %v\n%s", err, stderr)
	}
	srv.Stop()
	var sent []capture.Sent
	if err := json.Unmarshal(out, &sent); err != nil {
		t.Fatalf("node client's record: %v\n%s", err, out)
	}
	return sent, nodeSoftware(t, node, abs)
}

// nodeSoftware names node and the OpenTelemetry packages installed.
func nodeSoftware(t *testing.T, node, dir string) []string {
	t.Helper()
	v, err := exec.Command(node, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	out := []string{"node " + string(trimNL(v))}
	for _, m := range nodeModules {
		var pkg struct {
			Version string `json:"version"`
		}
		capture.ReadJSON(t, filepath.Join(dir, "node_modules", m, "package.json"), &pkg)
		out = append(out, m+" "+pkg.Version)
	}
	return out
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
