package pages

import "testing"

// TestMiddle: the run of whole huge pages inside a range, for ranges that
// start on, just after and just before a page boundary.
func TestMiddle(t *testing.T) {
	const h = HugePage
	for _, c := range []struct {
		name        string
		start, size uintptr
		want        Range
	}{
		{"aligned, two pages", 4 * h, 2 * h, Range{4 * h, 6 * h}},
		{"a byte past a boundary", 4*h + 1, 3 * h, Range{5 * h, 7 * h}},
		{"a byte before a boundary", 5*h - 1, 2 * h, Range{5 * h, 6 * h}},
		{"less than a page", 4 * h, h - 1, Range{}},
		{"a page's worth across a boundary", 4*h + h/2, h, Range{}},
		{"nothing", 4 * h, 0, Range{}},
	} {
		got := Middle(c.start, c.size)
		if got != c.want {
			t.Errorf("%s: Middle(%#x, %#x) = %#x..%#x, want %#x..%#x", c.name, c.start, c.size, got.Lo, got.Hi, c.want.Lo, c.want.Hi)
		}
		if got.Empty() != (c.want == Range{}) {
			t.Errorf("%s: Empty() = %v", c.name, got.Empty())
		}
	}
}

// TestAdviseNothing: advice on an empty range is never taken.
func TestAdviseNothing(t *testing.T) {
	if (Range{}).Advise(true) || (Range{Lo: 2 * HugePage, Hi: HugePage}).Advise(false) {
		t.Fatal("advice on an empty range was taken")
	}
}
