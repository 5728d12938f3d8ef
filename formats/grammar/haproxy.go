package grammar

import (
	"strconv"
	"strings"
	"time"
)

// HAProxy's log-format (configuration manual, 8.2.6): literal text and
// variables: %name, %{flags}name, %[sample fetch] and %{flags}[…]; %% is
// a percent sign and %{flags}o gives its flags to every variable after
// it. +Q quotes strings and addresses (numbers and dates never); +E
// escapes '"', '\' and ']' with a backslash.
//
// The format is given as in haproxy.cfg: the bare string (spaces escaped
// with '\', or runs of spaces merged into one, as HAProxy does), the
// quoted string, or the whole log-format line.
//
// %tr is when the request arrived (local time, milliseconds, no zone);
// %t and %T when the connection was accepted; %Ta is the request's
// active time and %Tt the session's total, in milliseconds; %ST may be
// -1 when the client left before any response; %ts/%tsc is the
// termination state that says who ended the session; %rc counts retries.
// Captured request headers (%hr, %[capture.req.hdr(N)]) are written by
// position: Options.Captures names them.

// haproxyType is how HAProxy types a variable: +Q quotes strings and
// addresses only.
type haproxyType uint8

const (
	hString haproxyType = iota
	hNumber
	hDate
	hAddress
)

type haproxyVar struct {
	typ  haproxyType
	make func(name string) *variable
}

func hKnown(t haproxyType, f Field, rank int8) haproxyVar {
	return haproxyVar{t, func(n string) *variable {
		v := known(n, f, rank)
		if t == hNumber {
			v.kind = kindInt
		}
		return v
	}}
}

func hDateAt(rank int8, layout string, spaces int) haproxyVar {
	return haproxyVar{hDate, func(n string) *variable {
		v := known(n, Start, rank)
		v.m.Layout, v.spaces = layout, spaces
		return v
	}}
}

func hMillis(rank int8) haproxyVar {
	return haproxyVar{hNumber, func(n string) *variable {
		v := known(n, Duration, rank)
		v.m.Unit, v.kind = time.Millisecond, kindInt
		return v
	}}
}

const (
	haproxyDate = "02/Jan/2006:15:04:05.000"
	haproxyCLF  = "02/Jan/2006:15:04:05 -0700"
)

var haproxyVars = map[string]haproxyVar{
	"ci":  hKnown(hAddress, Client, 1),
	"tr":  hDateAt(2, haproxyDate, 0),
	"trg": hDateAt(2, haproxyCLF, 1),
	"trl": hDateAt(2, haproxyCLF, 1),
	"t":   hDateAt(1, haproxyDate, 0),
	"T":   hDateAt(1, haproxyCLF, 1),
	"Tl":  hDateAt(1, haproxyCLF, 1),
	"Ts": {hNumber, func(n string) *variable {
		v := known(n, Start, 1)
		v.m.Unit, v.kind = time.Second, kindInt
		return v
	}},
	"ms": {hNumber, func(n string) *variable {
		v := known(n, StartFrac, 1)
		v.m.Unit, v.kind = time.Millisecond, kindInt
		return v
	}},
	"ST":  hKnown(hNumber, Status, 1),
	"Ta":  hMillis(2),
	"Tt":  hMillis(1),
	"HM":  hKnown(hString, Method, 1),
	"HU":  hKnown(hString, Path, 2),
	"HP":  hKnown(hString, Path, 1),
	"HPO": hKnown(hString, Path, 1),
	"ID":  hKnown(hString, RequestID, 1),
	"rc":  hKnown(hNumber, Retries, 1),
	"ts":  hKnown(hString, Termination, 1),
	"tsc": hKnown(hString, Termination, 1),
	"r": {hString, func(n string) *variable {
		v := known(n, RequestLine, 1)
		v.spaces = 2
		return v
	}},
}

// haproxyNone are HAProxy's variables of no use to idem, by type.
var haproxyNone = map[string]haproxyType{
	"B": hNumber, "U": hNumber, "TR": hNumber, "Tw": hNumber, "Tc": hNumber, "Tr": hNumber, "Th": hNumber, "Ti": hNumber,
	"Tq": hNumber, "Td": hNumber, "Tu": hNumber, "ac": hNumber, "fc": hNumber, "bc": hNumber, "sc": hNumber, "sq": hNumber,
	"bq": hNumber, "rt": hNumber, "lc": hNumber, "pid": hNumber, "cp": hNumber, "fp": hNumber, "bp": hNumber, "sp": hNumber,
	"fi": hAddress, "bi": hAddress, "si": hAddress, "b": hString, "s": hString, "f": hString, "ft": hString,
	"CC": hString, "CS": hString, "H": hString, "HQ": hString, "HV": hString, "hs": hString, "sslc": hString, "sslv": hString,
}

// haproxyFlags are the flags in force: a variable's own over %o's.
type haproxyFlags struct{ quote, escape bool }

func (f *haproxyFlags) apply(list string) error {
	for _, fl := range strings.Split(list, ",") {
		switch strings.TrimSpace(fl) {
		case "+Q":
			f.quote = true
		case "-Q":
			f.quote = false
		case "+E":
			f.escape = true
		case "-E":
			f.escape = false
		case "+X", "-X", "":
		default:
			return strconv.ErrSyntax
		}
	}
	return nil
}

// haproxyOwn are variables only HAProxy's language has.
var haproxyOwn = map[string]bool{
	"ci": true, "cp": true, "tr": true, "trg": true, "trl": true, "ST": true, "Ta": true, "Tt": true, "TR": true,
	"Tw": true, "Tc": true, "Tr": true, "ts": true, "tsc": true, "hr": true, "hrl": true, "hs": true, "ft": true,
	"HM": true, "HU": true, "HP": true, "HPO": true, "ID": true, "rc": true, "bq": true, "sq": true,
}

// haproxyLooking reports whether s holds a sample fetch (%[…]), flags
// (%{+Q}) or a variable only HAProxy has (%ci, %tr, %ST…).
func haproxyLooking(s string) bool {
	if strings.Contains(s, "%[") || strings.Contains(s, "%{+") || strings.Contains(s, "%{-") {
		return true
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			continue
		}
		k := i + 1
		for k < len(s) && (s[k] >= 'a' && s[k] <= 'z' || s[k] >= 'A' && s[k] <= 'Z') {
			k++
		}
		if haproxyOwn[s[i+1:k]] {
			return true
		}
	}
	return false
}

// compileHAProxy compiles a log-format.
func compileHAProxy(format string, opt Options) (*Program, error) {
	src := haproxySource(format)
	s := src.text
	b := &builder{syntax: haproxy}
	var global haproxyFlags
	escaped := false
	for i := 0; i < len(s); {
		start := b.next(s, i, '%', true)
		if start < 0 {
			break
		}
		i = start + 1
		flags := global
		if i < len(s) && s[i] == '{' {
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return nil, syntaxErrorAt(haproxy, format, src.at(i), "'}' closing %{")
			}
			if flags.apply(s[i+1:i+end]) != nil {
				return nil, syntaxErrorAt(haproxy, format, src.at(i+1), "flags +Q, -Q, +E, -E or +X")
			}
			i += end + 1
		}
		var v *variable
		typ := hString
		switch {
		case i < len(s) && s[i] == '[':
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				return nil, syntaxErrorAt(haproxy, format, src.at(i), "']' closing %[")
			}
			v = haproxySample(s[start:i+end+1], s[i+1:i+end], opt)
			i += end + 1
		default:
			k := i
			for k < len(s) && (s[k] >= 'a' && s[k] <= 'z' || s[k] >= 'A' && s[k] <= 'Z') {
				k++
			}
			if k == i {
				return nil, syntaxErrorAt(haproxy, format, src.at(i), "a variable name or [sample] after '%'")
			}
			name := s[i:k]
			i = k
			if name == "o" {
				global = flags
				continue
			}
			if hv, ok := haproxyVars[name]; ok {
				v, typ = hv.make("%"+name), hv.typ
			} else if t, ok := haproxyNone[name]; ok {
				v, typ = known("%"+name, none, 0), t
			} else if name == "hr" && len(opt.Captures) > 0 {
				v = haproxyCaptures("%hr", opt.Captures)
				b.literal("{")
				b.variable(v)
				b.literal("}")
				continue
			} else {
				v = unknownVar("%" + name)
			}
		}
		escaped = escaped || flags.escape
		quoted := flags.quote && (typ == hString || typ == hAddress)
		if quoted {
			b.literal(`"`)
		}
		b.variable(v)
		if quoted {
			b.literal(`"`)
		}
	}
	if escaped {
		b.esc = escBackslash
	}
	return b.program(format)
}

// haproxySample is what a sample fetch logs: a header, the unique id, a
// captured header by its position, or a Detail. A fetch with converters
// (",lower", ",base64") logs a value transformed: a Detail.
func haproxySample(written, expr string, opt Options) *variable {
	fetch, conv := expr, ""
	if k := strings.IndexByte(expr, ')'); k >= 0 {
		fetch, conv = expr[:k+1], expr[k+1:]
	} else if k := strings.IndexByte(expr, ','); k >= 0 {
		fetch, conv = expr[:k], expr[k:]
	}
	if strings.TrimSpace(conv) != "" {
		return unknownVar(written)
	}
	name, args, _ := strings.Cut(strings.TrimSuffix(fetch, ")"), "(")
	arg, _, _ := strings.Cut(args, ",")
	switch strings.TrimSpace(name) {
	case "req.hdr", "req.fhdr", "hdr", "fhdr":
		return requestHeader(written, arg)
	case "res.hdr", "res.fhdr", "shdr":
		return responseHeader(written, arg)
	case "capture.req.hdr":
		n, err := strconv.Atoi(strings.TrimSpace(arg))
		if err == nil && n >= 0 && n < len(opt.Captures) {
			return requestHeader(written, opt.Captures[n])
		}
	case "unique-id":
		return known(written, RequestID, 1)
	case "method":
		return known(written, Method, 1)
	case "path":
		return known(written, Path, 1)
	case "url":
		return known(written, Path, 2)
	case "status":
		v := known(written, Status, 1)
		v.kind = kindInt
		return v
	case "src":
		return known(written, Client, 1)
	}
	return unknownVar(written)
}

// haproxyCaptures reads %hr's captured request headers, "a|b|c", each by
// the name the config gives its position.
func haproxyCaptures(written string, names []string) *variable {
	vars := make([]*variable, len(names))
	for i, n := range names {
		vars[i] = requestHeader(written+"["+n+"]", n)
	}
	return &variable{m: meaning{Name: written}, split: func(value string, v *Values) {
		for i, part := range strings.Split(value, "|") {
			if i >= len(vars) {
				break
			}
			part = strings.TrimSpace(part)
			if vars[i].unknown {
				v.detail(vars[i].m.Name, part)
			} else {
				v.set(&vars[i].m, part)
			}
		}
	}}
}

// haproxySource reads the format out of a log-format line or a quoted
// argument, as HAProxy's configuration parser does: '\' escapes the next
// byte (and with a line break, continues the line), unquoted runs of
// spaces are one separator.
func haproxySource(format string) source {
	s := strings.TrimSpace(format)
	off := strings.Index(format, s)
	if rest, ok := strings.CutPrefix(s, "log-format"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
		trimmed := strings.TrimLeft(rest, " \t")
		off += len(s) - len(trimmed)
		s = trimmed
	}
	var text strings.Builder
	var orig []int
	var quote byte
	space := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] == '\n' || s[i] == '\r' {
				for i+1 < len(s) && strings.IndexByte(" \t\r\n", s[i+1]) >= 0 {
					i++
				}
				continue
			}
			if space {
				text.WriteByte(' ')
				orig = append(orig, off+i-2)
				space = false
			}
			text.WriteByte(s[i])
			orig = append(orig, off+i-1)
			continue
		case quote != 0 && c == quote:
			quote = 0
			continue
		case quote == 0 && (c == '"' || c == '\''):
			quote = c
			continue
		case quote == 0 && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			space = text.Len() > 0
			continue
		}
		if space {
			text.WriteByte(' ')
			orig = append(orig, off+i-1)
			space = false
		}
		text.WriteByte(c)
		orig = append(orig, off+i)
	}
	return source{text: text.String(), orig: orig}
}
