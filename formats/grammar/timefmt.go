package grammar

import (
	"strings"
	"time"
)

// Dates a format writes in a layout of its own: C's strftime (Apache,
// lighttpd, Varnish, Envoy's START_TIME) and Java's SimpleDateFormat
// (Tomcat), turned into Go layouts. A layout with a part Go cannot read
// is not turned: its variable is then a Detail.

// strftimeLayout turns a strftime format into a Go layout, with the
// spaces a value holds; ok is false for a part Go cannot read.
func strftimeLayout(f string) (layout string, spaces int, ok bool) {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c != '%' || i+1 >= len(f) {
			if c == ' ' {
				spaces++
			}
			b.WriteByte(c)
			continue
		}
		i++
		d := f[i]
		// Envoy's %3f, %6f, %9f: that many digits of the second.
		if d >= '1' && d <= '9' && i+1 < len(f) && f[i+1] == 'f' {
			b.WriteString(strings.Repeat("0", int(d-'0')))
			i++
			continue
		}
		s, n, known := strftimePart(d)
		if !known {
			return "", 0, false
		}
		b.WriteString(s)
		spaces += n
	}
	return b.String(), spaces, true
}

func strftimePart(d byte) (string, int, bool) {
	switch d {
	case 'a':
		return "Mon", 0, true
	case 'A':
		return "Monday", 0, true
	case 'b', 'h':
		return "Jan", 0, true
	case 'B':
		return "January", 0, true
	case 'd':
		return "02", 0, true
	case 'H':
		return "15", 0, true
	case 'I':
		return "03", 0, true
	case 'M':
		return "04", 0, true
	case 'S':
		return "05", 0, true
	case 'm':
		return "01", 0, true
	case 'y':
		return "06", 0, true
	case 'Y':
		return "2006", 0, true
	case 'z':
		return "-0700", 0, true
	case 'Z':
		return "MST", 0, true
	case 'p':
		return "PM", 0, true
	case 'T':
		return "15:04:05", 0, true
	case 'D':
		return "01/02/06", 0, true
	case 'F':
		return "2006-01-02", 0, true
	case 'R':
		return "15:04", 0, true
	case 'j':
		return "002", 0, true
	case 'f':
		return "000000", 0, true // Envoy's %f: microseconds
	case '%':
		return "%", 0, true
	}
	return "", 0, false
}

// simpleDateLayout turns a Java SimpleDateFormat pattern into a Go layout,
// with the spaces a value holds; ok is false for a letter Go cannot read.
func simpleDateLayout(f string) (layout string, spaces int, ok bool) {
	var b strings.Builder
	for i := 0; i < len(f); {
		c := f[i]
		if c == '\'' {
			// Quoted text; '' is a quote.
			j := strings.IndexByte(f[i+1:], '\'')
			if j < 0 {
				return "", 0, false
			}
			text := f[i+1 : i+1+j]
			if text == "" {
				text = "'"
			}
			spaces += strings.Count(text, " ")
			b.WriteString(text)
			i += j + 2
			continue
		}
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			if c == ' ' {
				spaces++
			}
			b.WriteByte(c)
			i++
			continue
		}
		n := 1
		for i+n < len(f) && f[i+n] == c {
			n++
		}
		part, known := simpleDatePart(c, n)
		if !known {
			return "", 0, false
		}
		b.WriteString(part)
		i += n
	}
	return b.String(), spaces, true
}

func simpleDatePart(c byte, n int) (string, bool) {
	switch c {
	case 'y':
		if n == 2 {
			return "06", true
		}
		return "2006", true
	case 'M':
		switch {
		case n >= 4:
			return "January", true
		case n == 3:
			return "Jan", true
		case n == 2:
			return "01", true
		}
		return "1", true
	case 'd':
		if n >= 2 {
			return "02", true
		}
		return "2", true
	case 'H':
		return "15", true
	case 'h':
		if n >= 2 {
			return "03", true
		}
		return "3", true
	case 'm':
		if n >= 2 {
			return "04", true
		}
		return "4", true
	case 's':
		if n >= 2 {
			return "05", true
		}
		return "5", true
	case 'S':
		return strings.Repeat("0", n), true
	case 'a':
		return "PM", true
	case 'E':
		if n >= 4 {
			return "Monday", true
		}
		return "Mon", true
	case 'Z':
		return "-0700", true
	case 'X':
		switch n {
		case 1:
			return "Z07", true
		case 2:
			return "Z0700", true
		}
		return "Z07:00", true
	case 'z':
		return "MST", true
	}
	return "", false
}

// epochUnits are the epoch forms Apache, lighttpd, Varnish and Tomcat
// write with %{sec}t and the like.
var epochUnits = map[string]time.Duration{
	"sec": time.Second, "msec": time.Millisecond, "usec": time.Microsecond, "nsec": time.Nanosecond,
}

// fracUnits are their fractions of the second, written apart.
var fracUnits = map[string]time.Duration{
	"msec_frac": time.Millisecond, "usec_frac": time.Microsecond, "nsec_frac": time.Nanosecond,
}

// durationUnits are the units of %{UNIT}T (Apache, Tomcat, lighttpd,
// Varnish).
var durationUnits = map[string]time.Duration{
	"s": time.Second, "sec": time.Second, "ms": time.Millisecond, "msec": time.Millisecond,
	"us": time.Microsecond, "usec": time.Microsecond, "ns": time.Nanosecond, "nsec": time.Nanosecond,
}

// unitRank ranks durations by precision: the finer wins.
func unitRank(u time.Duration) int8 {
	switch u {
	case time.Nanosecond:
		return 4
	case time.Microsecond:
		return 3
	case time.Millisecond:
		return 2
	}
	return 1
}

// A time made of parts: a format may write one instant as several
// variables (Apache's %{%Y-%m-%dT%H:%M:%S}t.%{msec_frac}t%{%z}t, a date
// and a time apart, a zone after them). Where the parts follow one
// another with only a separator between them, they are composed into one
// variable whose layout is theirs and the separator's, so that the
// instant is read whole: its fraction and zone are never dropped, and two
// parts with nothing between them are not one unknown value.

// composeTime is prev, lit and next composed into one time, or nil where
// they are not parts of one: a date (Start or End in a layout) followed by
// another part of the same instant: a date or time by a separator, the
// fraction of its second after '.' or ',', its zone after nothing or a
// space.
func composeTime(prev *variable, lit string, next *variable) *variable {
	if prev.unknown || next.unknown || prev.split != nil || next.split != nil {
		return nil
	}
	at := prev.m.Field
	if at != Start && at != End || prev.m.Layout == "" || prev.m.Unit != 0 {
		return nil
	}
	var part string
	switch next.m.Field {
	case Start, End:
		if next.m.Field != at || next.m.Layout == "" || next.m.Unit != 0 || !timeSeparator(lit) {
			return nil
		}
		part = next.m.Layout
	case StartFrac, EndFrac:
		if (next.m.Field == StartFrac) != (at == Start) || lit != "." && lit != "," {
			return nil
		}
		if part = fracLayout(next.m.Unit); part == "" {
			return nil
		}
	case Zone:
		if lit != "" && lit != " " || next.m.Layout == "" {
			return nil
		}
		part = next.m.Layout
	default:
		return nil
	}
	t := *prev
	t.m.Layout = prev.m.Layout + lit + part
	t.m.Name = prev.m.Name + lit + next.m.Name
	t.spaces = prev.spaces + strings.Count(lit, " ") + next.spaces
	t.kind = kindAny
	return &t
}

// timeSeparator is a literal that may stand between a date and a time.
func timeSeparator(lit string) bool {
	switch lit {
	case "", " ", "T", ":", "-", "/", "_":
		return true
	}
	return false
}

// fracLayout is the Go layout of a fraction of a second written in unit
// (its digits, zero-padded, as msec_frac, usec_frac, nsec_frac write it).
func fracLayout(u time.Duration) string {
	switch u {
	case time.Millisecond:
		return "000"
	case time.Microsecond:
		return "000000"
	case time.Nanosecond:
		return "000000000"
	}
	return ""
}
