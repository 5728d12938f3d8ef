package ingest

import (
	"bytes"
	"encoding/binary"
	"os"

	"github.com/klauspost/compress/zstd"
)

// Expanded is how many bytes reading the file at path, size bytes on
// disk, will yield, where the file says so itself: a gzip file's trailer
// (the last member's length, modulo 4 GiB), a zstd frame's header (when
// the encoder wrote the content size). Where it says nothing, or less
// than its own size (a file of several gzip members, a length that wrapped
// past 4 GiB), it is the size on disk: never a guess by a ratio; nor more
// than deflate can expand to (1,032 times), which a cut file's last bytes
// may claim. The
// command sizes its memory policy by it (see the command's
// hugeheap_linux.go); a file that cannot be read counts for its size.
func Expanded(path string, size int64) int64 {
	f, err := os.Open(path)
	if err != nil {
		return size
	}
	defer f.Close()
	var head [zstd.HeaderMaxSize]byte
	n, _ := f.ReadAt(head[:], 0)
	said := int64(0)
	switch {
	case n >= 2 && head[0] == 0x1f && head[1] == 0x8b && size >= 18: // RFC 1952: a header of 10 bytes, a trailer of 8
		var isize [4]byte
		if _, err := f.ReadAt(isize[:], size-4); err == nil {
			said = min(int64(binary.LittleEndian.Uint32(isize[:])), size*maxDeflate)
		}
	case n >= 4 && bytes.Equal(head[:4], []byte{0x28, 0xb5, 0x2f, 0xfd}):
		var h zstd.Header
		if h.Decode(head[:n]) == nil && h.HasFCS {
			said = int64(min(h.FrameContentSize, 1<<62))
		}
	}
	return max(size, said)
}

// maxDeflate is the most deflate expands a stream by: 258 bytes from a
// code of two bits.
const maxDeflate = 1032
