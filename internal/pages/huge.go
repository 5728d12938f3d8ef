package pages

import "unsafe"

// HugePage is the huge page size advice is aligned to: x86-64's and
// arm64's with 4 KB base pages.
const HugePage = 2 << 20

// Range is a run of whole huge pages, [Lo, Hi): the aligned middle of
// some memory, which advice can reach. It is held as numbers, not a
// pointer: the memory it names may be free heap that no Go pointer may
// name (see the command's hugeheap_linux.go).
type Range struct{ Lo, Hi uintptr }

// Middle is the run of whole huge pages inside [start, start+size).
func Middle(start, size uintptr) Range {
	lo := (start + HugePage - 1) &^ (HugePage - 1)
	hi := (start + size) &^ (HugePage - 1)
	if hi <= lo {
		return Range{}
	}
	return Range{lo, hi}
}

// Empty reports whether r holds no page.
func (r Range) Empty() bool { return r.Hi <= r.Lo }

// Huge asks the kernel to back the whole huge pages inside s with huge
// pages, where transparent huge pages are given on request (as most
// distributions configure them): a large table probed at random then
// misses the TLB far less, and a page written front to back faults once
// for 512. Below two huge pages' worth it does nothing: the middle would
// be one page at most. A refusal changes nothing but speed.
func Huge[T any](s []T) {
	size := uintptr(len(s)) * unsafe.Sizeof(*new(T))
	if size < 2*HugePage {
		return
	}
	Middle(uintptr(unsafe.Pointer(unsafe.SliceData(s))), size).Advise(true)
}
