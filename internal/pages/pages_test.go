package pages

import (
	"testing"
	"unsafe"
)

// TestWrittenKeepsTheSlice: writing the pages changes neither the slice
// nor what it holds, for any element size and any number of pages.
func TestWrittenKeepsTheSlice(t *testing.T) {
	for _, n := range []int{0, 1, 511, 512, 513, 100_000} {
		s := make([]uint64, n/2, n)
		got := Written(s)
		if len(got) != len(s) || cap(got) != cap(s) || unsafe.SliceData(got) != unsafe.SliceData(s) {
			t.Fatalf("%d: Written gave another slice", n)
		}
		for i, v := range got[:cap(got)] {
			if v != 0 {
				t.Fatalf("%d: element %d is %d", n, i, v)
			}
		}
		type big struct{ a [4099]byte }
		b := Written(make([]big, 3))
		for i := range b {
			for j, v := range b[i].a {
				if v != 0 {
					t.Fatalf("byte %d of %d is %d", j, i, v)
				}
			}
		}
	}
}
