package ingest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// TestExpanded: what a file says it expands to, from its own bytes, and
// its size on disk wherever it says nothing or says less.
func TestExpanded(t *testing.T) {
	dir := t.TempDir()
	text := bytes.Repeat([]byte(`{"status":201,"http_idempotency_key":"k-1","request_uri":"/v1/payments"}`+"\n"), 20000)
	gz := func(parts ...[]byte) []byte {
		var b bytes.Buffer
		for _, p := range parts {
			w := gzip.NewWriter(&b)
			w.Write(p)
			w.Close()
		}
		return b.Bytes()
	}
	zst := func(withSize bool) []byte {
		var b bytes.Buffer
		if withSize {
			enc, _ := zstd.NewWriter(nil)
			return enc.EncodeAll(text, nil)
		}
		w, _ := zstd.NewWriter(&b)
		w.Write(text)
		w.Close()
		return b.Bytes()
	}
	cut := gz(text)
	cut = append(cut[:len(cut)-8:len(cut)-8], 0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff, 0x7f)
	for _, c := range []struct {
		name string
		data []byte
		want int64 // -1: the size on disk
	}{
		{"plain lines", text, -1},
		{"gzip: its trailer", gz(text), int64(len(text))},
		{"gzip of two members: the last one's length, less than the file", gz(text, []byte("x\n")), -1},
		{"gzip of two members: the last one's length", gz([]byte("x\n"), text), int64(len(text))},
		{"gzip whose trailer claims more than deflate gives", cut, int64(len(cut)) * maxDeflate},
		{"zstd with its content size", zst(true), int64(len(text))},
		{"zstd streamed, no content size", zst(false), -1},
		{"gzip's magic and nothing else", []byte{0x1f, 0x8b, 8}, -1},
		{"zstd's magic and nothing else", []byte{0x28, 0xb5, 0x2f, 0xfd}, -1},
		{"empty", nil, -1},
	} {
		path := filepath.Join(dir, "in")
		if err := os.WriteFile(path, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		want := c.want
		if want < 0 {
			want = int64(len(c.data))
		}
		if got := Expanded(path, int64(len(c.data))); got != want {
			t.Errorf("%s: Expanded = %d, want %d", c.name, got, want)
		}
	}
	if got := Expanded(filepath.Join(dir, "missing"), 123); got != 123 {
		t.Errorf("a missing file: Expanded = %d, want its size as given, 123", got)
	}
}

// FuzzExpanded: whatever a file's first and last bytes say, Expanded is
// at least its size and at most what deflate or zstd's field can claim.
func FuzzExpanded(f *testing.F) {
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x05, 'a', 'b'})
	f.Add([]byte("x\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "in")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		size := int64(len(data))
		got := Expanded(path, size)
		if got < size || got > max(size*maxDeflate, 1<<62) {
			t.Fatalf("Expanded = %d for a %d-byte file", got, size)
		}
	})
}
