package trace

import "github.com/idem-cli/idem/internal/pages"

// hashIndex finds int32 values (deliveries, intents) by a 64-bit hash of
// what names them. It is an open-addressing table of 8-byte slots, so that
// the request-id index of a million-line log is one probe into 32 MB rather
// than several into a map, and holds no pointer for the collector to scan.
// Different names may share a hash: the caller's same function tells them
// apart, and the probe goes on past a slot that is not the one sought.
type hashIndex struct {
	slots []uint64 // fragment<<32 | value+1; 0 is empty
	n     int
	bits  uint
}

// newHashIndex sizes an index for about n entries.
func newHashIndex(n int) hashIndex {
	bits := bitsFor(n)
	x := hashIndex{slots: make([]uint64, 1<<bits), bits: bits}
	pages.Huge(x.slots)
	pages.Populate(x.slots)
	return x
}

// bitsFor is the size (a power of two) that holds n entries at most 70%
// full.
func bitsFor(n int) uint {
	bits := uint(10)
	for 1<<bits*7/10 < n && bits < 31 {
		bits++
	}
	return bits
}

// reuse makes x an index for about n entries, in x's own memory when that
// is large enough: a new index would add to the peak until the collector
// noticed the old one was free. The old slots are still in it when dirty
// is true: the caller empties them (with clear, on the goroutines that
// will use them).
func (x *hashIndex) reuse(n int) (fresh hashIndex, dirty bool) {
	bits := bitsFor(n)
	fresh = hashIndex{bits: bits}
	if size := 1 << bits; len(x.slots) >= size {
		fresh.slots, dirty = x.slots[:size], true
	} else {
		fresh.slots = make([]uint64, size)
	}
	*x = hashIndex{}
	return fresh, dirty
}

// home is where a fragment's probe starts: the top bits of a Fibonacci
// hash, so that the fragment alone places it (growing needs nothing else).
func (x *hashIndex) home(frag uint32) uint32 { return (frag * 0x9E3779B1) >> (32 - x.bits) }

// findOrAdd returns the value stored for the name hashed to h, which same
// confirms, or stores v for it and returns v, false.
func (x *hashIndex) findOrAdd(h uint64, v int32, same func(int32) bool) (int32, bool) {
	got, found, _ := x.findOrAddSlot(h, v, same)
	return got, found
}

// findOrAddSlot is findOrAdd that also tells, when the name was found,
// which slot holds it (for set).
func (x *hashIndex) findOrAddSlot(h uint64, v int32, same func(int32) bool) (int32, bool, int) {
	if x.slots == nil {
		*x = newHashIndex(0)
	}
	frag := uint32(h >> 32)
	mask := uint32(len(x.slots) - 1)
	for i := x.home(frag); ; i = (i + 1) & mask {
		s := x.slots[i]
		if s == 0 {
			x.slots[i] = uint64(frag)<<32 | uint64(uint32(v)+1)
			x.n++
			if x.n*10 > len(x.slots)*7 {
				x.grow()
			}
			return v, false, -1
		}
		if uint32(s>>32) == frag {
			if got := int32(uint32(s) - 1); same(got) {
				return got, true, int(i)
			}
		}
	}
}

// set replaces the value in slot, which findOrAddSlot found for h.
func (x *hashIndex) set(slot int, h uint64, v int32) {
	x.slots[slot] = h>>32<<32 | uint64(uint32(v)+1)
}

// touch reads the slot where h's probe starts and returns it. Touching a
// batch's slots before using them lets the processor fetch them all at
// once instead of waiting for each in turn: on a table much larger than
// the cache, that is most of the cost of a lookup.
func (x *hashIndex) touch(h uint64) uint64 {
	if len(x.slots) == 0 {
		return 0
	}
	return x.slots[x.home(uint32(h>>32))]
}

func (x *hashIndex) grow() {
	old := x.slots
	x.bits++
	x.slots = make([]uint64, 1<<x.bits)
	pages.Huge(x.slots)
	mask := uint32(len(x.slots) - 1)
	for _, s := range old {
		if s == 0 {
			continue
		}
		i := x.home(uint32(s >> 32))
		for x.slots[i] != 0 {
			i = (i + 1) & mask
		}
		x.slots[i] = s
	}
}
