//go:build unix

package trace_test

import "syscall"

// cpuNanos is the CPU time (user and system) the process has used so far.
func cpuNanos() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
