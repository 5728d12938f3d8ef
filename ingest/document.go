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
	"github.com/idem-cli/idem/model"

	"github.com/tidwall/gjson"
)

// Documents are streamed a record at a time and handed on in batches
// bounded in records and in bytes: HAR entries carry whole bodies.
const (
	docBatchRecords = 256
	docBatchBytes   = 2 << 20
)

// docRecord is one record of a document, found and not yet parsed.
type docRecord struct {
	raw []byte
	src model.Source
	p   *formats.Parser // the HAR entries' parser, or the document's
}

// readDocument reads an input that is a JSON document rather than lines: a
// HAR (its entries streamed one at a time, never loaded whole, whatever
// its layout or size), a trace download (its list streamed likewise, see
// document_traces.go), a JSON array (each element a record), or a stream
// of pretty-printed values. Each record's source line is where it starts;
// a HAR entry that shares its line with what precedes it (a HAR written on
// one line) also says which entry it is. A document that stops parsing is
// not given up on: what follows the line where it broke is read as lines,
// and the break is a skipped line. One that ends inside a value was cut
// short, and says so as a read error.
func (in *reading) readDocument(ctx context.Context, br *bufio.Reader) error {
	lt := &lineTracker{r: br, line: 1, blank: true}
	dec := json.NewDecoder(lt)
	p := in.parser()
	var entries *formats.Parser // HAR entries', made when a HAR is met
	var res formats.Result
	p.Into(&res)
	// The records are parsed and handed on by a goroutine of their own
	// while this one finds the next: finding a record's end (the decoder
	// reads it, then scans it again to hand it over) costs about as much
	// as parsing it (60,000 HAR entries: 0.76 and 0.91 CPU-seconds).
	work := make(chan []docRecord) // one batch found while one is parsed: the memory of two
	done := make(chan struct{})
	go func() {
		defer close(done)
		var tb model.Batch
		for batch := range work {
			for _, r := range batch {
				skips := len(res.Skips)
				r.p.Object(gjson.ParseBytes(r.raw), r.src)
				if len(res.Skips) > skips && in.firstSkip == nil {
					s := res.Skips[skips]
					in.firstSkip = &model.Skip{Source: s.Source, Reason: s.Reason, Text: excerpt(r.raw)}
				}
			}
			tb.Obs, tb.Raw = res.Obs, res.Raw
			in.c.Prepare(&tb)
			in.absorb(&res, &tb)
			res.Reset()
		}
	}()
	var batch []docRecord
	size := 0
	send := func() {
		if len(batch) > 0 {
			work <- batch
			batch, size = nil, 0
		}
	}
	// element reads the next value as one record; entry is 1 + its index
	// among a HAR's entries, 0 for any other value.
	element := func(p *formats.Parser, entry int) error {
		start, own := lt.startLine(dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
			return io.ErrUnexpectedEOF // a value was due: after a comma, say
		} else if err != nil {
			return err
		}
		src := model.Source{File: in.Path, Line: start}
		if entry > 0 && !own {
			src.Entry = entry
		}
		batch = append(batch, docRecord{raw: raw, src: src, p: p})
		if size += len(raw); len(batch) >= docBatchRecords || size >= docBatchBytes {
			send()
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
		return nil
	}
	err := func() error {
		head, _ := br.Peek(headBytes)
		if isHAR(head) {
			entries = in.harParser()
			entries.Into(&res)
			err := streamHAR(dec, func(i int) error { return element(entries, i+1) })
			if err != nil {
				return err
			}
		} else if path, _ := traceDocument(head); path != nil {
			if err := streamList(dec, path, func() error { return element(p, 0) }); err != nil {
				return err
			}
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
					if err := element(p, 0); err != nil {
						return err
					}
				}
				if err := closing(dec); err != nil {
					return err
				}
				continue
			}
			if err := element(p, 0); err != nil {
				return err
			}
		}
	}()
	send()
	close(work)
	<-done
	switch {
	case errors.Is(err, io.EOF):
		in.Lines = lt.lineAt(lt.base + int64(len(lt.buf)))
		return nil
	case errors.Is(err, io.ErrUnexpectedEOF):
		in.Lines = lt.lineAt(lt.base + int64(len(lt.buf)))
		in.skipLine(in.Lines, "the JSON document ends inside a value")
		return fmt.Errorf("the JSON document ends inside a value at line %d: %w", in.Lines, err)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	var se *json.SyntaxError
	if !errors.As(err, &se) && !errors.Is(err, errNotHAR) && !errors.Is(err, errNotTraces) && !errors.Is(err, errClosing) {
		return err // a read error
	}
	// Not JSON from here on: say where, and read on as lines after it.
	off := dec.InputOffset()
	if se != nil {
		off = max(se.Offset-1, 0) // the offending byte
	}
	line := lt.lineAt(off)
	in.skipLine(line, fmt.Sprintf("the JSON document breaks here (%v); what follows this line is read as lines", err))
	rest, ok := lt.pastLine(br)
	if !ok {
		in.Lines = line
		return nil
	}
	return in.readLines(ctx, bufio.NewReaderSize(io.MultiReader(bytes.NewReader(rest), br), 1<<20), line)
}

// skipLine counts a skipped line of the input being read, keeping it as a
// sample while there is room.
func (in *reading) skipLine(line int, reason string) {
	in.Skipped++
	if len(in.SkipSamples) < in.opts.MaxSkipSamples {
		in.SkipSamples = append(in.SkipSamples, model.Skip{Source: model.Source{File: in.Path, Line: line}, Reason: reason})
	}
}

// harParser makes the parser for a HAR's entries: each is a HAR entry by
// where it is, whatever optional fields it lacks (pages, startedDateTime,
// timings), unless the input's format is set by a flag.
func (in *reading) harParser() *formats.Parser {
	if in.opts.Format != "" {
		return in.parser()
	}
	rule, err := in.opts.Config.RuleFor(in.Path, in.opts.Tier, "har")
	if err != nil {
		return in.parser()
	}
	p := formats.NewParser(in.opts.Config, rule)
	p.KeepRaw = in.keepRaw
	p.Explain = in.opts.ExplainFields
	p.Sample = in.opts.SampleFields
	return p
}

var (
	errNotHAR  = errors.New(`"log.entries" of a HAR is not an array`)
	errClosing = errors.New("a closing bracket where a value should be")
)

// peekDelim returns '[' when the next value is an array, 0 for anything
// else, and io.EOF at the end.
func peekDelim(dec *json.Decoder) (byte, error) {
	if !dec.More() {
		// More is false at EOF and before a closing delimiter.
		if _, err := dec.Token(); err != nil {
			return 0, err
		}
		return 0, errClosing
	}
	// The decoder has no peek; look at the buffered bytes instead.
	rest, _ := io.ReadAll(io.LimitReader(dec.Buffered(), 64))
	rest = bytes.TrimLeft(rest, " \t\r\n,")
	if len(rest) > 0 && rest[0] == '[' {
		return '[', nil
	}
	return 0, nil
}

// closing reads the delimiter that ends an array or object: the input
// ending before it was cut short.
func closing(dec *json.Decoder) error {
	_, err := dec.Token()
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// isHAR recognises a HAR document by its shape, not by optional fields: it
// opens with {"log": {.
func isHAR(head []byte) bool {
	head = bytes.TrimLeft(bytes.TrimPrefix(head, formats.BOM), " \t\r\n")
	for _, want := range []string{"{", `"log"`, ":", "{"} {
		if !bytes.HasPrefix(head, []byte(want)) {
			return false
		}
		head = bytes.TrimLeft(head[len(want):], " \t\r\n")
	}
	return true
}

// streamHAR walks {"log": {..., "entries": [ ... ]}} token by token and
// hands each entry's index to entry, which reads it.
func streamHAR(dec *json.Decoder, entry func(int) error) error {
	err := func() error {
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
					return errNotHAR
				}
				for i := 0; dec.More(); i++ {
					if err := entry(i); err != nil {
						return err
					}
				}
				if err := closing(dec); err != nil { // ]
					return err
				}
			}
			if err := closing(dec); err != nil { // } of log
				return err
			}
		}
		return closing(dec)
	}()
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF // inside the HAR
	}
	return err
}

// lineTracker counts lines in what a decoder reads, so that a decoder
// offset can be turned into a line number. It keeps only the bytes between
// the last offset asked about and what the decoder has read ahead.
type lineTracker struct {
	r    io.Reader
	buf  []byte
	base int64 // stream offset of buf[0]
	line int   // line number at base
	// blank says that only whitespace precedes base on its line.
	blank bool
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
	seen := t.buf[:d]
	if i := bytes.LastIndexByte(seen, '\n'); i >= 0 {
		t.line += bytes.Count(seen[:i+1], []byte{'\n'})
		t.blank = isBlank(seen[i+1:])
	} else {
		t.blank = t.blank && isBlank(seen)
	}
	t.buf = append(t.buf[:0], t.buf[d:]...)
	t.base += int64(d)
	return t.line
}

func isBlank(b []byte) bool { return len(bytes.TrimLeft(b, " \t\r")) == 0 }

// startLine returns the line where the next value starts (after off, past
// whitespace and separators) and whether it starts its line: whether only
// whitespace precedes it there.
func (t *lineTracker) startLine(off int64) (int, bool) {
	t.lineAt(off)
	i := 0
	for i < len(t.buf) && (t.buf[i] == ' ' || t.buf[i] == '\t' || t.buf[i] == '\r' || t.buf[i] == '\n' || t.buf[i] == ',') {
		i++
	}
	return t.lineAt(t.base + int64(i)), t.blank
}

// pastLine returns what follows the line at the tracker's offset, from
// what it holds and then r: the start of the next line is in what it
// holds, or r is read up to it (a long line streams past). It reports
// false when no line follows.
func (t *lineTracker) pastLine(r *bufio.Reader) ([]byte, bool) {
	if i := bytes.IndexByte(t.buf, '\n'); i >= 0 {
		return bytes.Clone(t.buf[i+1:]), true
	}
	for {
		_, err := r.ReadSlice('\n')
		if err == nil {
			return nil, true
		}
		if err != bufio.ErrBufferFull {
			return nil, false
		}
	}
}
