//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package trace

import (
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/idem-cli/idem/internal/pages"
)

// mapBlock maps n bytes of zeroed memory outside the Go heap, aligned to
// a huge page where it is a huge page long or more, or, if the system
// refuses, makes them on the heap (and says so: they are then the
// collector's to free). unix.MmapPtr rather than syscall.Mmap: a block is cut to
// its alignment by unmapping its ends, which syscall's bookkeeping of
// whole mappings does not allow.
func mapBlock(n int) (b []byte, mapped bool) {
	const huge = 2 << 20
	size := uintptr(n+4095) &^ 4095
	extra := uintptr(0)
	if size >= huge {
		extra = huge // a huge page longer, then cut at a huge page's start
	}
	p, err := unix.MmapPtr(-1, 0, nil, size+extra, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return make([]byte, n), false
	}
	if extra > 0 {
		skip := -uintptr(p) & (huge - 1)
		if skip > 0 {
			_ = unix.MunmapPtr(p, skip)
		}
		if tail := extra - skip; tail > 0 {
			_ = unix.MunmapPtr(unsafe.Add(p, skip+size), tail)
		}
		p = unsafe.Add(p, skip)
	}
	b = unsafe.Slice((*byte)(p), size)
	pages.Huge(b)
	return b, true
}

// unmapBlock returns a block from mapBlock to the system.
func unmapBlock(b []byte) {
	_ = unix.MunmapPtr(unsafe.Pointer(unsafe.SliceData(b)), uintptr(len(b)))
}

// mapsBlocks says whether blocks are mapped outside the heap here.
const mapsBlocks = true
