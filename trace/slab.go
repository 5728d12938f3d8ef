package trace

import (
	"strings"
	"unsafe"

	"github.com/idem-cli/idem/model"
)

// slab hands out the rich objects of built intents from a few large
// blocks. Building tens of thousands of intents was a few hundred thousand
// small allocations (each observation, delivery, slice and string its
// own), and the collector then found and marked each one while the rules
// ran. Nothing handed out is written again by the slab: a block that is
// full is left to what points into it, and a new one begun. A nil slab
// allocates each object on its own, for the few built on demand.
type slab struct {
	intents      block[model.Intent]
	deliveries   block[model.Delivery]
	observations block[model.Observation]
	delPtrs      block[*model.Delivery]
	obsPtrs      block[*model.Observation]
	strs         block[string]
	text         []byte
	// keep is reused by each build for what ends keeps of a delivery's
	// observations ([0]) and of an intent's deliveries ([1]).
	keep [2]ends[int32]
}

// slabBytes is about how large each block is: a few hundred kilobytes, so
// that a small input does not pay for a big one's.
const slabBytes = 128 << 10

// block is a run of T handed out one or a few at a time.
type block[T any] []T

// one returns a new zero T.
func (b *block[T]) one() *T {
	return &b.slice(1)[:1][0]
}

// slice returns an empty slice with room for n: appending past n moves it
// out of the block rather than over its neighbour.
func (b *block[T]) slice(n int) []T {
	size := max(1, slabBytes/int(unsafe.Sizeof(*new(T))))
	if n > size/4 {
		return make([]T, 0, n)
	}
	if cap(*b)-len(*b) < n {
		// Not written ahead (see internal/pages): with the blocks' pages written
		// as they were made, the peak from zstd input rose from 282-291 to
		// 289-307 MB in ten runs, for a fifth of the TLB flushes saved.
		*b = make([]T, 0, size)
	}
	lo := len(*b)
	*b = (*b)[:lo+n]
	return (*b)[lo : lo : lo+n]
}

func (s *slab) intent() *model.Intent {
	if s == nil {
		return new(model.Intent)
	}
	return s.intents.one()
}

func (s *slab) delivery() *model.Delivery {
	if s == nil {
		return new(model.Delivery)
	}
	return s.deliveries.one()
}

func (s *slab) observation() *model.Observation {
	if s == nil {
		return new(model.Observation)
	}
	return s.observations.one()
}

// observationList returns an empty slice with room for n pointers.
func (s *slab) observationList(n int) []*model.Observation {
	if s == nil {
		return make([]*model.Observation, 0, n)
	}
	return s.obsPtrs.slice(n)
}

// deliveryList returns an empty slice with room for n pointers.
func (s *slab) deliveryList(n int) []*model.Delivery {
	if s == nil {
		return make([]*model.Delivery, 0, n)
	}
	return s.delPtrs.slice(n)
}

// stringList returns an empty slice with room for n strings.
func (s *slab) stringList(n int) []string {
	if s == nil {
		return make([]string, 0, n)
	}
	return s.strs.slice(n)
}

// ends returns the reusable ends for a build's level (see keep).
func (s *slab) ends(level, max int) *ends[int32] {
	if s == nil {
		return &ends[int32]{max: max}
	}
	e := &s.keep[level]
	*e = ends[int32]{head: e.head[:0], tail: e.tail[:0], max: max}
	return e
}

// own returns the string r names, copied (and unpacked) into the slab.
func (s *slab) own(a *arena, r aref) string {
	if s == nil {
		return a.own(r)
	}
	if r == 0 {
		return ""
	}
	raw, kind := a.raw(r)
	need := len(raw)
	if kind != 0 {
		need = 3*len(raw) + 16 // what unpacking a packed id can grow it to
	}
	if cap(s.text)-len(s.text) < need {
		s.text = make([]byte, 0, max(slabBytes/2, need))
	}
	lo := len(s.text)
	s.text = a.appendTo(s.text, r)
	if len(s.text) == lo {
		return ""
	}
	return unsafe.String(&s.text[lo], len(s.text)-lo)
}

// clone returns a copy of str in the slab.
func (s *slab) clone(str string) string {
	if s == nil || str == "" {
		return strings.Clone(str)
	}
	if cap(s.text)-len(s.text) < len(str) {
		s.text = make([]byte, 0, max(slabBytes/2, len(str)))
	}
	lo := len(s.text)
	s.text = append(s.text, str...)
	return unsafe.String(&s.text[lo], len(str))
}
