package grammar

import (
	"encoding/hex"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Program is a compiled format string: it reads the lines that format
// writes. It is safe for concurrent use.
type Program struct {
	syntax Syntax
	ops    []op
	tail   string // the literal after the last variable
	esc    escaping
	key    string // the longest literal between values, looked for first by Could
	// json, when set, reads a JSON object whose members' values are
	// each read by their own Program (Envoy's json_format).
	json *jsonProgram
}

// Syntax is the language the program was compiled from.
func (p *Program) Syntax() Syntax { return p.syntax }

// meanings lists what the format's variables mean, in order: for
// documentation and for checking a format logs what idem joins on.
func (p *Program) meanings() []meaning {
	if p.json != nil {
		return p.json.meanings()
	}
	out := make([]meaning, 0, len(p.ops))
	for _, o := range p.ops {
		out = append(out, o.v.m)
	}
	return out
}

// op is a literal and the variable that follows it.
type op struct {
	lit string
	v   *variable
	// bare says no quote or bracket encloses the value: a format writes
	// such a value as something ("-" for nothing), never as nothing.
	bare bool
}

// variable is one variable of a compiled format.
type variable struct {
	m meaning
	// unknown says the syntax does not know it: its value is a Detail.
	unknown bool
	kind    valueKind
	// spaces is how many spaces its value holds where its grammar fixes
	// it ($time_local's one, a request line's two), so that a space
	// after it in the format is found past them.
	spaces int
	// list says its value may be a list whose separators hold spaces
	// (nginx's $upstream_status "502, 201", "502 : 201" across upstream
	// groups): a space after ',' or around ':' is not the next literal's.
	list bool
	// trim says spaces before its value pad it to a width (squid's
	// %6tr), and are not part of it.
	trim bool
	// split reads a value made of several (HAProxy's captured headers).
	split func(value string, v *Values)
}

// valueKind is what a variable's grammar says its values look like.
type valueKind uint8

const (
	kindAny    valueKind = iota
	kindInt              // an integer, perhaps signed (HAProxy's -1, +120)
	kindNumber           // a decimal number (nginx's 0.005)
	kindToken            // no spaces (an address, a method, a user name)
)

// escaping is how a syntax writes the bytes a value may not hold raw.
type escaping uint8

const (
	escNone      escaping = iota // written as they are
	escBackslash                 // \" \\ \n \t \xHH (Apache, Tomcat, lighttpd, Varnish)
	escNginx                     // \xHH (nginx's default escaping)
	escJSON                      // JSON's string escapes (nginx's escape=json)
)

// Read reads line into v (which it resets); a line the format did not
// write is a *MismatchError.
func (p *Program) Read(line string, v *Values) error {
	v.reset()
	if p.json != nil {
		return p.json.read(line, v)
	}
	return p.readText(line, v)
}

func (p *Program) readText(line string, v *Values) error {
	i := 0
	for k := range p.ops {
		o := &p.ops[k]
		if !strings.HasPrefix(line[i:], o.lit) {
			return mismatch(line, i, strconv.Quote(o.lit))
		}
		i += len(o.lit)
		if o.v.trim {
			for i < len(line) && line[i] == ' ' {
				i++
			}
		}
		var end int
		if k == len(p.ops)-1 {
			// The last value runs to the tail, which ends the line.
			if !strings.HasSuffix(line[i:], p.tail) {
				return mismatch(line, len(line), strconv.Quote(p.tail)+" at the end of the line")
			}
			end = len(line) - len(p.tail)
		} else {
			end = p.valueEnd(line, i, o.v, p.ops[k+1].lit)
			if end < 0 {
				return mismatch(line, i, o.v.m.Name+" followed by "+strconv.Quote(p.ops[k+1].lit))
			}
		}
		val := line[i:end]
		if !o.v.kind.accepts(val) {
			return mismatch(line, i, o.v.kind.String()+" for "+o.v.m.Name)
		}
		if val == "" && o.bare {
			v.unwritten++
		}
		p.store(o.v, val, v)
		i = end
	}
	if len(p.ops) == 0 && line != p.tail {
		return mismatch(line, 0, strconv.Quote(p.tail))
	}
	return nil
}

// Could reports whether the program could have written line: its
// literals in order and its tail at the end. Reading tries each value's
// end against them; a line without them is refused here for a few scans,
// and without a *MismatchError made (a program in JSON answers yes).
func (p *Program) Could(line string) bool {
	if p.json != nil {
		return true
	}
	if !strings.HasSuffix(line, p.tail) || !strings.Contains(line, p.key) {
		return false // the tail, then one scan for the rarest literal, refuse most lines
	}
	i := 0
	for k := range p.ops {
		lit := p.ops[k].lit
		if k == 0 {
			if !strings.HasPrefix(line, lit) {
				return false
			}
			i = len(lit)
			continue
		}
		j := strings.Index(line[i:], lit)
		if j < 0 {
			return false
		}
		i += j + len(lit)
	}
	return len(line)-i >= len(p.tail)
}

// Key is the literal Could looks for first: programs with the same key
// refuse the same lines.
func (p *Program) Key() string { return p.key }

// valueEnd is where the value starting at line[i] ends: at the first next
// past the spaces the variable holds, skipping escaped bytes; -1 when
// next does not follow.
func (p *Program) valueEnd(line string, i int, v *variable, next string) int {
	j := i
	if (v.spaces > 0 || v.list) && strings.HasPrefix(line[i:], "-"+next) {
		return i + 1 // "-", not logged: it holds none of its spaces
	}
	if v.list && next[0] == ' ' {
		return listEnd(line, i, next)
	}
	if v.spaces > 0 && next[0] == ' ' {
		for n := 0; n < v.spaces; n++ {
			k := strings.IndexByte(line[j:], ' ')
			if k < 0 {
				return -1
			}
			j += k + 1
		}
	}
	if p.esc == escNone {
		k := strings.Index(line[j:], next)
		if k < 0 {
			return -1
		}
		return j + k
	}
	c := next[0]
	for j < len(line) {
		switch line[j] {
		case '\\':
			j += 2
			continue
		case c:
			if strings.HasPrefix(line[j:], next) {
				return j
			}
		}
		j++
	}
	return -1
}

// listEnd is where a list value starting at line[i] ends: at the first
// next whose space is no list separator's.
func listEnd(line string, i int, next string) int {
	for j := i; j < len(line); {
		k := strings.Index(line[j:], next)
		if k < 0 {
			return -1
		}
		j += k
		if j > i && (line[j-1] == ',' || line[j-1] == ':') || strings.HasPrefix(line[j:], " : ") {
			j++ // ", " and " : " separate the list's members
			continue
		}
		return j
	}
	return -1
}

// store keeps a value under its meaning, decoded.
func (p *Program) store(vr *variable, val string, v *Values) {
	if strings.IndexByte(val, '\\') >= 0 {
		val = unescape(p.esc, val)
	}
	switch {
	case vr.split != nil:
		vr.split(val, v)
	case vr.unknown:
		v.detail(vr.m.Name, val)
	default:
		v.set(&vr.m, val)
	}
}

func (k valueKind) accepts(s string) bool {
	if k == kindAny || s == "-" || s == "" {
		return true
	}
	if k == kindToken {
		return strings.IndexByte(s, ' ') < 0
	}
	if s[0] == '-' || s[0] == '+' {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	dot := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
		case c == '.' && k == kindNumber && !dot:
			dot = true
		default:
			return false
		}
	}
	return true
}

func (k valueKind) String() string {
	switch k {
	case kindInt:
		return "an integer"
	case kindNumber:
		return "a number"
	case kindToken:
		return "a value without spaces"
	}
	return "a value"
}

// unescape decodes a value written with esc.
func unescape(esc escaping, s string) string {
	if esc == escNone {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		e := s[i+1]
		switch {
		case e == 'x' && i+3 < len(s) && isHex(s[i+2]) && isHex(s[i+3]):
			h, _ := hex.DecodeString(s[i+2 : i+4])
			b.Write(h)
			i += 3
		case esc == escNginx:
			b.WriteByte(c) // nginx escapes nothing else
		case e == 'u' && esc == escJSON && i+5 < len(s):
			n, err := strconv.ParseUint(s[i+2:i+6], 16, 32)
			if err != nil {
				b.WriteByte(c)
				continue
			}
			if r := rune(n); utf8.ValidRune(r) {
				b.WriteRune(r)
			} else {
				b.WriteRune(utf8.RuneError)
			}
			i += 5
		default:
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			default:
				b.WriteByte(e) // \" \\ \/ \]
			}
			i++
		}
	}
	return b.String()
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// builder assembles a Program from a syntax's pieces, literal by
// variable.
type builder struct {
	syntax Syntax
	ops    []op
	lit    strings.Builder
	esc    escaping
}

func (b *builder) literal(s string) { b.lit.WriteString(s) }

// next writes s[i:] as literal text up to the next c that starts a
// variable, and returns that c's index, or -1 when none follows. With
// doubled, cc is a literal c (Apache's and HAProxy's %%).
func (b *builder) next(s string, i int, c byte, doubled bool) int {
	for {
		j := strings.IndexByte(s[i:], c)
		if j < 0 {
			b.literal(s[i:])
			return -1
		}
		b.literal(s[i : i+j])
		i += j
		if !doubled || i+1 >= len(s) || s[i+1] != c {
			return i
		}
		b.literal(s[i : i+1])
		i += 2
	}
}

// variable adds v after the literal written so far. Two variables with
// nothing between them cannot be told apart: they are kept together, as
// one Detail named by both.
func (b *builder) variable(v *variable) {
	lit := b.lit.String()
	if len(b.ops) > 0 {
		if t := composeTime(b.ops[len(b.ops)-1].v, lit, v); t != nil {
			b.lit.Reset()
			b.ops[len(b.ops)-1].v = t
			return
		}
	}
	b.lit.Reset()
	if lit == "" && len(b.ops) > 0 {
		prev := b.ops[len(b.ops)-1].v
		b.ops[len(b.ops)-1].v = &variable{m: meaning{Name: prev.m.Name + v.m.Name}, unknown: true, spaces: prev.spaces + v.spaces}
		return
	}
	b.ops = append(b.ops, op{lit: lit, v: v})
}

// program is the Program built, or a syntaxError when it has no
// variable at all (a format string that logs nothing of the request).
func (b *builder) program(format string) (*Program, error) {
	if len(b.ops) == 0 {
		return nil, &syntaxError{Syntax: b.syntax, Column: len(format) + 1, Want: "a variable somewhere in the format"}
	}
	tail := b.lit.String()
	for k := range b.ops {
		next := tail
		if k+1 < len(b.ops) {
			next = b.ops[k+1].lit
		}
		b.ops[k].bare = !(enclosing(b.ops[k].lit, true) && enclosing(next, false))
	}
	return &Program{syntax: b.syntax, ops: b.ops, tail: tail, esc: b.esc}, nil
}

// enclosing reports whether lit opens (before a value) or closes (after
// it) a quoted or bracketed value.
func enclosing(lit string, before bool) bool {
	if lit == "" {
		return false
	}
	if before {
		return strings.IndexByte(`"'[{(`, lit[len(lit)-1]) >= 0
	}
	return strings.IndexByte(`"']})`, lit[0]) >= 0
}

// known is a variable of the syntax with its meaning.
func known(name string, f Field, rank int8) *variable {
	return &variable{m: meaning{Field: f, Rank: rank, Name: name}}
}

// typed is v whose values are of kind k, as its grammar says.
func typed(v *variable, k valueKind) *variable {
	v.kind = k
	return v
}

// unknownVar is a variable the syntax does not know: a Detail.
func unknownVar(name string) *variable {
	return &variable{m: meaning{Name: name}, unknown: true}
}
