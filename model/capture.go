package model

import "strings"

// Captured is a request as an input recorded it, complete enough to send
// again: a HAR entry, or a log line that logged method, route, headers and
// body. Header values are as captured; redact before showing them.
type Captured struct {
	Method    string
	URL       string // absolute (HAR) or a path (logs)
	Headers   []Header
	Body      []byte
	HasBody   bool
	Key       string
	RequestID string
	Source    Source
	// What the capture says came back, when it does (HAR).
	Status          int
	ResponseHeaders []Header
	ResponseBody    []byte
}

// Header is one captured header line.
type Header struct {
	Name, Value string
}

// Own copies the strings that still view the line, whose buffer is used
// again for later lines.
func (c *Captured) Own() {
	c.Method, c.URL, c.Key = strings.Clone(c.Method), strings.Clone(c.URL), strings.Clone(c.Key)
	for _, hs := range [][]Header{c.Headers, c.ResponseHeaders} {
		for i := range hs {
			hs[i].Name, hs[i].Value = strings.Clone(hs[i].Name), strings.Clone(hs[i].Value)
		}
	}
}
