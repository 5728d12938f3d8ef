// Package benchlog finds the log the benchmarks run on: a file made by
// go run ./internal/tools/loggen, named by IDEM_BENCH_INPUT. Without it the
// benchmarks skip; CI names a small generated file so they cannot rot.
package benchlog

import (
	"os"
	"testing"
)

// env names the benchmark log.
const env = "IDEM_BENCH_INPUT"

// Path returns the benchmark log's path, or skips b when none is named.
func Path(b testing.TB) string {
	path := os.Getenv(env)
	if path == "" {
		b.Skip("set " + env + " to a log file (go run ./internal/tools/loggen -o FILE)")
	}
	return path
}
