package report

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/idem-cli/idem/internal/iostreams"
	"github.com/idem-cli/idem/redact"
)

// Safe makes log content fit to print on a terminal: secrets redacted, and
// every control character (ANSI CSI and OSC sequences start with ESC; BEL,
// backspace and carriage return rewrite what is shown), C1 control, bidi
// override and invalid UTF-8 byte written visibly as an escape.
func Safe(s string) string {
	s = redact.String(s)
	clean := true
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if needsEscape(r, size) {
			clean = false
			break
		}
		i += size
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == 0x1b:
			b.WriteString(`\e`)
		case needsEscape(r, size):
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
	return b.String()
}

func needsEscape(r rune, size int) bool {
	switch {
	case r == utf8.RuneError && size == 1:
		return true
	case r < 0x20:
		return true
	}
	return iostreams.TerminalActive(r)
}

// md makes log content safe inside Markdown, including table cells: it is
// first made terminal-safe, then every character that Markdown or HTML
// would interpret is escaped, so a log line cannot add a row, a link, a
// heading or markup to the report, and no bare URL or address becomes a
// link (markdownLinkSafe).
func md(s string) string {
	s = Safe(s)
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '|', '`', '*', '_', '[', ']', '(', ')', '#', '!', '~', '\\', '{', '}', '+', '-', '.':
			if r == '-' || r == '.' || r == '(' || r == ')' || r == '+' {
				// Harmless in running text; escaping them would make ids unreadable.
				b.WriteRune(r)
				continue
			}
			b.WriteByte('\\')
			b.WriteRune(r)
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		default:
			b.WriteRune(r)
		}
	}
	return markdownLinkSafe(b.String())
}

// mermaid makes log content safe inside a Mermaid sequence-diagram message
// or note: no line breaks, no characters that end a message or start a
// directive.
func mermaid(s string) string {
	s = Safe(s)
	r := strings.NewReplacer(";", ",", "#", "", ":", " ", "\\", "/", "<", "", ">", "", "%", "", "`", "'", "\"", "'", "{", "(", "}", ")")
	return r.Replace(s)
}
