package capture

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// Failures runs check as a test would, on a stand-in for t that keeps
// what the check reports instead of failing (Fatalf ends it, as it ends a
// test), and returns what it reported: how a harness shows that its
// checks fail on a wrong fact.
func Failures(t testing.TB, check func(testing.TB)) []string {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		check(r)
	}()
	<-done
	return r.errs
}

// recorder stands in for the test a check runs in.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Logf(string, ...any)       {}
func (r *recorder) Cleanup(func())            {}
func (r *recorder) Failed() bool              { return len(r.errs) > 0 }
func (r *recorder) Errorf(f string, a ...any) { r.add(fmt.Sprintf(f, a...)) }
func (r *recorder) Fatalf(f string, a ...any) {
	r.add(fmt.Sprintf(f, a...))
	runtime.Goexit()
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, s)
}
