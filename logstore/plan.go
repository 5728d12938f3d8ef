package logstore

// The plan's questions, as values that name no store's language. Phase 1
// asks Groups (the values of some fields whose lines pass a test, counted
// in the store) and Lines (some fields of the lines a Filter selects);
// phase 2 asks Lines only, in batches the store accepts. A store's
// dialect (a Reader) writes each in its own language and reads its
// answers back as Records.

// A Query is a Group or a Lines.
type Query interface{ isQuery() }

// A Filter selects lines: All, Set, Eq, In, Range, And, Or, Not, Member.
type Filter interface{ isFilter() }

// All selects every line.
type All struct{}

// Set selects the lines where Field has a value (an empty value is none).
type Set struct{ Field string }

// Eq selects the lines where Field is Value.
type Eq struct{ Field, Value string }

// In selects the lines where Field is one of Values.
type In struct {
	Field  string
	Values []string
}

// Range selects the lines where Field, read as a number, is from Min to
// Max.
type Range struct {
	Field    string
	Min, Max int
}

// And selects the lines every one of its filters selects.
type And []Filter

// Or selects the lines any of its filters selects.
type Or []Filter

// Not selects the lines its filter does not.
type Not struct{ Filter Filter }

// Member selects the lines whose Field holds one of the values Field has
// on the lines Lines selects: of those in Part only, and, when By is set,
// of those whose group by By has more than Over lines. It is how a
// question is asked in two stages within one request, a cheap one that
// narrows the costly one.
type Member struct {
	Field string
	Lines Filter
	Part  Part
	By    []string
	Over  int
}

// Part is one of Of parts of the lines, by a hash of Field's value: each
// value falls in one part whole. Of below 2 is every line.
type Part struct {
	Field     string
	Index, Of int
}

// A Group asks for the groups (by By) of the lines Lines selects, within
// Part, with their aggregates, keeping those any of Keep holds for. Every
// group Keep keeps has more than one line or a line Also selects (nil:
// none); a dialect may narrow the lines to those groups' first (Member),
// which is what makes grouping a million keys affordable.
//
// The answer is a Record per group kept: its By fields, and each
// aggregate under its Name (counts in decimal, times in RFC 3339).
type Group struct {
	Lines And
	By    []string
	Also  Filter
	Part  Part
	Aggs  []Agg
	Keep  []Above
}

// Agg is an aggregate of a group's lines.
type Agg struct {
	Name   string
	Op     AggOp
	Fields []string // AggDistinct's
	If     Filter   // AggCountIf's
}

// AggOp is what an Agg computes.
type AggOp int

const (
	AggCount    AggOp = iota // the lines
	AggCountIf               // the lines If selects
	AggDistinct              // the distinct non-empty tuples of Fields
	AggFirst                 // the earliest time
	AggLast                  // the latest time
)

// Above holds for a group whose aggregate Agg is more than N.
type Above struct {
	Agg string
	N   int
}

// Lines asks for the lines Filter selects, less those Except selects
// (nil: none). The answer is a Record per line: every field, or, when
// Fields is set, those and _time.
type Lines struct {
	Filter Filter
	Except Filter
	Fields []string
}

// Limits are what a dialect tells the plan about the size of its
// requests.
type Limits struct {
	// QueryBytes bounds a query's length, as Show writes it; the plan
	// estimates batches of values against it.
	QueryBytes int
	// ScopeBytes is about what the store's scope (Options.Query) adds
	// to a query each time a Member repeats it.
	ScopeBytes int
	// GroupLines is how many lines of the window one Group may cover;
	// more are grouped in parts, one request after another, each inside
	// the store's time limit. 0 groups in one request whatever the size.
	GroupLines int64
}

func (All) isFilter()    {}
func (Set) isFilter()    {}
func (Eq) isFilter()     {}
func (In) isFilter()     {}
func (Range) isFilter()  {}
func (And) isFilter()    {}
func (Or) isFilter()     {}
func (Not) isFilter()    {}
func (Member) isFilter() {}
func (Group) isQuery()   {}
func (Lines) isQuery()   {}

// anySet selects the lines where any of the fields has a value.
func anySet(fs []string) Or {
	out := make(Or, len(fs))
	for i, f := range fs {
		out[i] = Set{f}
	}
	return out
}
