package cmd

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// idem's big live data is the compact correlation store: it grows steadily
// while the input is read, holds no pointers, and is released before the
// rules run. No fixed garbage-collector goal fits that heap. A percentage
// small enough to keep the peak near the live data (10%) starts a
// collection after every megabyte or two while the heap is small, and its
// write barriers are then on for much of the read; the default 100% lets
// the heap reach twice the store before collecting. A memory limit that
// follows the heap makes the runtime return and fault in pages all along
// (13 s of system time on 5.6 GB). So after each collection the
// percentage is set to leave a fixed share of room above the live heap:
// 100% while it is small, an eighth of it once it is big. Once the store
// is released the heap shrinks to a third of what reading held, and the
// rules then allocate a few hundred megabytes of findings: a goal of an
// eighth above that small heap collected half a dozen times, marking the
// same intents each time. Well below the largest live heap found so far
// the heap may grow to three quarters of it (up to five times itself)
// before a collection: the rules and the report then run with one or
// none, and the peak stays the reading's (a goal of the largest heap
// itself sometimes went past it, to 312 MB).

// gcPolicyOn is set while trackHeap's goal is in force.
var gcPolicyOn atomic.Bool

// percentMu is held by whoever sets the collector's percentage or the
// largest live heap: the policy after each collection, and hugeHeapFor
// while its room is live, with the collector off, and once it is freed.
// The policy's cleanups run on a goroutine of their own; one that turned
// the collector back on in that window let the room's own allocation
// start a collection that found it live, and the goal then followed it
// (TestHugeHeapRoomNeverCountedLive).
var percentMu sync.Mutex

// minHeadroom is the least room left above the live heap after a
// collection; a larger heap gets an eighth of itself. The store's records
// are outside the heap (the correlator's regions), so the heap it applies
// to is the rest: at 32 MB the peak from zstd input rose from 299 to
// 314 MB once they moved out, at 16 MB it is 297 MB.
const minHeadroom = 16 << 20

// headroom is how far the heap may grow past live bytes before the next
// collection.
func headroom(live uint64) uint64 {
	return max(minHeadroom, live/8)
}

// gcPercent is the collector's percentage that leaves headroom(live)
// above live bytes: 100 at most, 12 at least.
func gcPercent(live uint64) int {
	if live == 0 {
		return 100
	}
	return int(min(100, headroom(live)*100/live))
}

// gcPercentBelow is gcPercent for a heap that has held high live bytes
// before: the heap may grow up to three quarters of high, and to five
// times itself at most (the rest is room for what is allocated while the
// collector marks, so the peak stays the reading's).
func gcPercentBelow(live, high uint64) int {
	p := gcPercent(live)
	if limit := high / 4 * 3; live > 0 && limit > live+live*uint64(p)/100 {
		p = int(min(400, (limit-live)*100/live))
	}
	return p
}

// highLive is the largest live heap a collection has found.
var highLive atomic.Uint64

// trackHeap starts the policy, unless the user tuned the collector with
// GOGC or GOMEMLIMIT.
func trackHeap() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" || !gcPolicyOn.CompareAndSwap(false, true) {
		return
	}
	afterEachGC(func() bool {
		if !gcPolicyOn.Load() {
			return false
		}
		percentMu.Lock()
		defer percentMu.Unlock()
		follow(liveBytes(), highLive.Load())
		return true
	})
}

// follow sets the goal for live bytes found live by the last collection,
// below high, the largest live heap to count. Called with percentMu held.
func follow(live, high uint64) {
	high = max(high, live)
	highLive.Store(high)
	debug.SetGCPercent(gcPercentBelow(live, high))
}

// storeReleased is called once the compact correlation store is freed
// (readInputs hands it to the correlator): collecting now returns it at
// once, and the goal then follows the much smaller live data of the rules.
// The store's records were outside the heap (the correlator's regions),
// so the largest live heap alone understates what the process held: the
// peak resident memory so far stands for it, where the system tells it,
// and the rules may then grow the heap to three quarters of that.
func storeReleased() {
	if gcPolicyOn.Load() {
		percentMu.Lock()
		if peak := peakResident(); peak > highLive.Load() {
			highLive.Store(peak)
		}
		percentMu.Unlock()
		runtime.GC()
	}
	hugeAgain() // the peak is behind (see hugeheap_linux.go)
}

// peakResident is the process's peak resident memory so far (Linux's
// VmHWM), or 0 where it cannot be read.
func peakResident() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	return vmHWM(string(b))
}

// vmHWM reads the VmHWM line of a /proc/PID/status text, in bytes.
func vmHWM(status string) uint64 {
	for line := range strings.Lines(status) {
		rest, ok := strings.CutPrefix(line, "VmHWM:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0
		}
		n, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil || n > 1<<40 {
			return 0
		}
		return n << 10
	}
	return 0
}

// liveBytes is the heap the last collection found live.
func liveBytes() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// sentinel is garbage made on purpose: its cleanup runs after the
// collection that found it unreachable. (It holds a pointer so that the
// tiny allocator does not pack it with other objects.)
type sentinel struct{ _ *int }

// afterEachGC calls fn after every collection for as long as fn returns true.
func afterEachGC(fn func() bool) {
	s := &sentinel{}
	runtime.AddCleanup(s, func(fn func() bool) {
		if fn() {
			afterEachGC(fn)
		}
	}, fn)
}
