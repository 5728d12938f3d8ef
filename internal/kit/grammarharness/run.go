package grammarharness

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/idem-cli/idem/formats"
	"github.com/idem-cli/idem/internal/kit/capture"
)

// recordName is the record a capture keeps beside its logs.
const recordName = "grammar.json"

// run is one capture: the logs one proxy wrote of the harness's traffic,
// how idem is to read each, and what was sent.
type run struct {
	Software string `json:"software"`
	Logs     []log  `json:"logs"`
	// BackendLog is the backend's log of the same traffic, when the proxy
	// had one behind it.
	BackendLog string         `json:"backend_log,omitempty"`
	Sent       []capture.Sent `json:"sent"`
}

// log is one log file of a run.
type log struct {
	File    string `json:"file"`
	Capture string `json:"capture"` // names it in test output and the gaps
	// Format is the format idem must read it as ("apache log_format").
	Format string `json:"format"`
	// Config is the --config file (in the run's folder) whose source
	// reads it, "" when idem needs none.
	Config string `json:"config,omitempty"`
	// Proxy is the software that wrote it, for what its statuses mean.
	Proxy string `json:"proxy"`
	// SecondsOnly says its start time is written to the second.
	SecondsOnly bool `json:"seconds_only,omitempty"`
	// NoAbort says the format writes nothing that tells a client that went
	// away from one that got its answer.
	NoAbort bool `json:"no_abort,omitempty"`
	// Undelivered says the format tells a request the proxy delivered to
	// no server (squid's HIER_NONE): one that never reached the backend
	// must then be read as not delivered.
	Undelivered bool `json:"undelivered,omitempty"`
	// Twin, for a format that logs no request id, is the log the same
	// proxy wrote with the ids: the proxy writes one line to each per
	// request, in the same order, so line n of this log is the request
	// the twin's line n names.
	Twin string `json:"twin,omitempty"`
}

// idemConfig is a --config file whose one source reads every input with
// f's definition as its log_format, and the HAProxy captures where f uses
// them.
func idemConfig(f capture.LogFormat, captures ...string) string {
	src := map[string]any{"path": "*" + f.Name + "*", "tier": "proxy", "log_format": f.Def}
	if f.Syntax != "" {
		src["log_format_syntax"] = f.Syntax
	}
	if len(captures) > 0 {
		src["captures"] = captures
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(map[string]any{"sources": []any{src}}); err != nil {
		panic(err)
	}
	return b.String()
}

// LoadConfig reads a run's --config file.
func loadConfig(path string) (*formats.Config, error) { return formats.LoadConfig(path) }

// loadRun reads dir's record.
func loadRun(dir string) (run, error) {
	var r run
	b, err := os.ReadFile(filepath.Join(dir, recordName))
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("grammarharness: %s: %w", filepath.Join(dir, recordName), err)
	}
	return r, nil
}
