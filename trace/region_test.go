package trace

import (
	"reflect"
	"testing"
	"unsafe"
)

// The store's chunks come from regions, memory the collector does not
// scan: a pointer in them would not keep what it points to alive.
func TestRegionTypesHoldNoPointers(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[cobs](), reflect.TypeFor[cdelivery](), reflect.TypeFor[aref](),
		reflect.TypeFor[uint32](), reflect.TypeFor[cextra](), reflect.TypeFor[fpSeen](), reflect.TypeFor[byte](),
	} {
		if !pointerFree(typ) {
			t.Errorf("%v holds pointers: it cannot be kept in a region", typ)
		}
	}
	for _, typ := range []reflect.Type{
		reflect.TypeFor[string](), reflect.TypeFor[*int](), reflect.TypeFor[[]byte](),
		reflect.TypeFor[struct {
			a int
			s string
		}](), reflect.TypeFor[[2]map[int]int](), reflect.TypeFor[any](),
	} {
		if pointerFree(typ) {
			t.Errorf("pointerFree(%v) = true, want false", typ)
		}
	}
}

func TestRegionsHandOutSeparateZeroedMemory(t *testing.T) {
	var r regions
	defer r.release()
	type span struct{ lo, hi uintptr }
	var given []span
	for _, n := range []int{1, 7, 8, 100, regionBytes / 8, regionBytes / 3, regionBytes/2 + 5, 3} {
		b := r.take(n)
		if len(b) < n || cap(b) != len(b) {
			t.Fatalf("take(%d): len %d cap %d", n, len(b), cap(b))
		}
		lo := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		if lo%8 != 0 {
			t.Errorf("take(%d) at %#x: not aligned to 8 bytes", n, lo)
		}
		hi := lo + uintptr(len(b))
		for _, g := range given {
			if lo < g.hi && g.lo < hi {
				t.Errorf("take(%d) at %#x overlaps what was handed out at %#x", n, lo, g.lo)
			}
		}
		given = append(given, span{lo, hi})
		for j, c := range b {
			if c != 0 {
				t.Fatalf("take(%d)[%d] = %d, want zeroed memory", n, j, c)
			}
		}
		for j := range b {
			b[j] = 0xff // a later take must not see this
		}
	}
	s := flatSlice[cobs](&r, 100)
	if len(s) != 0 || cap(s) != 100 {
		t.Errorf("flatSlice: len %d cap %d, want 0 and 100", len(s), cap(s))
	}
	if s = s[:100]; s[99] != (cobs{}) {
		t.Errorf("flatSlice's last element is not zero")
	}
}

func TestRegionsReleaseWhatTheyMapped(t *testing.T) {
	var r regions
	r.take(100)
	r.take(regionBytes) // a block of its own
	if len(r.mapped) == 0 && mapsBlocks {
		t.Fatal("nothing was mapped")
	}
	r.release()
	if r.mapped != nil || r.free != nil {
		t.Errorf("after release: %d blocks kept, %d bytes of room", len(r.mapped), len(r.free))
	}
	r.release() // twice is harmless
	if b := r.take(8); len(b) != 8 {
		t.Errorf("take after release: %d bytes", len(b))
	}
	r.release()
}

// pointerFree reports whether values of t hold no pointers: what the
// types handed out by flatSlice must be.
func pointerFree(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			if !pointerFree(t.Field(i).Type) {
				return false
			}
		}
		return true
	case reflect.Array:
		return t.Len() == 0 || pointerFree(t.Elem())
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	}
	return false
}
