package model

import "strconv"

// Source locates a fact in the inputs.
type Source struct {
	File string
	Line int
	// Entry numbers, from 1, the HAR entry a fact was streamed out of when
	// that entry shares its line with what comes before it (a HAR written
	// on one line, as Playwright does): file:line alone would not find it.
	// It is 0 everywhere else.
	Entry int
}

// String renders file:line, and the entry's 0-based JSON path when there
// is one: client.har:1#entries[3]. Without fmt: a big report writes one
// for every piece of evidence.
func (s Source) String() string {
	var buf [128]byte
	b := strconv.AppendInt(append(append(buf[:0], s.File...), ':'), int64(s.Line), 10)
	if s.Entry > 0 {
		b = append(strconv.AppendInt(append(b, "#entries["...), int64(s.Entry-1), 10), ']')
	}
	return string(b)
}

// MarshalText renders a source as String does.
func (s Source) MarshalText() ([]byte, error) { return []byte(s.String()), nil }
