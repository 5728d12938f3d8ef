package trace

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
