package logstore

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// logsql writes the plan's questions in LogsQL. scope is --query's
// filter with a space after it, put before each subquery, which the
// outer query's does not reach.
type logsql struct{ scope string }

// query writes a Group or a Lines.
func (l logsql) query(q Query) string {
	switch q := q.(type) {
	case Group:
		return l.group(q)
	case Lines:
		return l.lines(q)
	}
	panic(fmt.Sprintf("logstore: no LogsQL for %T", q))
}

// lines is the filter, less Except, with the fields asked for.
func (l logsql) lines(q Lines) string {
	s := l.filter(q.Filter, false)
	if q.Except != nil {
		s = "(" + s + ") -" + l.filter(q.Except, true)
	}
	if len(q.Fields) > 0 {
		s += " | fields _time, " + quoteList(q.Fields)
	}
	return s
}

// count counts the lines a filter selects, as n.
func (l logsql) count(f Filter) string { return l.filter(f, false) + " | stats count() as n" }

// group asks in two stages, one request: a bare count() by the groups
// finds those with more than one line (and Also's lines name theirs),
// and only their lines are grouped with the aggregates, which on a
// million keys is the costly part. That is three times faster on two
// million lines.
func (l logsql) group(g Group) string {
	var narrow Or
	for _, f := range g.By {
		narrow = append(narrow, Member{Field: f, Lines: g.Lines, Part: g.Part, By: g.By, Over: 1})
		if g.Also != nil {
			narrow = append(narrow, Member{Field: f, Lines: append(slices.Clone(g.Lines), g.Also), Part: g.Part})
		}
	}
	aggs := make([]string, len(g.Aggs))
	for i, a := range g.Aggs {
		switch a.Op {
		case AggCount:
			aggs[i] = "count()"
		case AggCountIf:
			aggs[i] = "count() if (" + l.filter(a.If, false) + ")"
		case AggDistinct:
			aggs[i] = "count_uniq(" + quoteList(a.Fields) + ")"
		case AggFirst:
			aggs[i] = "min(_time)"
		case AggLast:
			aggs[i] = "max(_time)"
		}
		aggs[i] += " as " + a.Name
	}
	keep := make([]string, len(g.Keep))
	for i, k := range g.Keep {
		keep[i] = k.Agg + ":>" + strconv.Itoa(k.N)
	}
	return l.filter(append(slices.Clone(g.Lines), narrow), false) + " | stats by (" + quoteList(g.By) + ") " +
		strings.Join(aggs, ", ") + " | filter " + strings.Join(keep, " or ")
}

// filter writes f; nested, an And or an Or goes in parentheses.
func (l logsql) filter(f Filter, nested bool) string {
	switch f := f.(type) {
	case All:
		return "*"
	case Set:
		return quoteField(f.Field) + ":*"
	case Eq:
		return quoteField(f.Field) + ":=" + strconv.Quote(f.Value)
	case In:
		return inList(f.Field, f.Values)
	case Range:
		return fmt.Sprintf("%s:range[%d, %d]", quoteField(f.Field), f.Min, f.Max)
	case Not:
		return "-" + l.filter(f.Filter, true)
	case And:
		return l.join(f, " ", nested)
	case Or:
		return l.join(f, " or ", nested)
	case Member:
		return l.member(f)
	}
	panic(fmt.Sprintf("logstore: no LogsQL for %T", f))
}

func (l logsql) join(fs []Filter, sep string, nested bool) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = l.filter(f, true)
	}
	s := strings.Join(parts, sep)
	if nested {
		s = "(" + s + ")"
	}
	return s
}

// member is a subquery: in(...) over the values its lines give. A value
// is kept only where the field is set (an empty one would select every
// line without the field), which In on the field itself says already.
func (l logsql) member(m Member) string {
	f := quoteField(m.Field)
	s := f + ":in(" + l.scope + l.filter(m.Lines, false) + l.split(m.Part)
	if len(m.By) > 0 {
		s += " | stats by (" + quoteList(m.By) + ") count() as c | filter c:>" + strconv.Itoa(m.Over)
	}
	if in, ok := m.Lines.(In); !ok || in.Field != m.Field {
		s += " | filter " + f + ":*"
	}
	return s + " | fields " + f + ")"
}

// split keeps the lines of one part, by a hash of the field.
func (l logsql) split(p Part) string {
	if p.Of < 2 {
		return ""
	}
	return fmt.Sprintf(" | hash(%s) as idem_h | math idem_h %% %d as idem_p | filter idem_p:=%d", quoteField(p.Field), p.Of, p.Index)
}
