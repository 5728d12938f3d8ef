package replay

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/idem-cli/idem/internal/iostreams"
	"github.com/idem-cli/idem/redact"
)

// Curl writes the request as an equivalent curl command for bash or any
// POSIX shell. Values are redacted first and quoted after, so a mask
// never eats a closing quote; a value that holds a control character or
// invalid UTF-8 is written in ANSI-C quoting ($'…'), so the command is
// printable as it is and runs as it reads.
func (r *Request) Curl() string {
	var b strings.Builder
	method := r.Method
	if strings.Trim(method, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" || method == "" {
		method = ShellQuote(method)
	}
	fmt.Fprintf(&b, "curl -sS -X %s %s", method, ShellQuote(redact.String(r.URL)))
	for _, name := range sortedNames(r.Header) {
		for _, v := range r.Header[name] {
			fmt.Fprintf(&b, " \\\n  -H %s", ShellQuote(name+": "+ShowHeader(name, v)))
		}
	}
	if len(r.Body) > 0 {
		fmt.Fprintf(&b, " \\\n  --data-binary %s", ShellQuote(redact.String(string(r.Body))))
	}
	return b.String()
}

// ShowHeader is a header value fit to print: credentials masked.
func ShowHeader(name, value string) string {
	if redact.IsSecretHeader(name) {
		return redact.Mask
	}
	return redact.String(value)
}

func sortedNames(h http.Header) []string {
	var names []string
	for n := range h {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ShellQuote quotes s as one shell word: in single quotes when every
// character prints as itself, else in ANSI-C quotes with escapes.
func ShellQuote(s string) string {
	if printable(s) {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case unsafeRune(r):
			if r < 0x100 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
		i += size
	}
	b.WriteString("'")
	return b.String()
}

// printable reports whether s is valid UTF-8 without a control, C1 or
// bidi-override character: text a terminal shows as it is.
func printable(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || unsafeRune(r) {
			return false
		}
		i += size
	}
	return true
}

// unsafeRune is what a shell word must not hold as it is: what a
// terminal acts on, and the line separators and BOM that hide in a
// pasted command.
func unsafeRune(r rune) bool {
	return r < 0x20 || iostreams.TerminalActive(r) || r == 0x2028 || r == 0x2029 || r == 0xfeff
}
