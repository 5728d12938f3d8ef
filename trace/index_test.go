package trace

import (
	"hash/maphash"
	"strconv"
	"strings"
	"testing"
)

func TestHashIndexTellsNamesWithOneHashApart(t *testing.T) {
	for _, tc := range []struct {
		name string
		hash func(name string) uint64
	}{
		{"real hashes", func(n string) uint64 { return maphash.String(idSeed, n) }},
		{"seven hashes for all", func(n string) uint64 { return uint64(len(n)%7) << 32 }},
		{"one hash for all", func(string) uint64 { return 42 << 32 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var x hashIndex // grows from empty, through several sizes
			var names []string
			for i := 0; i < 3000; i++ {
				name := strings.Repeat("n", i%50) + strconv.Itoa(i)
				same := func(v int32) bool { return names[v] == name }
				if _, found := x.findOrAdd(tc.hash(name), int32(len(names)), same); found {
					t.Fatalf("%q found before it was added", name)
				}
				names = append(names, name)
			}
			for i, name := range names {
				same := func(v int32) bool { return names[v] == name }
				got, found := x.findOrAdd(tc.hash(name), -1, same)
				if !found || got != int32(i) {
					t.Fatalf("%q: got %d %v, want %d", name, got, found, i)
				}
			}
			if x.n != len(names) || x.n*10 > len(x.slots)*7 {
				t.Errorf("%d entries in %d slots", x.n, len(x.slots))
			}
		})
	}
}
