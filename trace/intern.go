package trace

import (
	"cmp"
	"strings"
)

// interner stores repeated strings once: the first limit distinct values
// are shared, later ones (routes with ids in them) go to the arena as they
// come, so memory stays bounded whatever the cardinality.
type interner struct {
	a     *arena
	seen  map[string]aref
	limit int
	// The last value looked up: a route comes in runs, and comparing to
	// it costs less than hashing it.
	last    string
	lastRef aref
}

// ref stores s once; idLike is idLike(s), which the parsers work out.
func (in *interner) ref(s string, idLike bool) aref {
	if s == "" {
		return 0
	}
	if idLike {
		// A path with an id in it is as good as unique: storing it costs
		// less than looking it up.
		return in.a.add(s)
	}
	if s == in.last && in.lastRef != 0 {
		return in.lastRef
	}
	if r, ok := in.seen[s]; ok {
		in.last, in.lastRef = in.a.get(r), r
		return r
	}
	r := in.a.add(s)
	if len(in.seen) < in.limit {
		if in.seen == nil {
			in.seen = map[string]aref{}
		}
		in.seen[strings.Clone(s)] = r
	}
	return r
}

// pairTable numbers pairs of strings that repeat: (format, file),
// (detail, message), and methods (paired with ""), whose values come from
// a small set.
type pairTable struct {
	limit    int // how many pairs it may number; 0 means 65,536
	index    map[[2]string]uint16
	list     [][2]string
	last     [2]string
	lastID   uint16
	lastUsed bool
}

// id returns the pair's number; false once the table is full and the
// pair is not in it.
func (t *pairTable) id(a, b string) (uint16, bool) {
	k := [2]string{a, b}
	if t.lastUsed && k == t.last {
		return t.lastID, true // runs of one pair are the rule
	}
	i, ok := t.index[k]
	if !ok {
		if limit := cmp.Or(t.limit, 1<<16); len(t.list) >= limit {
			return 0, false
		}
		if t.index == nil {
			t.index = map[[2]string]uint16{}
		}
		k = [2]string{strings.Clone(a), strings.Clone(b)}
		i = uint16(len(t.list))
		t.list = append(t.list, k)
		t.index[k] = i
	}
	t.last, t.lastID, t.lastUsed = t.list[i], i, true
	return i, true
}

// maxTexts bounds the distinct (detail, message) pairs kept compact;
// lines with others are kept whole.
const maxTexts = 4096
