package trace

import (
	"strconv"
	"strings"
	"unsafe"

	"github.com/idem-cli/idem/internal/pages"
)

// arena holds strings in large chunks that never move. A string is named
// by an aref (chunk, offset, length, and whether it was packed), which
// holds no pointer, so the collector never scans the millions of them.
type arena struct {
	chunks [][]byte
}

// aref names a string in an arena; 0 is the empty string.
type aref uint64

// longString is the length an aref cannot count: a string as long or
// longer has a chunk of its own, which the aref names whole.
const longString = 0xffff

// arenaChunk is the size of an arena's chunks: large enough that most of
// each is in its huge-page-aligned middle (see pages.Huge), which the
// strings then fill with one fault for 2 MB rather than 512 (nginx-1m: CPU
// 3.72 -> 3.46 s on a virtual machine whose faults are exits, five runs
// each, the peak within 3 MB); at most 16 MB, what an aref's offset counts.
const arenaChunk = 4 << 20

// add stores s and returns its reference.
func (a *arena) add(s string) aref {
	return a.addPacked(s, pack(s))
}

// addPacked stores s, already packed as p (see pack).
func (a *arena) addPacked(s string, p packed) aref {
	if s == "" {
		return 0
	}
	kind := p.kind
	data := p.stored(s)
	n := len(a.chunks)
	if len(data) >= longString {
		// A chunk of its own, exactly as long: the reference names it
		// whole, and nothing is appended after it.
		a.chunks = append(a.chunks, append(make([]byte, 0, len(data)), data...))
		return aref(uint64(n+1)<<44 | longString<<4 | uint64(kind))
	}
	if n == 0 || cap(a.chunks[n-1])-len(a.chunks[n-1]) < len(data) {
		size := arenaChunk
		if len(data) > size {
			size = len(data)
		}
		c := make([]byte, 0, size)
		pages.Huge(c[:size])
		a.chunks = append(a.chunks, c)
		n++
	}
	c := a.chunks[n-1]
	off := len(c)
	switch kind {
	case packedUUID, packedHex: // 16 bytes, most ids: two word stores, not a copy call
		c = c[:off+16]
		*(*[16]byte)(c[off:]) = p.bytes
	case packedIPv4:
		c = c[:off+4]
		*(*[4]byte)(c[off:]) = [4]byte(p.bytes[:4])
	default:
		c = append(c, data...)
	}
	a.chunks[n-1] = c
	return aref(uint64(n)<<44 | uint64(off)<<20 | uint64(len(data))<<4 | uint64(kind))
}

// raw returns the stored bytes of r (packed for packed ids) and how it
// was packed: equal strings always give equal raw bytes and kind.
func (a *arena) raw(r aref) ([]byte, int) {
	if r == 0 {
		return nil, 0
	}
	chunk := int(r>>44) - 1
	off := int(r>>20) & (1<<24 - 1)
	n := int(r>>4) & 0xffff
	if n == longString {
		return a.chunks[chunk], int(r & 0xf)
	}
	return a.chunks[chunk][off : off+n], int(r & 0xf)
}

// same reports whether two references name the same string.
func (a *arena) same(x, y aref) bool {
	if x == y {
		return true
	}
	bx, kx := a.raw(x)
	by, ky := a.raw(y)
	return kx == ky && string(bx) == string(by)
}

// is reports whether r names s, which packs as p (see pack).
func (a *arena) is(r aref, s string, p packed) bool {
	b, kind := a.raw(r)
	if kind != int(p.kind) {
		return false
	}
	return string(b) == p.stored(s)
}

// own returns the string r names in memory of its own: what the rich
// objects keep must not hold the arena's chunks alive (see store.Release).
func (a *arena) own(r aref) string {
	if r&0xf != 0 {
		return a.get(r) // unpacking allocates already
	}
	return strings.Clone(a.get(r))
}

// get returns the string r names. Packed ids are unpacked (allocating);
// others are views of the arena.
func (a *arena) get(r aref) string {
	b, kind := a.raw(r)
	switch kind {
	case packedUUID:
		return unpackUUID(b)
	case packedHex:
		return unpackHex(b)
	case packedIPv4:
		return unpackIPv4(b)
	}
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b)) // the arena's chunks are never written again
}

// appendTo appends the string r names to buf, unpacking packed ids in
// place: no allocation when buf has room.
func (a *arena) appendTo(buf []byte, r aref) []byte {
	b, kind := a.raw(r)
	switch kind {
	case packedUUID:
		return appendUUID(buf, b)
	case packedHex:
		return appendHex(buf, b)
	case packedIPv4:
		for i, x := range b {
			if i > 0 {
				buf = append(buf, '.')
			}
			buf = strconv.AppendUint(buf, uint64(x), 10)
		}
		return buf
	}
	return append(buf, b...)
}

// viewString views b as a string without copying; it is valid while b is
// unchanged.
func viewString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
