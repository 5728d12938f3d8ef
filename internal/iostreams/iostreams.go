// Package iostreams owns a command's standard streams and the facts about
// them that decide how output looks: whether each is a terminal, whether
// colour is on, how wide the terminal is. Commands receive one IOStreams
// and never touch os.Stdout, so tests run them against buffers.
package iostreams

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/mattn/go-isatty"
	"golang.org/x/term"
)

// IOStreams is a command's input, output and error streams.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	inTTY, outTTY, errTTY bool
	colorOut, colorErr    bool
	width                 int
	getenv                func(string) string
}

// colorMode is the user's --color choice.
type colorMode string

// Colour modes.
const (
	colorAuto   colorMode = "auto"
	colorAlways colorMode = "always"
	colorNever  colorMode = "never"
)

// System returns the process's real streams.
func System() *IOStreams {
	s := &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, getenv: os.Getenv}
	s.inTTY = isTerminal(os.Stdin)
	s.outTTY = isTerminal(os.Stdout)
	s.errTTY = isTerminal(os.Stderr)
	s.width = 80
	if s.outTTY {
		if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil && w > 0 {
			s.width = w
		}
	} else if c, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && c > 0 {
		s.width = c
	}
	s.SetColorMode(colorAuto)
	return s
}

func isTerminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// Test returns streams backed by buffers: no terminal, no colour.
func Test() (*IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut, width: 80, getenv: func(string) string { return "" }}, in, out, errOut
}

// SetTTY pretends the streams are (or are not) terminals, for tests.
func (s *IOStreams) SetTTY(in, out, errOut bool) {
	s.inTTY, s.outTTY, s.errTTY = in, out, errOut
}

// SetEnv replaces the environment lookup, for tests.
func (s *IOStreams) SetEnv(getenv func(string) string) { s.getenv = getenv }

// SetColorMode decides colour once for both output streams: --color wins,
// then NO_COLOR, CLICOLOR_FORCE and TERM=dumb, then whether the stream is a
// terminal.
func (s *IOStreams) SetColorMode(m colorMode) {
	decide := func(tty bool) bool {
		switch m {
		case colorAlways:
			return true
		case colorNever:
			return false
		}
		env := s.getenv
		if env == nil {
			env = func(string) string { return "" }
		}
		if env("NO_COLOR") != "" {
			return false
		}
		if v := env("CLICOLOR_FORCE"); v != "" && v != "0" {
			return true
		}
		if env("CLICOLOR") == "0" || env("TERM") == "dumb" {
			return false
		}
		return tty
	}
	s.colorOut = decide(s.outTTY)
	s.colorErr = decide(s.errTTY)
}

// ParseColorMode validates a --color value.
func ParseColorMode(v string) (colorMode, error) {
	switch colorMode(v) {
	case colorAuto, colorAlways, colorNever:
		return colorMode(v), nil
	}
	return "", fmt.Errorf("invalid --color %q: want auto, always or never", v)
}

// IsStdinTTY reports whether standard input is a terminal.
func (s *IOStreams) IsStdinTTY() bool { return s.inTTY }

// IsStdoutTTY reports whether standard output is a terminal.
func (s *IOStreams) IsStdoutTTY() bool { return s.outTTY }

// IsStderrTTY reports whether standard error is a terminal.
func (s *IOStreams) IsStderrTTY() bool { return s.errTTY }

// ColorEnabled reports whether standard output gets colour.
func (s *IOStreams) ColorEnabled() bool { return s.colorOut }

// TerminalWidth is the width to lay text out for.
func (s *IOStreams) TerminalWidth() int {
	if s.width <= 0 {
		return 80
	}
	return s.width
}

// TerminalActive reports the characters beyond C0 that a terminal acts on
// or that reorder what it shows: DEL, the C1 controls (U+009B is a CSI on
// its own) and the bidi controls (U+202E turns the rest of a line around).
// Every writer of log content to a terminal escapes them, and C0 besides.
func TerminalActive(r rune) bool {
	switch {
	case r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f:
		return true
	}
	return false
}
