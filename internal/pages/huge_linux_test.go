package pages

import (
	"slices"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// flagsAt returns the VmFlags of the mapping that holds addr.
func flagsAt(t *testing.T, addr uintptr) []string {
	t.Helper()
	flags, err := MappingFlags(addr, addr+1)
	if err != nil {
		t.Skip(err)
	}
	if len(flags) == 0 {
		t.Fatalf("no mapping holds %#x", addr)
	}
	return strings.Fields(flags[0])
}

// TestHugeAdvisesTheMiddle: Huge marks the mapping of a big slice for
// huge pages (VmFlags hg), Advise(false) marks it against them (nh), and
// a slice under two huge pages is left as it was.
func TestHugeAdvisesTheMiddle(t *testing.T) {
	const size = 8 * HugePage
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		t.Skip(err)
	}
	defer syscall.Munmap(b)
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	r := Middle(start, size)

	Huge(b[:2*HugePage-1])
	if slices.Contains(flagsAt(t, r.Lo), "hg") {
		t.Fatal("a slice under two huge pages was advised")
	}
	Huge(b)
	if f := flagsAt(t, r.Lo); !slices.Contains(f, "hg") {
		t.Skipf("the kernel did not take the advice (VmFlags %v): no transparent huge pages here?", f)
	}
	if !r.Advise(false) {
		t.Fatal("withdrawing the advice was refused")
	}
	if f := flagsAt(t, r.Lo); !slices.Contains(f, "nh") || slices.Contains(f, "hg") {
		t.Fatalf("after Advise(false), VmFlags %v: want nh and no hg", f)
	}
}
