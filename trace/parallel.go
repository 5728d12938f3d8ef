package trace

import (
	"runtime"
	"sync"
)

// inParallel splits [0, n) into one range a CPU and runs fn on each at
// once, when there are at least 1024 items a CPU to share. fn must only
// read shared state, or write to what its range owns.
func inParallel(n int, fn func(lo, hi int)) { inParallelBy(n, 1024, fn) }

// inParallelBy is inParallel for items of which grain are worth a
// goroutine: 1 for items that are already runs of a thousand.
func inParallelBy(n, grain int, fn func(lo, hi int)) {
	parts := min(runtime.GOMAXPROCS(0), max(n/grain, 1))
	var wg sync.WaitGroup
	for p := 0; p < parts; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(n*p/parts, n*(p+1)/parts)
		}()
	}
	wg.Wait()
}
