// Opening an input: what cannot be a log is refused, compression is
// read from the magic bytes, and a JSON document is told from lines.

package ingest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/idem-cli/idem/formats"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// open opens a named input, refusing what cannot be a log file.
func open(path string, stdin io.Reader) (io.ReadCloser, error) {
	if path == "-" {
		if stdin == nil {
			stdin = os.Stdin
		}
		return io.NopCloser(stdin), nil
	}
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errors.New("no such file")
		}
		if errors.Is(err, fs.ErrPermission) {
			return nil, errors.New("permission denied")
		}
		return nil, err
	}
	switch {
	case st.IsDir():
		return nil, errors.New("is a directory (name the files in it, e.g. dir/*)")
	case st.Mode()&fs.ModeNamedPipe != 0:
		return nil, errors.New("is a named pipe; pipe it to standard input and name - instead")
	case !st.Mode().IsRegular():
		return nil, fmt.Errorf("is not a regular file (%s)", st.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return nil, errors.New("permission denied")
		}
		return nil, err
	}
	return mapFile(f, st.Size()), nil
}

// read detects compression and shape, then reads lines or a document.
func (in *reading) read(ctx context.Context, r io.Reader) error {
	br := bufio.NewReaderSize(r, 1<<20)
	magic, _ := br.Peek(4)
	switch {
	case len(magic) >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		zr, err := gzip.NewReader(br)
		if err != nil {
			return fmt.Errorf("gzip: %w", err)
		}
		defer zr.Close()
		in.Compression = "gzip"
		br = bufio.NewReaderSize(zr, 1<<20)
	case len(magic) >= 4 && bytes.Equal(magic, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return fmt.Errorf("zstd: %w", err)
		}
		defer zr.Close()
		in.Compression = "zstd"
		br = bufio.NewReaderSize(zr, 1<<20)
	}
	if isDocument(br) {
		if head, _ := br.Peek(len(formats.BOM)); bytes.Equal(head, formats.BOM) {
			br.Discard(len(formats.BOM)) // the JSON decoder would stop at it
		}
		return in.readDocument(ctx, br)
	}
	return in.readLines(ctx, br, 0)
}

// headBytes is how much of an input is looked at to tell a document from
// lines.
const headBytes = 64 << 10

// isDocument tells a JSON document (a HAR file, a JSON array export,
// pretty-printed objects) from lines. A HAR is a document whatever its
// layout, even all on one line, so that it streams entry by entry. Any
// other input is a document only when its first line is not a complete
// JSON value on its own and its start parses as JSON: a text log whose
// first line opens with "[" or "{" ("[2026-11-30T11:00:00Z] server
// starting", Envoy's "[2026-…] \"POST …", kubectl's "[pod/…]", a lone "[")
// is read as lines.
func isDocument(br *bufio.Reader) bool {
	head, _ := br.Peek(headBytes)
	head = bytes.TrimPrefix(head, formats.BOM)
	trimmed := bytes.TrimLeft(head, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '[' && trimmed[0] != '{' {
		return false
	}
	if isHAR(trimmed) {
		return true
	}
	if path, wrapped := traceDocument(trimmed); path != nil && wrapped {
		return true // a trace download's wrapper, even on one line
	}
	if trimmed[0] == '{' {
		first, rest := trimmed, []byte(nil)
		if i := bytes.IndexByte(trimmed, '\n'); i >= 0 {
			first, rest = trimmed[:i], trimmed[i+1:]
		} else if len(head) == headBytes {
			return false // a long first line: treat as lines, the splitter bounds it
		}
		if json.Valid(bytes.TrimSpace(first)) {
			return false
		}
		// A broken first line of JSON lines is followed by another object; a
		// document's second line continues the first value.
		if next := bytes.TrimLeft(rest, "\r\n"); len(next) == 0 || next[0] == '{' {
			return false
		}
	}
	return jsonPrefix(trimmed)
}

// jsonPrefix reports whether b, the start of an input, parses as the start
// of a stream of JSON values: as far as b goes, nothing in it is a syntax
// error.
func jsonPrefix(b []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		if _, err := dec.Token(); err != nil {
			return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		}
	}
}
