package replay

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// shellParse reads a command line as bash does, for the part of bash's
// grammar that Curl writes: blanks between words, a backslash-newline
// continuation, single quotes, ANSI-C quotes ($'…') with all of bash's
// escapes, a backslash before one character, and a pipeline (|). It
// refuses the rest (an unquoted $, quote, glob or operator, a newline
// that ends the command), so that a command that parses here means what
// it says. It returns the pipeline's commands, each a list of words.
func shellParse(s string) ([][]string, error) {
	var cmds [][]string
	var words []string
	i := 0
	for {
		// Blanks, and continuations, between words.
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || strings.HasPrefix(s[i:], "\\\n")) {
			if s[i] == '\\' {
				i++
			}
			i++
		}
		if i == len(s) || s[i] == '|' {
			if len(words) == 0 {
				return nil, errors.New("an empty command")
			}
			cmds = append(cmds, words)
			words = nil
			if i == len(s) {
				return cmds, nil
			}
			i++
			continue
		}
		w, n, err := shellWord(s[i:])
		if err != nil {
			return nil, fmt.Errorf("at byte %d: %w", i, err)
		}
		words = append(words, w)
		i += n
	}
}

// shellWord reads one word from the start of s: its value and its length.
func shellWord(s string) (string, int, error) {
	var b strings.Builder
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '|':
			return b.String(), i, nil
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return "", 0, errors.New("an unterminated single quote")
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 2
		case strings.HasPrefix(s[i:], "$'"):
			n, err := ansiC(s[i+2:], &b)
			if err != nil {
				return "", 0, err
			}
			i += 2 + n
		case c == '\\' && i+1 < len(s):
			if s[i+1] != '\n' { // a continuation joins the word's two halves
				b.WriteByte(s[i+1])
			}
			i += 2
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', strings.IndexByte("-_./@%:,+=", c) >= 0:
			b.WriteByte(c)
			i++
		default:
			return "", 0, fmt.Errorf("%q unquoted", c)
		}
	}
	return b.String(), i, nil
}

// ansiC decodes the body of a $'…' word up to its closing quote, as bash
// does in a UTF-8 locale, and returns the length read, quote included. A
// NUL ends the string: bash drops the rest of it.
func ansiC(s string, b *strings.Builder) (int, error) {
	cut := false
	out := func(p []byte) {
		for _, c := range p {
			if c == 0 {
				cut = true
			}
			if !cut {
				b.WriteByte(c)
			}
		}
	}
	digits := func(i, max, base int) (int, int) {
		n, v := 0, 0
		for n < max && i+n < len(s) {
			d, err := strconv.ParseUint(s[i+n:i+n+1], base, 8)
			if err != nil {
				break
			}
			v = v*base + int(d)
			n++
		}
		return v, n
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c == '\'' {
			return i + 1, nil
		}
		if c != '\\' {
			out([]byte{c})
			i++
			continue
		}
		if i+1 == len(s) {
			break
		}
		e := s[i+1]
		i += 2
		if simple := map[byte]byte{'a': 7, 'b': 8, 'e': 27, 'E': 27, 'f': 12, 'n': '\n', 'r': '\r', 't': '\t', 'v': 11,
			'\\': '\\', '\'': '\'', '"': '"', '?': '?'}; simple[e] != 0 {
			out([]byte{simple[e]})
			continue
		}
		switch e {
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v, n := digits(i-1, 3, 8)
			out([]byte{byte(v)})
			i += n - 1
		case 'x':
			v, n := digits(i, 2, 16)
			if n == 0 {
				return 0, errors.New(`\x without a digit`)
			}
			out([]byte{byte(v)})
			i += n
		case 'u', 'U':
			max := 4
			if e == 'U' {
				max = 8
			}
			v, n := digits(i, max, 16)
			if n == 0 || !utf8.ValidRune(rune(v)) {
				return 0, fmt.Errorf(`\%c%s is not a character`, e, s[i:i+n])
			}
			out(utf8.AppendRune(nil, rune(v)))
			i += n
		default:
			return 0, fmt.Errorf(`the escape \%c`, e)
		}
	}
	return 0, errors.New("an unterminated $'")
}

// printfB decodes printf's %b argument, for the escapes Curl writes: \\
// and \0nnn. It refuses any other escape.
func printfB(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		switch {
		case strings.HasPrefix(s[i:], `\\`):
			b.WriteByte('\\')
			i++
		case strings.HasPrefix(s[i:], `\0`):
			v, n := 0, 0
			for n < 3 && i+2+n < len(s) && s[i+2+n] >= '0' && s[i+2+n] <= '7' {
				v = v*8 + int(s[i+2+n]-'0')
				n++
			}
			b.WriteByte(byte(v))
			i += 1 + n
		default:
			return "", fmt.Errorf("the escape %q", s[i:min(i+2, len(s))])
		}
	}
	return b.String(), nil
}
