package logstore

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// logql writes the plan's questions in LogQL. Every query starts with the
// stream selector; the fields a question names are extracted from each
// line by one parser stage (| json or | logfmt) under aliases (f_ and the
// name, as a label name must be), and its filter is a label filter
// expression over them, with Not pushed down to the leaves (LogQL's label
// filters have no negation of a whole expression). A Group is metric
// queries, one an aggregate, each kept to the groups Keep holds for.
type logql struct {
	sel    string // the stream selector, {…}
	parser string // "json" or "logfmt"
	alias  map[string]string
	fields map[string]string // alias → field
}

func newLogQL(sel, parser string) *logql {
	return &logql{sel: sel, parser: parser, alias: map[string]string{}, fields: map[string]string{}}
}

// name is the label a field is extracted as.
func (l *logql) name(f string) string {
	if a, ok := l.alias[f]; ok {
		return a
	}
	var b strings.Builder
	b.WriteString("f_")
	for _, r := range f {
		if r < 128 && (r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	a := b.String()
	for i := 2; l.fields[a] != ""; i++ {
		a = b.String() + "_" + strconv.Itoa(i)
	}
	l.alias[f], l.fields[a] = a, f
	return a
}

// jsonPath is where a field is in a JSON line: idem's own fields
// (idem.file) are top-level names with a dot; other dotted names are
// nested objects, as a shipper's JSON has them.
func jsonPath(f string) string {
	parts := []string{f}
	if !strings.HasPrefix(f, "idem.") {
		parts = strings.Split(f, ".")
	}
	var b strings.Builder
	for i, p := range parts {
		if identifier.MatchString(p) {
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(p)
		} else {
			b.WriteString("[" + strconv.Quote(p) + "]")
		}
	}
	return b.String()
}

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// stage is the parser stage extracting the fields named so far; empty
// when none is.
func (l *logql) stage() string {
	if len(l.fields) == 0 {
		return ""
	}
	aliases := make([]string, 0, len(l.fields))
	for a := range l.fields {
		aliases = append(aliases, a)
	}
	sort.Strings(aliases)
	parts := make([]string, len(aliases))
	for i, a := range aliases {
		expr := l.fields[a]
		if l.parser == "json" {
			expr = jsonPath(expr)
		}
		parts[i] = a + "=" + strconv.Quote(expr)
	}
	return " | " + l.parser + " " + strings.Join(parts, ", ")
}

// cond is a label filter expression, or always or never.
type cond struct {
	expr          string
	always, never bool
}

var (
	always = cond{always: true}
	never  = cond{never: true}
)

// cond writes f (negated when neg) over the fields' aliases. A Member is
// resolved into an In before (Loki.resolve).
func (l *logql) cond(f Filter, neg bool) cond {
	op := func(pos, negOp string) string {
		if neg {
			return negOp
		}
		return pos
	}
	switch f := f.(type) {
	case All:
		if neg {
			return never
		}
		return always
	case Set:
		return cond{expr: l.name(f.Field) + op(`!=""`, `=""`)}
	case Eq:
		return cond{expr: l.name(f.Field) + op("=", "!=") + strconv.Quote(f.Value)}
	case In:
		if len(f.Values) == 0 {
			if neg {
				return always
			}
			return never
		}
		if len(f.Values) == 1 {
			return cond{expr: l.name(f.Field) + op("=", "!=") + strconv.Quote(f.Values[0])}
		}
		q := make([]string, len(f.Values))
		for i, v := range f.Values {
			q[i] = regexp.QuoteMeta(v)
		}
		return cond{expr: l.name(f.Field) + op("=~", "!~") + strconv.Quote(strings.Join(q, "|"))}
	case Range:
		// A numeric comparison on a value that is not a number is an
		// error in Loki, which fails a metric query: a regular
		// expression of the integers in the range has no errors.
		return cond{expr: l.name(f.Field) + op("=~", "!~") + strconv.Quote(intRange(f.Min, f.Max))}
	case Not:
		return l.cond(f.Filter, !neg)
	case And:
		if neg {
			return l.join(f, true, " or ")
		}
		return l.join(f, false, " and ")
	case Or:
		if neg {
			return l.join(f, true, " and ")
		}
		return l.join(f, false, " or ")
	case filterOf:
		return f.c
	case Member:
		panic("logstore: a Member reached LogQL unresolved")
	}
	panic(fmt.Sprintf("logstore: no LogQL for %T", f))
}

// join writes fs (each negated when neg) joined by " and " or " or ".
func (l *logql) join(fs []Filter, neg bool, sep string) cond {
	and := sep == " and "
	var parts []string
	for _, f := range fs {
		c := l.cond(f, neg)
		switch {
		case c.always && and, c.never && !and:
			continue
		case c.always:
			return always
		case c.never:
			return never
		}
		parts = append(parts, c.expr)
	}
	switch len(parts) {
	case 0:
		if and {
			return always
		}
		return never
	case 1:
		return cond{expr: parts[0]}
	}
	return cond{expr: "(" + strings.Join(parts, sep) + ")"}
}

// pipeline is the selector, the parser stage and the filter: a log query.
// The stage is written last (finish), once every field the query names is
// known. ok is false for a filter that selects nothing, which is not sent.
func (l *logql) pipeline(c cond) (string, bool) {
	if c.never {
		return "", false
	}
	s := l.sel + stageMark
	if !c.always {
		s += " | " + c.expr
	}
	return s, true
}

// metric is pipeline for a metric query: a line the parser could not read
// (text among JSON lines) is an error that fails the whole query, and it
// has none of the fields, so it is left out.
func (l *logql) metric(c cond) (string, bool) {
	s, ok := l.pipeline(c)
	return s + errorMark, ok
}

// The places finish fills in.
const (
	stageMark = "\x00stage\x00"
	errorMark = "\x00error\x00"
)

// finish writes the parser stage where pipeline left its place.
func (l *logql) finish(s string) string {
	stage, drop := l.stage(), ""
	if stage != "" {
		drop = ` | __error__=""`
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, stageMark, stage), errorMark, drop)
}

// rangeOf is a LogQL range covering w, in whole milliseconds (LogQL's
// finest unit), evaluated at w.End: (End-range, End] holds w.Start.
func rangeOf(w Window) string {
	ms := w.End.Sub(w.Start).Milliseconds() + 1
	return "[" + strconv.FormatInt(ms, 10) + "ms]"
}

// byList is a by (…) clause of the fields' aliases.
func (l *logql) byList(fs []string) string {
	a := make([]string, len(fs))
	for i, f := range fs {
		a[i] = l.name(f)
	}
	return "(" + strings.Join(a, ", ") + ")"
}

// aggregate writes one of a Group's aggregates as a metric query by the
// group's fields; base is the group's filter. AggFirst and AggLast give
// nanoseconds after w.Start: LogQL has no time of a line to aggregate, but
// a label_format template reads it, and unwrap takes the difference as a
// number, exact below 2^53 ns (104 days).
func (l *logql) aggregate(a Agg, by []string, base cond, w Window) (string, bool) {
	by2 := l.byList(by)
	r := rangeOf(w)
	switch a.Op {
	case AggCount:
		s, ok := l.metric(base)
		return "sum by " + by2 + " (count_over_time(" + s + " " + r + "))", ok
	case AggCountIf:
		s, ok := l.metric(l.join([]Filter{filterOf{base}, a.If}, false, " and "))
		return "sum by " + by2 + " (count_over_time(" + s + " " + r + "))", ok
	case AggDistinct:
		s, ok := l.metric(l.join([]Filter{filterOf{base}, anySet(a.Fields)}, false, " and "))
		inner := l.byList(append(append([]string(nil), by...), a.Fields...))
		return "count by " + by2 + " (sum by " + inner + " (count_over_time(" + s + " " + r + ")))", ok
	case AggFirst, AggLast:
		s, ok := l.metric(base)
		fn := "min"
		if a.Op == AggLast {
			fn = "max"
		}
		t := fmt.Sprintf(" | label_format idem_t=`{{ sub (__timestamp__ | unixEpochNanos) %d }}` | unwrap idem_t", w.Start.UnixNano())
		return fn + "_over_time(" + s + t + " " + r + ") by " + by2, ok
	}
	panic(fmt.Sprintf("logstore: no LogQL for aggregate %d", a.Op))
}

// filterOf carries a written condition back into a filter list.
type filterOf struct{ c cond }

func (filterOf) isFilter() {}

// intRange is a regular expression of the decimal integers from lo to hi
// (not negative): 500 to 599 is 5[0-9]{2}.
func intRange(lo, hi int) string {
	if lo < 0 || hi < lo {
		return "a^" // nothing
	}
	var alts []string
	for lo <= hi {
		// The largest block of 10^k numbers starting at lo within hi.
		step := 1
		for lo%(step*10) == 0 && lo+step*10-1 <= hi && len(strconv.Itoa(lo)) == len(strconv.Itoa(lo+step*10-1)) {
			step *= 10
		}
		end := lo + step - 1
		a, b := strconv.Itoa(lo), strconv.Itoa(end)
		var re strings.Builder
		for i := range a {
			if a[i] == b[i] {
				re.WriteByte(a[i])
			} else {
				re.WriteString("[" + string(a[i]) + "-" + string(b[i]) + "]")
			}
		}
		alts = append(alts, re.String())
		lo = end + 1
	}
	return strings.Join(alts, "|")
}
