package trace

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"strconv"
	"unsafe"
)

// How an id is packed (see pack); 0 is not at all.
const (
	packedUUID = 1 // a canonical lower-case UUID, stored as 16 bytes
	packedHex  = 2 // 32 lower-case hex digits, stored as 16 bytes
	packedIPv4 = 3 // a dotted-quad IPv4 address (clients), stored as 4 bytes
)

// packed is an id in the form the arena stores it.
type packed struct {
	kind  uint8
	n     uint8 // how many of bytes are used
	bytes [16]byte
}

// pack works out how s would be stored: canonical UUIDs and 32-digit hex
// ids, most request ids and keys, take 16 bytes instead of 36 or 32, and
// an IPv4 client address 4 instead of up to 15.
func pack(s string) packed {
	var p packed
	p.set(s)
	return p
}

// set makes p what pack(s) returns, in place: the workers pack three ids
// a line, and a returned value is copied twice on its way.
func (p *packed) set(s string) {
	p.kind, p.n = 0, 0
	switch {
	case len(s) == 36 && packUUID(s, &p.bytes):
		p.kind, p.n = packedUUID, 16
	case len(s) == 32 && packHex(s, &p.bytes):
		p.kind, p.n = packedHex, 16
	case len(s) >= 7 && len(s) <= 15 && packIPv4(s, &p.bytes):
		p.kind, p.n = packedIPv4, 4
	}
}

// stored is what the arena stores for s, which packs as p: the packed
// bytes, or s itself. It points into p, so it lives as long as p does.
func (p *packed) stored(s string) string {
	if p.kind != 0 {
		return unsafe.String(&p.bytes[0], p.n)
	}
	return s
}

// packIPv4 packs a dotted quad written the canonical way: four numbers
// up to 255, without leading zeros, so that unpacking gives s back. The
// dots and digits are found eight bytes at a time, and each number is
// read from where the dots put it by a table of place values rather than
// a loop over its digits, whose varying length the processor could not
// predict.
func packIPv4(s string, out *[16]byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	n := len(s)
	if n < 7 || n > 15 {
		return false
	}
	// The first eight bytes and the rest, loaded whole (the last eight
	// shifted down): zeros follow s, neither digits nor dots.
	var lo, hi uint64
	if n >= 8 {
		lo, hi = le64(s), le64(s[n-8:])>>(8*(16-n))
	} else {
		lo = le32(s) | le32(s[3:])<<24
	}
	var b [18]byte // room to read past the last number
	binary.LittleEndian.PutUint64(b[0:], lo)
	binary.LittleEndian.PutUint64(b[8:], hi)
	if (lo|hi)&highs != 0 {
		return false
	}
	// With no high bit set, adding to a byte carries into no other: the
	// high bit marks digits (see wordDigits), and dots (a byte that is
	// zero once '.' is taken away).
	digits := func(w uint64) uint64 { return wordDigits(w) & highs }
	dots := func(w uint64) uint64 { return ^(w ^ '.'*ones + 0x7f*ones) & highs }
	dlo, dhi := dots(lo), dots(hi)
	// Each of the n bytes is a digit or a dot (the 0 bytes past them are
	// neither, so n >= 8 needs all of lo).
	wantLo, wantHi := uint64(highs), uint64(highs)>>(8*(16-n))
	if n < 8 {
		wantLo, wantHi = highs>>(8*(8-n)), 0
	}
	if (digits(lo)|dlo) != wantLo || (digits(hi)|dhi)&highs != wantHi || bits.OnesCount64(dlo)+bits.OnesCount64(dhi) != 3 {
		return false
	}
	// Where each number ends: the three dots, in a mask of a bit a byte
	// (each word's high bits gathered into its top byte by one multiply),
	// then n. Three fixed steps, not a loop over however many dots each
	// word holds.
	gather := func(w uint64) uint32 { return uint32((w >> 7) * 0x0102040810204080 >> 56) }
	m := gather(dlo) | gather(dhi)<<8
	var ends [4]int
	ends[0] = bits.TrailingZeros32(m)
	m &= m - 1
	ends[1] = bits.TrailingZeros32(m)
	m &= m - 1
	ends[2], ends[3] = bits.TrailingZeros32(m), n
	start := 0
	for part, end := range ends {
		l := end - start
		if l < 1 || l > 3 || l > 1 && b[start] == '0' {
			return false // empty, too long, or a leading zero
		}
		p := &placeValues[l]
		v := uint(b[start]-'0')*p[0] + uint(b[start+1]-'0')*p[1] + uint(b[start+2]-'0')*p[2]
		if v > 255 {
			return false
		}
		out[part] = byte(v)
		start = end + 1
	}
	return true
}

// placeValues[l] weighs the first three bytes of a number of l digits;
// the bytes after its last digit weigh nothing.
var placeValues = [4][3]uint{{}, {1, 0, 0}, {10, 1, 0}, {100, 10, 1}}

func unpackIPv4(b []byte) string {
	buf := make([]byte, 0, 15)
	for i, x := range b {
		if i > 0 {
			buf = append(buf, '.')
		}
		buf = strconv.AppendUint(buf, uint64(x), 10)
	}
	return string(buf)
}

func appendHex(buf, b []byte) []byte {
	n := len(buf)
	buf = slices.Grow(buf, 2*len(b))[:n+2*len(b)]
	out := buf[n:]
	for i, c := range b {
		out[2*i], out[2*i+1] = hexDigits[c>>4], hexDigits[c&0xf]
	}
	return buf
}

// appendUUID appends the 8-4-4-4-12 form of the 16 bytes packUUID made:
// the dashes laid down at once, then each byte's two digits in place.
func appendUUID(buf, b []byte) []byte {
	if len(b) != 16 {
		return appendHex(buf, b) // not what packUUID makes
	}
	n := len(buf)
	buf = append(buf, "00000000-0000-0000-0000-000000000000"...)
	out := buf[n : n+36]
	for i, c := range b {
		p := uuidDigits[2*i]
		out[p], out[p+1] = hexDigits[c>>4], hexDigits[c&0xf]
	}
	return buf
}

const hexDigits = "0123456789abcdef"

func packHex(s string, out *[16]byte) bool {
	_ = s[31]
	a, okA := hexWord(le64(s[0:]))
	b, okB := hexWord(le64(s[8:]))
	c, okC := hexWord(le64(s[16:]))
	d, okD := hexWord(le64(s[24:]))
	putHex(out, a, b, c, d)
	return okA && okB && okC && okD
}

// hexWord packs the eight lower-case hex digits in w (the first in its
// lowest byte) into four bytes, the first digit in the high nibble of the
// first byte, and reports whether all eight are such digits: each test
// and step is done for the eight bytes at once.
func hexWord(w uint64) (uint32, bool) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	// The same for 'a' to 'f' as wordDigits does for digits, with 0x19
	// and 0x1f.
	digit := wordDigits(w)
	lower := ^(w + 0x19*ones) & (w + 0x1f*ones)
	ok := w&highs == 0 && (digit|lower)&highs == highs
	v := w&(0x0f*ones) + (w>>6&ones)*9 // a digit's value: 'a' is 0x61, bit 6 set
	t := (v<<4 | v>>8) & 0x00ff00ff00ff00ff
	t = (t | t>>8) & 0x0000ffff0000ffff
	return uint32(t | t>>16), ok
}

// wordDigits sets the high bit of each byte of w that is a decimal
// digit, where no byte of w has its high bit set: adding to a byte then
// carries into none, b+0x46 has its high bit clear for b <= '9' and
// b+0x50 has it set for b >= '0'. (Other bits of the result mean nothing.)
func wordDigits(w uint64) uint64 {
	const ones = 0x0101010101010101
	return ^(w + 0x46*ones) & (w + 0x50*ones)
}

// le64 and le32 read the first eight and four bytes of s, the first in
// the lowest byte (the compiler makes each one load).
func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func le32(s string) uint64 {
	_ = s[3]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24
}

// putHex stores four packed words, first to last.
func putHex(out *[16]byte, a, b, c, d uint32) {
	binary.LittleEndian.PutUint32(out[0:], a)
	binary.LittleEndian.PutUint32(out[4:], b)
	binary.LittleEndian.PutUint32(out[8:], c)
	binary.LittleEndian.PutUint32(out[12:], d)
}

func unpackHex(b []byte) string {
	return viewString(appendHex(make([]byte, 0, 2*len(b)), b)) // one allocation, never written again
}

// uuidDigits are where the hex digits of an 8-4-4-4-12 UUID are.
var uuidDigits = [32]uint8{0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 14, 15, 16, 17,
	19, 20, 21, 22, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35}

// packUUID packs 8-4-4-4-12 lower-case hex.
func packUUID(s string, out *[16]byte) bool {
	_ = s[35]
	if s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return false
	}
	a, okA := hexWord(le64(s[0:]))
	b, okB := hexWord(le32(s[9:]) | le32(s[14:])<<32)
	c, okC := hexWord(le32(s[19:]) | le32(s[24:])<<32)
	d, okD := hexWord(le64(s[28:]))
	putHex(out, a, b, c, d)
	return okA && okB && okC && okD
}

func unpackUUID(b []byte) string {
	return viewString(appendUUID(make([]byte, 0, 36), b)) // one allocation, never written again
}
