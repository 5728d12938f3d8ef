package cmd

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/internal/pages"
)

// vmaFlags returns the VmFlags of every mapping of this process that
// overlaps [lo, hi) (a neighbour advised alike, such as the correlator's
// index, is one mapping with it).
func vmaFlags(t *testing.T, lo, hi uintptr) []string {
	t.Helper()
	flags, err := pages.MappingFlags(lo, hi)
	if err != nil {
		t.Skip("no /proc/self/smaps:", err)
	}
	return flags
}

func anyHas(flags []string, flag string) bool {
	for _, f := range flags {
		if strings.Contains(" "+f+" ", " "+flag+" ") {
			return true
		}
	}
	return false
}

// TestHugeHeapForBigInputs holds hugeHeapFor and readingDone to what
// they promise: no room for small inputs, an advised room for big ones
// that the collector does not count as live, the advice withdrawn once
// reading is over and given again once the store is released.
func TestHugeHeapForBigInputs(t *testing.T) {
	if os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOMEMLIMIT is set: no room is made")
	}
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("this kernel offers no transparent huge pages")
	}
	dir := t.TempDir()
	small := filepath.Join(dir, "small.log")
	if err := os.WriteFile(small, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hugeHeapFor(sizeOf([]string{small, dir}).expanded)
	hugeHeapFor(sizeOf([]string{small, "-"}).expanded)
	if !heapRoom.Empty() {
		t.Fatalf("a 2-byte input, standard input and a folder made a room: %+v", heapRoom)
	}

	big := filepath.Join(dir, "big.log")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(hugeFrom); err != nil { // sparse: the size without the disk
		t.Fatal(err)
	}
	f.Close()
	// With the collector's policy on, as in a run: the room must not
	// count as the largest live heap.
	withHeapPolicy(t)
	// What other tests left live counts too: the room is what comes on
	// top of it.
	base := liveBefore()
	hugeHeapFor(sizeOf([]string{big}).expanded)
	t.Cleanup(func() { heapRoom = pages.Range{} })
	for range 5 { // the policy's cleanups run after each collection
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if h := highLive.Load(); h >= base+hugeRoom/2 {
		t.Errorf("largest live heap %d MB after the room: a collection counted the room as live", h>>20)
	}
	lo, hi := heapRoom.Lo, heapRoom.Hi
	if hi-lo < hugeRoom-2*pages.HugePage {
		t.Fatalf("room [%#x, %#x) for a %d-byte input: want %d bytes", lo, hi, hugeFrom, hugeRoom)
	}
	if flags := vmaFlags(t, lo, hi); !anyHas(flags, "hg") {
		t.Fatalf("no mapping in the room is advised for huge pages: %q", flags)
	}
	goal := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(goal)
	if g := goal[0].Value.Uint64(); g >= base+hugeRoom/2 {
		t.Errorf("heap goal %d MB after the room was freed: the room counted as live", g>>20)
	}

	readingDone()
	if flags := vmaFlags(t, lo, hi); !anyHas(flags, "nh") || anyHas(flags, "hg") {
		t.Errorf("readingDone left the room advised for huge pages: %q", flags)
	}
	storeReleased()
	if !heapRoom.Empty() {
		t.Errorf("the store's release left the room set: %+v", heapRoom)
	}
	if flags := vmaFlags(t, lo, hi); !anyHas(flags, "hg") || anyHas(flags, "nh") {
		t.Errorf("the store's release did not advise the room again: %q", flags)
	}
}

// TestHugeHeapRoomNeverCountedLive makes the room again and again while
// another goroutine allocates, so that collections run and the policy's
// cleanups set the collector's percentage around each making: none may
// re-enable the collector while the room is live, or a collection takes
// it for live data and the policy lets the heap grow by it.
func TestHugeHeapRoomNeverCountedLive(t *testing.T) {
	if os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOMEMLIMIT is set: no room is made")
	}
	withHeapPolicy(t)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Small objects, written: a rate of allocation a program has. (Large
		// ones never touched cost nothing to make, and those made while a
		// collection marks count as live for it: gigabytes a second of them
		// would pass for a room.)
		var keep [][]byte
		for {
			select {
			case <-stop:
				return
			default:
			}
			b := make([]byte, 1024)
			b[0], b[1023] = 1, 1
			keep = append(keep, b)
			if len(keep) == 1024 {
				keep = nil
			}
		}
	}()
	t.Cleanup(func() { heapRoom = pages.Range{} })
	for i := range 30 {
		heapRoom = pages.Range{}
		highLive.Store(0)
		base := liveBefore()
		hugeHeapFor(hugeFrom)
		for range 3 {
			runtime.GC()
			time.Sleep(2 * time.Millisecond)
		}
		if h := highLive.Load(); h >= base+hugeRoom/2 {
			close(stop)
			<-done
			t.Fatalf("round %d: largest live heap %d MB: a collection took the room for live data", i, h>>20)
		}
	}
	close(stop)
	<-done
}

// liveBefore is the live heap a collection finds now, with what may be
// marked while it runs: the base the room would come on top of.
func liveBefore() uint64 {
	runtime.GC()
	return max(liveBytes(), highLive.Load())
}

// TestHugeHeapOnceRead: for inputs of unknown size the room is made once
// reading has passed hugeFrom bytes, and not at all when reading ends
// before; stopping twice is stopping once.
func TestHugeHeapOnceRead(t *testing.T) {
	if os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOMEMLIMIT is set: no room is made")
	}
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("this kernel offers no transparent huge pages")
	}
	withHeapPolicy(t)
	t.Cleanup(func() { heapRoom = pages.Range{} })

	var short ingest.Progress
	stop := hugeHeapOnceRead(&short)
	short.Bytes.Store(hugeFrom - 1)
	time.Sleep(10 * readWatch)
	stop()
	stop()
	if !heapRoom.Empty() {
		t.Fatalf("a room after %d bytes read: %+v", hugeFrom-1, heapRoom)
	}

	var long ingest.Progress
	stop = hugeHeapOnceRead(&long)
	long.Bytes.Store(hugeFrom)
	time.Sleep(100 * readWatch) // the watcher looks every readWatch
	stop()                      // waits for it: heapRoom is read after
	if heapRoom.Empty() {
		t.Fatalf("no room after %d bytes read", hugeFrom)
	}
	if flags := vmaFlags(t, heapRoom.Lo, heapRoom.Hi); !anyHas(flags, "hg") {
		t.Fatalf("the room is not advised for huge pages: %q", flags)
	}
}
