//go:build !unix

package trace_test

// cpuNanos is not measured here: the benchmarks report 0 CPU.
func cpuNanos() int64 { return 0 }
