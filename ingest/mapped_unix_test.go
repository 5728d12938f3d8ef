//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package ingest

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// smallWindows maps a few pages at a time for the test, so that small
// files cross many windows.
func smallWindows(t *testing.T) int64 {
	t.Helper()
	old := mapWindow
	mapWindow = int64(4 * os.Getpagesize())
	t.Cleanup(func() { mapWindow = old })
	return mapWindow
}

func writeFile(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "log")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func openMapped(t *testing.T, path string) *mappedFile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	m := &mappedFile{f: f, size: st.Size()}
	t.Cleanup(func() { m.Close() })
	return m
}

// readAllWith reads r to its end with reads of n bytes at most.
func readAllWith(r io.Reader, n int) ([]byte, error) {
	var out []byte
	buf := make([]byte, n)
	for {
		k, err := r.Read(buf)
		out = append(out, buf[:k]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

func TestMappedFileReadsTheFile(t *testing.T) {
	w := int(smallWindows(t))
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{1, w - 1, w, w + 1, 3*w + 7} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		path := writeFile(t, data)
		for _, n := range []int{1, 4096, w + 3, 1 << 20} {
			got, err := readAllWith(openMapped(t, path), n)
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("size %d, reads of %d: %d bytes (%v), want the file's %d", size, n, len(got), err, size)
			}
		}
	}
}

func TestMappedFileFillsEachRead(t *testing.T) {
	w := int(smallWindows(t))
	path := writeFile(t, bytes.Repeat([]byte("x"), 3*w))
	m := openMapped(t, path)
	buf := make([]byte, w+w/2) // crosses a window's end
	for i := range 2 {
		if n, err := m.Read(buf); n != len(buf) || err != nil {
			t.Fatalf("read %d: %d bytes (%v), want %d: a short read is copied twice by bufio", i, n, err, len(buf))
		}
	}
}

func TestMappedFileReadsWhatIsAppended(t *testing.T) {
	w := int(smallWindows(t))
	first := bytes.Repeat([]byte("a"), 2*w+5)
	path := writeFile(t, first)
	m := openMapped(t, path)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("appended\n")); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got, err := readAllWith(m, 1000)
	if want := string(first) + "appended\n"; err != nil || string(got) != want {
		t.Errorf("got %d bytes (%v), want %d ending in what was appended", len(got), err, len(want))
	}
}

// TestMappedFileShrinks: a file truncated while read ends the read with
// ErrShrank, whether the bytes gone were in pages the mapping no longer
// reaches (a fault, caught), in another window (seen before it is
// mapped), or in the last page, which reads as zeros (seen at the end).
func TestMappedFileShrinks(t *testing.T) {
	w := smallWindows(t)
	page := int64(os.Getpagesize())
	for _, tc := range []struct {
		name   string
		before int64 // read before the cut
		cut    int64 // the size the file is cut to
		stop   int64 // where the read must stop
	}{
		{"to nothing, inside a window", page, 0, page},
		{"into the next window", page, 2*w - page/2, w},
		{"inside the file's last page", w + page, 2*w - page/2, 2 * w},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, bytes.Repeat([]byte("y"), int(2*w)))
			m := openMapped(t, path)
			if _, err := io.ReadFull(m, make([]byte, tc.before)); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(path, tc.cut); err != nil {
				t.Fatal(err)
			}
			var err error
			read := tc.before
			buf := make([]byte, page)
			for err == nil {
				var n int
				n, err = m.Read(buf)
				read += int64(n)
			}
			if !errors.Is(err, errShrank) {
				t.Fatalf("after %d bytes: %v, want ErrShrank", read, err)
			}
			if read != tc.stop {
				t.Errorf("stopped after %d bytes, want %d", read, tc.stop)
			}
		})
	}
}

// TestMappedReadingChangesNothing reads every fixture through small
// windows of a mapping, as a big file is read, and compares.
func TestMappedReadingChangesNothing(t *testing.T) {
	want := renderFixtures(t)
	smallWindows(t)
	defer func(n int64) { mapMin = n }(mapMin)
	mapMin = 1
	if got := renderFixtures(t); got != want {
		t.Errorf("mapped reading changed the set:\n%s\nwant\n%s", got, want)
	}
}
