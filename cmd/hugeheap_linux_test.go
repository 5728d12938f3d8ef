package cmd

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/internal/pages"
)

// vmaFlags returns the VmFlags of every mapping of this process that
// overlaps [lo, hi) (a neighbour advised alike, such as the correlator's
// index, is one mapping with it).
func vmaFlags(t *testing.T, lo, hi uintptr) []string {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps:", err)
	}
	defer f.Close()
	var out []string
	inside := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rng, _, ok := strings.Cut(line, " "); ok && strings.Contains(rng, "-") && !strings.HasSuffix(rng, ":") {
			a, b, _ := strings.Cut(rng, "-")
			start, err1 := strconv.ParseUint(a, 16, 64)
			end, err2 := strconv.ParseUint(b, 16, 64)
			inside = err1 == nil && err2 == nil && uintptr(start) < hi && uintptr(end) > lo
			continue
		}
		if flags, ok := strings.CutPrefix(line, "VmFlags:"); ok && inside {
			out = append(out, flags)
		}
	}
	return out
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
	hugeHeapFor(sizeOf([]string{big}).expanded)
	t.Cleanup(func() { heapRoom = pages.Range{} })
	for range 5 { // the policy's cleanups run after each collection
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if h := highLive.Load(); h >= hugeRoom/2 {
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
	if g := goal[0].Value.Uint64(); g >= hugeRoom/2 {
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
