package grammar

import (
	"strings"
	"time"
)

// Apache httpd's LogFormat (mod_log_config), and the servers that copied
// its language with meanings of their own: lighttpd's accesslog.format
// and varnishncsa's -F. A directive is %, optional status conditions
// (%400,501{…}i, %!200{…}i: a value written only for those statuses,
// "-" otherwise), optional < or >, an optional {argument}, and a letter.
//
// What differs between them, and why each is its own syntax:
//
//   - %t is when the request arrived in Apache and Varnish; in lighttpd
//     it is when the log was written (its end), unless the format says
//     %{begin:…}t. Apache's %{end:…}t is the end too.
//   - %D is the duration in microseconds in all three; %T in seconds,
//     %{ms}T, %{us}T in the unit they name.
//   - %>s is the final status, %s the original one (an internal redirect
//     may differ); lighttpd and Varnish write one status either way.
//   - %{UNIQUE_ID}e is mod_unique_id's id of the request.
//
// The format is the string, or Apache's directive (LogFormat "…" name);
// \" in it is a quote, as in Apache's config. The named formats common,
// combined, vhost_combined, referer and agent are Debian's apache2.conf's.

// apacheNamed are the formats Apache's stock configuration names.
var apacheNamed = map[string]string{
	"common":         `%h %l %u %t "%r" %>s %b`,
	"combined":       `%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-agent}i"`,
	"vhost_combined": `%v:%p %h %l %u %t "%r" %>s %O "%{Referer}i" "%{User-Agent}i"`,
	"referer":        `%{Referer}i -> %U`,
	"agent":          `%{User-agent}i`,
}

// directive is one %-directive of the Apache family.
type directive struct {
	arg    string // {argument}, without the braces
	hasArg bool
	mod    byte   // '<' or '>', 0 for none
	letter string // the letter (two after '^': ^ti, ^to)
	text   string // the directive as written, for names
}

// compileApache compiles an Apache, lighttpd or Varnish format string.
func compileApache(syn Syntax, format string) (*Program, error) {
	src := percentSource(format, "LogFormat")
	if named, ok := apacheNamed[strings.TrimSpace(src.text)]; ok {
		src = source{text: named}
	}
	return compilePercent(syn, format, src, func(d directive) *variable { return apacheVariable(syn, d) })
}

// apacheVariable is what an Apache, lighttpd or Varnish directive means.
func apacheVariable(syn Syntax, d directive) *variable {
	switch d.letter {
	case "t":
		return percentTime(syn, d, strftimeLayout)
	case "D":
		return percentDuration(d.text, time.Microsecond)
	case "T":
		return percentElapsed(d)
	case "s":
		v := known(d.text, Status, 1)
		switch {
		case syn != Apache:
		case d.mod == '>':
			v.m.Rank = 2
		case d.mod == '<':
			v.m.Rank = 0
		}
		v.kind = kindInt
		return v
	case "a":
		if d.arg == "c" {
			return typed(known(d.text, Client, 1), kindToken)
		}
		return typed(known(d.text, Client, 2), kindToken)
	case "e":
		if d.hasArg {
			return environment(d.text, d.arg)
		}
	case "x":
		if syn == varnish && d.hasArg {
			return unknownVar(d.text)
		}
	}
	return percentShared(d)
}

// percentShared is what the directives the Apache family and Tomcat
// share mean.
func percentShared(d directive) *variable {
	if d.hasArg {
		switch d.letter {
		case "i":
			return requestHeader(d.text, d.arg)
		case "o":
			return responseHeader(d.text, d.arg)
		case "C", "c":
			return known(d.text, secret, 0) // a cookie: counted, never kept
		case "p":
			return known(d.text, none, 0)
		}
		return unknownVar(d.text)
	}
	switch d.letter {
	case "h":
		return typed(known(d.text, Client, 1), kindToken)
	case "r":
		v := known(d.text, RequestLine, 1)
		v.spaces = 2
		return v
	case "m":
		return typed(known(d.text, Method, 1), kindToken)
	case "U":
		return typed(known(d.text, Path, 1), kindToken)
	case "X":
		return typed(known(d.text, ConnStatus, 1), kindToken)
	case "b", "B", "O", "I", "S", "k", "P", "F":
		// Byte counts, keep-alive counts, a pid, Tomcat's commit time.
		return typed(known(d.text, none, 0), kindInt)
	case "l", "u", "H", "p", "v", "V", "A", "L":
		return typed(known(d.text, none, 0), kindToken)
	case "q", "R", "f":
		return known(d.text, none, 0)
	}
	return unknownVar(d.text)
}

// percentElapsed is %T, in seconds, or %{UNIT}T.
func percentElapsed(d directive) *variable {
	u := time.Second
	if d.hasArg {
		var ok bool
		if u, ok = durationUnits[d.arg]; !ok {
			return unknownVar(d.text)
		}
	}
	return percentDuration(d.text, u)
}

// percentDuration is a duration directive in unit u.
func percentDuration(name string, u time.Duration) *variable {
	v := known(name, Duration, unitRank(u))
	v.m.Unit, v.kind = u, kindInt
	return v
}

// percentTime is %t or %{…}t: when the request started (or ended: the
// syntax's default, or begin:/end:), in the default bracketed form, an
// epoch unit, a fraction, or a layout of the syntax's own (layoutOf).
func percentTime(syn Syntax, d directive, layoutOf func(string) (string, int, bool)) *variable {
	at, frac := Start, StartFrac
	if syn == lighttpd {
		at, frac = End, EndFrac
	}
	arg := d.arg
	if rest, ok := strings.CutPrefix(arg, "begin:"); ok {
		arg, at, frac = rest, Start, StartFrac
	} else if rest, ok := strings.CutPrefix(arg, "end:"); ok {
		arg, at, frac = rest, End, EndFrac
	}
	if !d.hasArg || arg == "" {
		// The Common Log Format's [10/Oct/2000:13:55:36 -0700]; the
		// brackets are literals around it (see compilePercent).
		v := known(d.text, at, 1)
		v.spaces = 1
		return v
	}
	if u, ok := epochUnits[arg]; ok {
		v := known(d.text, at, 2)
		v.m.Unit, v.kind = u, kindInt
		return v
	}
	if u, ok := fracUnits[arg]; ok {
		v := known(d.text, frac, 1)
		v.m.Unit, v.kind = u, kindInt
		return v
	}
	layout, spaces, ok := layoutOf(arg)
	if !ok {
		return unknownVar(d.text)
	}
	if zoneOnly(layout) {
		v := known(d.text, Zone, 1)
		v.m.Layout = layout
		return v
	}
	v := known(d.text, at, 1)
	v.m.Layout, v.spaces = layout, spaces
	return v
}

// zoneOnly reports whether a layout writes a zone and nothing else (Apache's
// %{%z}t beside a date written apart).
func zoneOnly(layout string) bool {
	switch layout {
	case "-0700", "MST", "Z07:00", "Z0700", "-07:00":
		return true
	}
	return false
}

// percentSource takes the format out of a directive that names it first
// (Apache's LogFormat "…" nickname, CustomLog path "…"), or the string as
// it is; \" is a quote either way.
func percentSource(format, word string) source {
	s := format
	off := 0
	trimmed := strings.TrimSpace(format)
	for _, w := range []string{word, "CustomLog"} {
		if rest, ok := strings.CutPrefix(trimmed, w); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			// The first quoted argument is the format.
			q := strings.IndexByte(format, '"')
			if q < 0 {
				break
			}
			end := q + 1
			for end < len(format) && format[end] != '"' {
				if format[end] == '\\' {
					end++
				}
				end++
			}
			s, off = format[q+1:min(end, len(format))], q+1
			break
		}
	}
	var text strings.Builder
	orig := make([]int, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			var out byte
			switch s[i+1] {
			case '"', '\\':
				out = s[i+1]
			case 'n':
				out = '\n'
			case 't':
				out = '\t'
			}
			if out != 0 {
				text.WriteByte(out)
				orig = append(orig, off+i)
				i++
				continue
			}
		}
		text.WriteByte(c)
		orig = append(orig, off+i)
	}
	return source{text: text.String(), orig: orig}
}

// compilePercent compiles the %-language of the Apache family and
// Tomcat, with meaning saying what each directive means.
func compilePercent(syn Syntax, format string, src source, meaning func(directive) *variable) (*Program, error) {
	b := &builder{syntax: syn, esc: escBackslash}
	s := src.text
	for i := 0; i < len(s); {
		start := b.next(s, i, '%', true)
		if start < 0 {
			break
		}
		i = start + 1
		var d directive
		// Status conditions: !, digits and commas.
		for i < len(s) && (s[i] == '!' || s[i] == ',' || s[i] >= '0' && s[i] <= '9') {
			i++
		}
		for i < len(s) && (s[i] == '<' || s[i] == '>') {
			d.mod = s[i]
			i++
		}
		if i < len(s) && s[i] == '{' {
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return nil, syntaxErrorAt(syn, format, src.at(i), "'}' closing %{")
			}
			d.arg, d.hasArg = s[i+1:i+end], true
			i += end + 1
		}
		switch {
		case i < len(s) && s[i] == '^' && i+2 < len(s):
			d.letter = s[i : i+3]
			i += 3
		case i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z'):
			d.letter = s[i : i+1]
			i++
		default:
			return nil, syntaxErrorAt(syn, format, src.at(i), "a directive letter after '%'")
		}
		d.text = s[start:i]
		v := meaning(d)
		// %t without a format is the bracketed Common Log Format date.
		bracketed := d.letter == "t" && (!d.hasArg || d.arg == "begin:" || d.arg == "end:") && !v.unknown
		if bracketed {
			b.literal("[")
		}
		b.variable(v)
		if bracketed {
			b.literal("]")
		}
	}
	return b.program(format)
}
