//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package trace

// mapBlock makes n bytes on the heap where memory is not mapped this way.
func mapBlock(n int) (b []byte, mapped bool) { return make([]byte, n), false }

// unmapBlock is never called here: no block is mapped.
func unmapBlock([]byte) {}

// mapsBlocks says whether blocks are mapped outside the heap here.
const mapsBlocks = false
