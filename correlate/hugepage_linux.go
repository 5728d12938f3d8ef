package correlate

import (
	"syscall"
	"unsafe"
)

// hugePages asks the kernel to back the 2 MB-aligned middle of a large,
// freshly made slice with huge pages (where transparent huge pages are
// offered on request, as most distributions configure them). The indexes
// are probed at random: with 4 KB pages nearly every probe of a 32 MB
// table also missed the TLB. A refusal changes nothing but speed.
func hugePages[T any](s []T) {
	const huge = 2 << 20
	size := uintptr(len(s)) * unsafe.Sizeof(*new(T))
	if size < 2*huge {
		return
	}
	p := unsafe.Pointer(unsafe.SliceData(s))
	start := uintptr(p)
	lo := (start + huge - 1) &^ (huge - 1)
	hi := (start + size) &^ (huge - 1)
	if hi <= lo {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Add(p, lo-start)), hi-lo)
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE)
}

// populate faults every page of s in for writing, on a goroutine of its
// own, while the caller goes on using it (see internal/pages: a probed
// index is first read).
func populate[T any](s []T) {
	const madvPopulateWrite = 23 // MADV_POPULATE_WRITE, Linux 5.14
	size := uintptr(len(s)) * unsafe.Sizeof(*new(T))
	if size < 4<<20 {
		return // a few pages: not worth a goroutine
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), size)
	go func() { _ = syscall.Madvise(b, madvPopulateWrite) }()
}
