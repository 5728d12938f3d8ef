package cmd

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestHeadroomIsAnEighthAboveAFloor(t *testing.T) {
	for _, tc := range []struct{ held, want uint64 }{
		{0, 16 << 20},
		{100 << 20, 16 << 20},
		{128 << 20, 16 << 20},
		{256 << 20, 32 << 20},
		{1 << 30, 128 << 20},
	} {
		if got := headroom(tc.held); got != tc.want {
			t.Errorf("headroom(%d MB) = %d MB, want %d MB", tc.held>>20, got>>20, tc.want>>20)
		}
	}
}

func TestGCPercentLeavesTheHeadroom(t *testing.T) {
	for _, tc := range []struct {
		live uint64
		want int
	}{
		{0, 100},
		{8 << 20, 100},  // small heaps collect at twice their size
		{64 << 20, 25},  // 16 MB of room
		{256 << 20, 12}, // an eighth: 32 MB of room
		{2 << 30, 12},   // an eighth
		{1 << 40, 12},   // an eighth, whatever the size
	} {
		if got := gcPercent(tc.live); got != tc.want {
			t.Errorf("gcPercent(%d MB) = %d, want %d", tc.live>>20, got, tc.want)
		}
	}
}

func TestGoalStaysNearTheLargestLiveHeap(t *testing.T) {
	for _, tc := range []struct {
		live, high uint64
		want       int
	}{
		{0, 0, 100},
		{64 << 20, 64 << 20, 25},   // growing: 16 MB of room
		{256 << 20, 256 << 20, 12}, // growing: an eighth, 32 MB of room
		{64 << 20, 80 << 20, 25},   // the room reaches past the high water already
		{64 << 20, 256 << 20, 200}, // shrunk: up to three quarters of the high water
		{16 << 20, 256 << 20, 400}, // shrunk far: five times the live heap at most
		{100 << 20, 200 << 20, 50}, // shrunk: up to three quarters of the high water
	} {
		if got := gcPercentBelow(tc.live, tc.high); got != tc.want {
			t.Errorf("gcPercentBelow(%d MB, %d MB) = %d, want %d", tc.live>>20, tc.high>>20, got, tc.want)
		}
	}
}

// withHeapPolicy starts the collector's policy as a run does, from a
// largest live heap of 0 (what other tests' heaps held does not count),
// and stops it when the test ends.
func withHeapPolicy(t *testing.T) {
	t.Helper()
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	t.Cleanup(func() {
		gcPolicyOn.Store(false)
		runtime.GC() // the last cleanup sees the policy off and stops
		debug.SetGCPercent(100)
	})
	debug.SetGCPercent(100)
	highLive.Store(0)
	trackHeap()
	if !gcPolicyOn.Load() {
		t.Fatal("trackHeap did not start the policy")
	}
}

func TestHeapGoalFollowsTheLiveHeap(t *testing.T) {
	withHeapPolicy(t)
	live := make([]byte, 320<<20)
	for i := 0; i < len(live); i += 4096 {
		live[i] = byte(i)
	}
	// The percentage is set by a cleanup after each collection: after one
	// that finds 320 MB live, it must leave an eighth of room.
	deadline := time.Now().Add(5 * time.Second)
	got := 100
	for time.Now().Before(deadline) && got == 100 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
		got = debug.SetGCPercent(-1)
		debug.SetGCPercent(got)
	}
	if got != 12 {
		t.Errorf("GC percent with 320 MB live = %d, want 12", got)
	}
	runtime.KeepAlive(live)
}

func TestUserTunedCollectorIsLeftAlone(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "1GiB")
	trackHeap()
	if gcPolicyOn.Load() {
		gcPolicyOn.Store(false)
		t.Fatal("trackHeap overrode GOMEMLIMIT")
	}
}

func TestVmHWMReadsThePeakInBytes(t *testing.T) {
	for _, tc := range []struct {
		status string
		want   uint64
	}{
		{"Name:\tidem\nVmPeak:\t  900000 kB\nVmHWM:\t  303104 kB\nVmRSS:\t 2048 kB\n", 303104 << 10},
		{"VmHWM:\t1 kB", 1024},
		{"Name:\tidem\n", 0},               // not told
		{"VmHWM:\t303104 MB\n", 0},         // another unit: not guessed
		{"VmHWM:\tlots kB\n", 0},           // not a number
		{"VmHWM:\t99999999999999 kB\n", 0}, // past any machine
	} {
		if got := vmHWM(tc.status); got != tc.want {
			t.Errorf("vmHWM(%q) = %d, want %d", tc.status, got, tc.want)
		}
	}
}
