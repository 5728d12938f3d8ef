package trace

import "unsafe"

// regions hands out the compact store's chunks (records, deliveries,
// their ids) from large blocks mapped outside the Go heap, on huge pages
// where the system offers them. The store is written once, front to
// back, in fresh memory: with 4 KB pages each of its tens of thousands of
// pages is a fault of its own, and on a virtual machine a first touch
// costs ten microseconds or more (11 µs measured on one); a 2 MB page is
// one fault for 512 of them. Outside the heap, the blocks' room not yet
// written does not count towards the collector's goal, and they are
// returned to the system the moment the store is released (release), not
// at a later collection.
//
// Nothing may keep a pointer into a region past release: the store's
// chunks are reached only through the correlator's lists, which release
// empties first.
type regions struct {
	free   []byte   // the current block's room
	mapped [][]byte // every block mapped, to unmap
}

// regionBytes is a block's size: a few huge pages, so that a small input
// touches only its first.
const regionBytes = 8 << 20

// take returns n bytes of zeroed memory aligned to 8 bytes, from the
// current block when it has room.
func (r *regions) take(n int) []byte {
	n = (n + 7) &^ 7
	if n > regionBytes/4 {
		return r.block(n)[:n:n]
	}
	if len(r.free) < n {
		r.free = r.block(regionBytes)
	}
	b := r.free[:n:n]
	r.free = r.free[n:]
	return b
}

// block maps a block of n bytes, and remembers it if it is mapped.
func (r *regions) block(n int) []byte {
	b, mapped := mapBlock(n)
	if mapped {
		r.mapped = append(r.mapped, b)
	}
	return b
}

// release returns every block to the system.
func (r *regions) release() {
	for _, b := range r.mapped {
		unmapBlock(b)
	}
	r.free, r.mapped = nil, nil
}

// flatSlice returns an empty slice of T with room for n, from r when r
// is not nil. T must hold no pointers (TestRegionTypesHoldNoPointers): the collector
// does not look into a region.
func flatSlice[T any](r *regions, n int) []T {
	if r == nil {
		return make([]T, 0, n)
	}
	size := int(unsafe.Sizeof(*new(T)))
	b := r.take(n * size)
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)[:0]
}
