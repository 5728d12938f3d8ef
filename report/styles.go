// Package report renders what idem found for people and machines — a
// diagnosis, one intent's trace, a replay's verdict — as styled text for a
// terminal, plain text when piped, Markdown to paste into an incident, one
// self-contained HTML page, or JSON with a versioned schema. It is the one
// boundary where log content is escaped and secrets are redacted; nothing
// else prints it. Styles are decided here, in this file, once.
package report

import (
	"io"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// styles are the few semantic styles every text renderer uses. ANSI-16
// colours follow the user's terminal theme.
type styles struct {
	Title    lipgloss.Style
	Heading  lipgloss.Style
	Critical lipgloss.Style
	Warning  lipgloss.Style
	Info     lipgloss.Style
	OK       lipgloss.Style
	Faint    lipgloss.Style
	Code     lipgloss.Style
	Label    lipgloss.Style
}

// NewStyles builds styles for w; colour is decided by the caller (--color,
// NO_COLOR, TTY) and forced here so every stream behaves the same.
func NewStyles(w io.Writer, color bool) styles {
	r := lipgloss.NewRenderer(w)
	if color {
		r.SetColorProfile(termenv.ANSI)
	} else {
		r.SetColorProfile(termenv.Ascii)
	}
	s := r.NewStyle
	return styles{
		Title:    s().Bold(true),
		Heading:  s().Bold(true).Underline(true),
		Critical: s().Foreground(lipgloss.Color("1")).Bold(true),
		Warning:  s().Foreground(lipgloss.Color("3")).Bold(true),
		Info:     s().Foreground(lipgloss.Color("4")),
		OK:       s().Foreground(lipgloss.Color("2")),
		Faint:    s().Foreground(lipgloss.Color("8")),
		Code:     s().Foreground(lipgloss.Color("6")),
		Label:    s().Bold(true),
	}
}
