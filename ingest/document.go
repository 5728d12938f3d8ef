package ingest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/idem-cli/idem/formats"
	"github.com/idem-cli/idem/trace"

	"github.com/tidwall/gjson"
)

// readDocument reads inputs that are JSON documents rather than lines: a
// HAR file (its entries are streamed one at a time, never loaded whole), a
// JSON array (each element is a record), or a stream of pretty-printed
// objects. Each record's source line is where it starts.
func (in *reading) readDocument(ctx context.Context, br *bufio.Reader) error {
	lt := &lineTracker{r: br, line: 1}
	dec := json.NewDecoder(lt)
	dec.UseNumber()
	p := in.parser()
	var res formats.Result
	var tb trace.Batch
	p.Into(&res)
	n := 0
	flush := func() {
		tb.Obs, tb.Raw = res.Obs, res.Raw
		in.c.Prepare(&tb)
		in.absorb(&res, &tb)
		res.Reset()
	}
	element := func() error {
		start := lt.startLine(dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		p.Object(gjson.ParseBytes(raw), trace.Source{File: in.Path, Line: start})
		if n++; n%1024 == 0 {
			flush()
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
		return nil
	}
	err := func() error {
		head, _ := br.Peek(4096)
		if isHAR(head) {
			return streamHAR(dec, element)
		}
		for {
			tok, err := peekDelim(dec)
			if err != nil {
				return err
			}
			if tok == '[' {
				if _, err := dec.Token(); err != nil {
					return err
				}
				for dec.More() {
					if err := element(); err != nil {
						return err
					}
				}
				if _, err := dec.Token(); err != nil {
					return err
				}
				continue
			}
			if err := element(); err != nil {
				return err
			}
		}
	}()
	flush()
	in.Lines = lt.lineAt(lt.base + int64(len(lt.buf)))
	if errors.Is(err, io.EOF) {
		return nil
	}
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF) {
			line := lt.lineAt(dec.InputOffset())
			in.Skipped++
			if len(in.SkipSamples) < in.opts.MaxSkipSamples {
				in.SkipSamples = append(in.SkipSamples, trace.Skip{Source: trace.Source{File: in.Path, Line: line},
					Reason: "invalid JSON document; the rest of the file was not read"})
			}
			return nil
		}
		return err
	}
	return nil
}

// peekDelim returns '[' when the next value is an array, 0 for anything
// else, and io.EOF at the end.
func peekDelim(dec *json.Decoder) (byte, error) {
	if !dec.More() {
		// More is false at EOF and before a closing delimiter.
		if _, err := dec.Token(); err != nil {
			return 0, err
		}
		return 0, fmt.Errorf("unexpected closing delimiter")
	}
	// The decoder has no peek; look at the buffered bytes instead.
	rest, _ := io.ReadAll(io.LimitReader(dec.Buffered(), 64))
	rest = bytes.TrimLeft(rest, " \t\r\n,")
	if len(rest) > 0 && rest[0] == '[' {
		return '[', nil
	}
	return 0, nil
}

// isHAR recognises a HAR document by its opening: {"log": {...
func isHAR(head []byte) bool {
	head = bytes.TrimLeft(bytes.TrimPrefix(head, formats.BOM), " \t\r\n")
	if len(head) == 0 || head[0] != '{' {
		return false
	}
	head = bytes.TrimLeft(head[1:], " \t\r\n")
	return bytes.HasPrefix(head, []byte(`"log"`))
}

// streamHAR walks {"log": {..., "entries": [ ... ]}} token by token and
// hands each entry to element.
func streamHAR(dec *json.Decoder, element func() error) error {
	if _, err := dec.Token(); err != nil { // {
		return err
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return err
		}
		if key != "log" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return err
			}
			continue
		}
		if _, err := dec.Token(); err != nil { // { of log
			return err
		}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return err
			}
			if k != "entries" {
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					return err
				}
				continue
			}
			if t, err := dec.Token(); err != nil {
				return err
			} else if d, ok := t.(json.Delim); !ok || d != '[' {
				return fmt.Errorf("HAR log.entries is not an array")
			}
			for dec.More() {
				if err := element(); err != nil {
					return err
				}
			}
			if _, err := dec.Token(); err != nil { // ]
				return err
			}
		}
		if _, err := dec.Token(); err != nil { // } of log
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	return io.EOF
}

// lineTracker counts lines in what a decoder reads, so that a decoder
// offset can be turned into a line number. It keeps only the bytes between
// the last offset asked about and what the decoder has read ahead.
type lineTracker struct {
	r    io.Reader
	buf  []byte
	base int64 // stream offset of buf[0]
	line int   // line number at base
}

func (t *lineTracker) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.buf = append(t.buf, p[:n]...)
	return n, err
}

// lineAt returns the line number at stream offset off (>= the last asked).
func (t *lineTracker) lineAt(off int64) int {
	d := int(off - t.base)
	if d <= 0 {
		return t.line
	}
	if d > len(t.buf) {
		d = len(t.buf)
	}
	t.line += bytes.Count(t.buf[:d], []byte{'\n'})
	t.buf = append(t.buf[:0], t.buf[d:]...)
	t.base += int64(d)
	return t.line
}

// startLine returns the line where the next value starts: after off, past
// whitespace and separators.
func (t *lineTracker) startLine(off int64) int {
	t.lineAt(off)
	i := 0
	for i < len(t.buf) && (t.buf[i] == ' ' || t.buf[i] == '\t' || t.buf[i] == '\r' || t.buf[i] == '\n' || t.buf[i] == ',') {
		i++
	}
	return t.lineAt(t.base + int64(i))
}
