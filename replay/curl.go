package replay

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/idem-cli/idem/internal/iostreams"
	"github.com/idem-cli/idem/redact"
)

// Curl writes the request as an equivalent curl command for bash. Values
// are redacted first and quoted after, so a mask never eats a closing
// quote; a value that holds a control character or invalid UTF-8 is
// written in ANSI-C quoting ($'…'), so the command is printable as it is
// and runs as it reads. An argument cannot hold a NUL (bash ends $'…' at
// \x00), so a body with one goes to curl's standard input from printf.
// Only a sendable request (Sendable) is printed: its method and headers
// hold no NUL.
func (r *request) Curl() string {
	var b strings.Builder
	var body string
	if len(r.Body) > 0 {
		body = redact.String(string(r.Body))
	}
	stdin := strings.IndexByte(body, 0) >= 0
	if stdin {
		fmt.Fprintf(&b, "printf %%b %s | ", shellQuote(printfEscape(body)))
	}
	method := r.Method
	if strings.Trim(method, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" || method == "" {
		method = shellQuote(method)
	}
	fmt.Fprintf(&b, "curl -sS -X %s %s", method, shellQuote(ShowURL(r.URL)))
	for _, name := range sortedNames(r.Header) {
		for _, v := range r.Header[name] {
			fmt.Fprintf(&b, " \\\n  -H %s", shellQuote(name+": "+ShowHeader(name, v)))
		}
	}
	switch {
	case stdin:
		fmt.Fprintf(&b, " \\\n  --data-binary @-")
	case body != "":
		fmt.Fprintf(&b, " \\\n  --data-binary %s", shellQuote(body))
	}
	return b.String()
}

// printfEscape writes s for printf's %b, which turns \\ into a backslash
// and \0nnn into the byte nnn (octal): every backslash doubled, every NUL
// \0000 (three digits, so that a digit after it stays a digit).
func printfEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "\x00", `\0000`)
}

// ShowHeader is a header value fit to print: a credential's masked whole,
// by its name or by its value (as Build decides what is not resent).
func ShowHeader(name, value string) string {
	if secretHeader(name, value) {
		return redact.Mask
	}
	return value
}

// ShowURL is a URL fit to print: the value of every query parameter that
// Build would not resend is masked (with --keep-auth it is sent, and still
// never shown), escaped or not, and the rest is redacted as all output is.
func ShowURL(raw string) string {
	base, query, ok := strings.Cut(raw, "?")
	if !ok {
		return redact.String(raw)
	}
	query, frag, hasFrag := strings.Cut(query, "#")
	parts := strings.Split(query, "&")
	for i, part := range parts {
		name, value, ok := strings.Cut(part, "=")
		if !ok {
			continue
		}
		n, v := name, value
		if u, err := url.QueryUnescape(name); err == nil {
			n = u
		}
		if u, err := url.QueryUnescape(value); err == nil {
			v = u
		}
		if secretParam(part, n, v) {
			parts[i] = name + "=" + redact.Mask
		}
	}
	out := base + "?" + strings.Join(parts, "&")
	if hasFrag {
		out += "#" + frag
	}
	return redact.String(out)
}

func sortedNames(h http.Header) []string {
	var names []string
	for n := range h {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// shellQuote quotes s as one shell word: in single quotes when every
// character prints as itself, else in ANSI-C quotes with escapes.
func shellQuote(s string) string {
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
			// Each byte of its UTF-8 spelling: bash's \u depends on the
			// locale, and \x87 alone would be the byte, not U+0087.
			for _, c := range []byte(s[i : i+size]) {
				fmt.Fprintf(&b, `\x%02x`, c)
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
