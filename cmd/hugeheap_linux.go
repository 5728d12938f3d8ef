package cmd

import (
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"time"
	"unsafe"

	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/internal/pages"
)

// The heap that reading fills is asked onto huge pages. On a machine
// whose transparent huge pages are given on request (most distributions'
// default) the Go heap gets 4 KB pages, each faulted in on its first
// write: on nginx-1m that was 28,000 of the run's 38,000 faults, half a
// CPU-second of system time on a virtual machine, and the TLB misses of
// a heap read at random. The runtime asks for none, and maps its heap in
// 4 MB pieces as it grows, each a new mapping that a request made before
// would not reach. So hugeHeapFor reserves the room up front: one large
// object, never touched, whose mapping is advised and then freed to the
// heap, where the reading's allocations land first (the page allocator
// takes the lowest free addresses). Once reading is over, readingDone
// withdraws the advice: the huge pages already there stay, and what the
// grouping adds in fresh memory takes ordinary pages, which the
// scavenger can return one by one, so the peak stays what it was (huge
// pages there too raised it by 3 to 5 MB, over the 300 MB line on
// nginx-1m). Once the store is released the peak is behind, and
// hugeAgain advises the room again for the rules and the report. Only
// big inputs are worth it (hugeFrom).

// hugeRoom is how much of the heap is advised: more than reading a
// million intents holds (about 110 MB), a mapping of nothing until used.
const hugeRoom = 256 << 20

// hugeFrom is the inputs' size from which the room is made: it costs a
// small run about 10 ms (the runtime's bookkeeping for a quarter
// gigabyte) and 2 MB, where nginx-100k's 83 MB take 0.2 s.
const hugeFrom = 64 << 20

// heapRoom is the advised range; empty when none.
var heapRoom pages.Range

// hugeHeapFor advises the room when reading the input files yields
// hugeFrom bytes or more (size: inputsSize.expanded, see sizeOf, which
// counts a compressed file for what it says it expands to); it does
// nothing where the user tuned the collector's memory (GOMEMLIMIT), and a
// refusal changes nothing but speed.
func hugeHeapFor(size int64) {
	if os.Getenv("GOMEMLIMIT") != "" || !heapRoom.Empty() || size < hugeFrom {
		return
	}
	// No collection while the room is live: one would take it for live
	// data, and the collector's policy (gc.go) with it.
	percentMu.Lock()
	high := highLive.Load()
	gc := debug.SetGCPercent(-1)
	r := makeRoom()
	if r.Advise(true) {
		heapRoom = r
	}
	debug.SetGCPercent(gc)
	percentMu.Unlock()
	runtime.GC() // the room is free heap again
	// A collection another goroutine's allocation had begun just as the
	// collector was turned off still marks, and counts what is made
	// meanwhile as live: the room. What it told the policy is forgotten
	// here, after a collection that found the room free; the policy's
	// later cleanups read that one.
	if gcPolicyOn.Load() {
		percentMu.Lock()
		follow(liveBytes(), high)
		percentMu.Unlock()
	}
}

// hugeHeapOnceRead makes the room once reading has passed hugeFrom bytes
// of inputs whose size nobody could tell beforehand (standard input): the
// heap reading has filled by then stays on ordinary pages, what it adds
// from there lands in the room. It returns the function that stops
// watching, which must run before readingDone (it waits for the watcher,
// so that the room is made before the advice is withdrawn, or not at all).
func hugeHeapOnceRead(p *ingest.Progress) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(readWatch)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if p.Bytes.Load() >= hugeFrom {
					hugeHeapFor(hugeFrom)
					return
				}
			}
		}
	}()
	return sync.OnceFunc(func() {
		close(done)
		<-finished
	})
}

// readWatch is how often hugeHeapOnceRead looks at what was read: at a
// gigabyte a second, 10 MB past the mark.
const readWatch = 10 * time.Millisecond

// makeRoom makes the room and returns the run of huge pages inside it,
// as numbers: once it returns, the room is free heap that no Go pointer
// names, not even one left in its frame.
//
//go:noinline
func makeRoom() pages.Range {
	room := make([]byte, hugeRoom) // fresh from the system: not zeroed, not touched
	return pages.Middle(uintptr(unsafe.Pointer(unsafe.SliceData(room))), hugeRoom)
}

// readingDone withdraws the advice from the room (passed as
// load.Options.ReadDone). The huge pages reading faulted in stay, and so
// does what the heap keeps in them; a page touched from now on is an
// ordinary one.
func readingDone() {
	heapRoom.Advise(false)
}

// hugeAgain advises the room again once the store is released (see
// storeReleased): the peak is behind, and the rules and the report
// allocate in the room's fresh pages.
func hugeAgain() {
	heapRoom.Advise(true)
	heapRoom = pages.Range{}
}
