// Package benchlog finds the log the benchmarks run on: a file made by
// go run ./internal/tools/loggen, named by IDEM_BENCH_INPUT. Without it the
// benchmarks skip; CI names a small generated file so they cannot rot.
package benchlog

import (
	"os"
	"testing"
)

// Env names the benchmark log.
const Env = "IDEM_BENCH_INPUT"

// Path returns the benchmark log's path, or skips b when none is named.
func Path(b testing.TB) string {
	path := os.Getenv(Env)
	if path == "" {
		b.Skip("set " + Env + " to a log file (go run ./internal/tools/loggen -o FILE)")
	}
	return path
}
