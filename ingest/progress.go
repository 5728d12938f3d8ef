package ingest

import (
	"io"
	"sync/atomic"
)

// Progress counts what has been read so far, for a progress display. Its
// counters are updated by the reader and may be read at any time.
type Progress struct {
	Bytes atomic.Int64 // bytes read from the inputs (compressed bytes for compressed inputs)
	Lines atomic.Int64 // lines (or records) read
	Total atomic.Int64 // the inputs' total size where known, else 0
}

// countingReader counts bytes into a Progress.
type countingReader struct {
	r io.Reader
	p *Progress
}

func (c countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.p.Bytes.Add(int64(n))
	return n, err
}
