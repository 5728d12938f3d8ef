//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package ingest

import (
	"io"
	"os"
	"runtime/debug"
	"syscall"
)

// mapWindow is how much of a file is mapped at once: small enough that
// the pages it holds add little to the peak memory, large enough that
// mapping and unmapping cost nothing next to the copies. A multiple of
// every page size.
var mapWindow int64 = 8 << 20

// copyPiece bounds one copy out of the mapping. Go copies a megabyte or
// more with stores that bypass the cache, and the batch just copied is
// read at once, line ends first: a megabyte copied whole left it to be
// fetched again from memory (the line-end scan took three times as long).
const copyPiece = 512 << 10

// mappedFile reads a file through windows of a mapping (see mapped.go).
// What is appended after it was opened is read with the file's own Read,
// so that a growing log reads to its end as before.
type mappedFile struct {
	f      *os.File
	size   int64 // the size when opened: the mapping's end
	off    int64 // the next byte to hand out
	win    []byte
	winOff int64 // the file offset of win[0]
	tail   bool  // past size: reading with f
}

// mapFile returns f, or a reader of it through a mapping when it is big
// enough to gain from one.
func mapFile(f *os.File, size int64) io.ReadCloser {
	if size < mapMin {
		return f
	}
	return &mappedFile{f: f, size: size}
}

// Read fills p while the mapping lasts, across windows: a short read
// would send the next ones through the caller's buffer (bufio copies a
// read smaller than its buffer twice).
func (m *mappedFile) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if m.tail {
			k, err := m.f.Read(p[n:])
			return n + k, err
		}
		if m.off >= m.size {
			if err := m.endMapping(); err != nil {
				return n, err
			}
			continue
		}
		if m.win == nil || m.off >= m.winOff+int64(len(m.win)) {
			if err := m.next(); err != nil {
				return n, err
			}
			continue
		}
		src := m.win[m.off-m.winOff:]
		k, err := copyMapped(p[n:], src[:min(len(src), copyPiece)])
		m.off += int64(k)
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// next maps the window that holds m.off, or, where the file system
// cannot map, goes on with the file's own Read from there.
func (m *mappedFile) next() error {
	m.unmap()
	if err := m.shrank(); err != nil {
		return err
	}
	lo := m.off / mapWindow * mapWindow
	w, err := syscall.Mmap(int(m.f.Fd()), lo, int(min(mapWindow, m.size-lo)), syscall.PROT_READ, mapFlags)
	if err != nil {
		m.size = m.off
		return m.endMapping()
	}
	m.win, m.winOff = w, lo
	return nil
}

// endMapping goes on with the file's own Read past what was mapped: what
// was appended since the file was opened.
func (m *mappedFile) endMapping() error {
	m.unmap()
	if err := m.shrank(); err != nil {
		return err
	}
	_, err := m.f.Seek(m.size, io.SeekStart)
	m.tail = true
	return err
}

// copyMapped copies from a mapping. Where the file no longer reaches, the
// processor faults instead of reading: the fault becomes ErrShrank here,
// rather than ending the process.
func copyMapped(dst, src []byte) (n int, err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); !fault {
				panic(r)
			}
			n, err = 0, errShrank
		}
	}()
	return copy(dst, src), nil
}

// shrank reports ErrShrank when the file is now shorter than when it was
// opened. A fault catches bytes read past the new end in pages it no
// longer reaches; this catches the rest of its last page, which reads as
// zeros, once the window holding it is done.
func (m *mappedFile) shrank() error {
	if m.off == 0 {
		return nil
	}
	if st, err := m.f.Stat(); err == nil && st.Size() < m.size {
		return errShrank
	}
	return nil
}

func (m *mappedFile) unmap() {
	if m.win != nil {
		_ = syscall.Munmap(m.win)
		m.win = nil
	}
}

func (m *mappedFile) Close() error {
	m.unmap()
	return m.f.Close()
}
