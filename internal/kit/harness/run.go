package harness

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"

	"github.com/idem-cli/idem/internal/kit/capture"
)

// run is one capture: what the harness sent through one piece of real
// software and the logs that software and the backend wrote. It is saved
// beside the logs (run.json) so that a recorded capture is checked again
// without the software installed.
type run struct {
	Software string `json:"software"` // "nginx 1.22.1", as its -v says
	// Logs are the proxy's or browser's logs of this traffic (nginx writes
	// three side by side).
	Logs []runLog `json:"logs"`
	// Also are other logs of the same traffic (the proxy in front of a
	// browser), read with each log for the joins.
	Also []string `json:"also,omitempty"`
	// JoinBy, when "traceparent", says the requests carried a W3C
	// traceparent and no X-Request-Id: only trace ids can join the tiers.
	JoinBy string `json:"join_by,omitempty"`
	// Chain says the logs are of proxies in a chain, each in front of the
	// next: every request crossed all of them.
	Chain bool `json:"chain,omitempty"`
	// BackendLog is the backend's log/slog JSON file of the same traffic.
	BackendLog string `json:"backend_log,omitempty"`
	// Rules are the diagnoses checked on this traffic: the tests derive
	// from Sent where each must fire and where it must not.
	Rules []string `json:"rules,omitempty"`
	// Secrets are the credential values the traffic carried (made for the
	// run, valid nowhere), which no output of idem may show.
	Secrets []string       `json:"secrets,omitempty"`
	Sent    []capture.Sent `json:"sent"`
}

// files are the run's logs, the other logs of the same traffic and the
// backend's log, relative to its directory: what a person would give idem.
func (r run) files() []string {
	var out []string
	for _, l := range r.Logs {
		out = append(out, l.File)
	}
	out = append(out, r.Also...)
	if r.BackendLog != "" {
		out = append(out, r.BackendLog)
	}
	return out
}

// runLog is one log file of a run.
type runLog struct {
	File string `json:"file"` // relative to the run's directory
	// Capture names this log in test output and in the known gaps.
	Capture string `json:"capture"`
	// Format is the format idem should recognise ("" when it has none yet).
	Format string `json:"format,omitempty"`
	// Proxy is "nginx", "haproxy" or "caddy": what its statuses mean.
	Proxy string `json:"proxy,omitempty"`
	// NoKey says the format does not write the Idempotency-Key
	// (ingress-nginx's default): only the backend's lines carry it.
	NoKey bool `json:"no_key,omitempty"`
}

// Folder is the run as a capture folder: run.json and the logs, each
// copied from where the software wrote it (logs: name in the folder →
// path).
func (r run) folder(logs map[string]string) capture.Folder {
	return capture.Folder{Logs: logs, RecordName: "run.json", Record: r}
}

// loadRun reads dir/run.json.
func loadRun(dir string) (run, error) {
	var r run
	b, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("harness: %s: %w", filepath.Join(dir, "run.json"), err)
	}
	for i, s := range r.Sent {
		// An older run.json leaves a step's default payload out.
		if s.Body == "" && s.HTTPMethod() != http.MethodGet {
			r.Sent[i].Body = defaultPayload(s.Step)
		}
	}
	return r, nil
}
