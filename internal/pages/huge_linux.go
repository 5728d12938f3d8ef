package pages

import (
	"syscall"
	"unsafe"
)

// Advise asks for huge pages on r (huge) or withdraws the request, and
// reports whether the kernel took it. Withdrawing it keeps the huge pages
// already there; the pages touched from then on are ordinary ones.
func (r Range) Advise(huge bool) bool {
	if r.Empty() {
		return false
	}
	advice := syscall.MADV_NOHUGEPAGE
	if huge {
		advice = syscall.MADV_HUGEPAGE
	}
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, r.Lo, r.Hi-r.Lo, uintptr(advice))
	return errno == 0
}

// Populate faults every page of s in for writing, on a goroutine of its
// own, while the caller goes on using it: an index probed ahead is read
// before it is written, which Written's alternative would not spare (see
// the package comment). Below 4 MB it does nothing: a few pages are not
// worth a goroutine.
func Populate[T any](s []T) {
	const madvPopulateWrite = 23 // MADV_POPULATE_WRITE, Linux 5.14
	size := uintptr(len(s)) * unsafe.Sizeof(*new(T))
	if size < 4<<20 {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), size)
	go func() { _ = syscall.Madvise(b, madvPopulateWrite) }()
}
