package trace

import (
	"cmp"
	"encoding/binary"
	"hash/maphash"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/idem-cli/idem/model"
)

// The correlator's compact storage. Most lines of a big access log are
// plain: one proxy line per request, answered 2xx, nothing else to say. For
// those it keeps a pointer-free record and the strings in a chunked arena,
// so memory follows the number of requests and the garbage collector has
// nothing to scan; full Observations are kept only for lines that say more,
// and rich Delivery and Intent values are built only for the intents the
// rules must look at.

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

const (
	arenaChunk = 1 << 20
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

// prepared is what Correlator.Prepare works out for Add.
type prepared struct {
	method  uint8  // methodCode(Method)
	routeID bool   // idLike(Route)
	plain   bool   // o can be kept compact: simple(o), and fits(o) for each value
	notable bool   // notable(o)
	name    uint32 // the top half of nameSum for the key alone (see namedWhileRead)
	ridHash uint64
	rid     packed
	key     packed
	client  packed
}

// idSeed hashes request ids; the parser and the correlator share it.
var idSeed = maphash.MakeSeed()

// prepare works out p for o.
func prepare(o *model.Observation, p *prepared) {
	// Field by field: a composite literal is built aside and copied.
	simple := simple(o) // once: plain and notable both ask
	p.method, p.routeID, p.plain, p.notable = methodCode(o.Method), idLike(o.Route), simple && fits(o), notableSimple(o, simple)
	p.ridHash = maphash.String(idSeed, o.RequestID)
	p.rid.set(o.RequestID)
	p.key.set(o.Key)
	p.client.set(o.Client)
	p.name = 0
	if o.Key != "" && o.Scope == "" {
		p.name = uint32(nameSum("", p.key.stored(o.Key), int(p.key.kind)) >> 32)
	}
}

// methodCode numbers the usual methods, 0 for others: the workers work it
// out, so that the correlator looks a method up in a map only the first
// time it sees it.
func methodCode(m string) uint8 {
	switch m {
	case "GET":
		return 1
	case "POST":
		return 2
	case "PUT":
		return 3
	case "PATCH":
		return 4
	case "DELETE":
		return 5
	case "HEAD":
		return 6
	case "OPTIONS":
		return 7
	}
	return 0
}

// methodCodes is how many methodCode numbers (0 included).
const methodCodes = 8

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
		a.chunks = append(a.chunks, make([]byte, 0, size))
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
// objects keep must not hold the arena's chunks alive (see Set.Release).
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

// interner stores repeated strings once: the first limit distinct values
// are shared, later ones (routes with ids in them) go to the arena as they
// come, so memory stays bounded whatever the cardinality.
type interner struct {
	a     *arena
	seen  map[string]aref
	limit int
	// The last value looked up: a route comes in runs, and comparing to
	// it costs less than hashing it.
	last    string
	lastRef aref
}

// ref stores s once; idLike is idLike(s), which the parsers work out.
func (in *interner) ref(s string, idLike bool) aref {
	if s == "" {
		return 0
	}
	if idLike {
		// A path with an id in it is as good as unique: storing it costs
		// less than looking it up.
		return in.a.add(s)
	}
	if s == in.last && in.lastRef != 0 {
		return in.lastRef
	}
	if r, ok := in.seen[s]; ok {
		in.last, in.lastRef = in.a.get(r), r
		return r
	}
	r := in.a.add(s)
	if len(in.seen) < in.limit {
		if in.seen == nil {
			in.seen = map[string]aref{}
		}
		in.seen[strings.Clone(s)] = r
	}
	return r
}

// cobs is a compact observation. Strings are arena strings or table
// numbers; the rest are small numbers. A line that says more than these
// fields is also kept whole (flagFull; see Correlator.full).
type cobs struct {
	// Eight-byte fields first, then four, two and one: no padding.
	key      aref
	client   aref
	route    aref
	time     int64  // unix nanoseconds; 0 when unknown
	dur      uint32 // see packDuration
	line     int32
	next     int32  // the delivery's next observation, -1 at the end
	source   uint16 // Correlator.sources: format and file
	text     uint16 // Correlator.texts: detail and message
	status   int16
	upstream int16
	method   uint8 // Correlator.methods (the method is the pair's first string)
	tier     model.Tier
	outcome  model.Outcome
	flags    uint8
}

const (
	flagReplayed = 1 << iota
	flagRetryAfter
	flagFull // kept whole too: see Correlator.full
)

// pairTable numbers pairs of strings that repeat: (format, file),
// (detail, message), and methods (paired with ""), whose values come from
// a small set.
type pairTable struct {
	limit    int // how many pairs it may number; 0 means 65,536
	index    map[[2]string]uint16
	list     [][2]string
	last     [2]string
	lastID   uint16
	lastUsed bool
}

// id returns the pair's number; false once the table is full and the
// pair is not in it.
func (t *pairTable) id(a, b string) (uint16, bool) {
	k := [2]string{a, b}
	if t.lastUsed && k == t.last {
		return t.lastID, true // runs of one pair are the rule
	}
	i, ok := t.index[k]
	if !ok {
		if limit := cmp.Or(t.limit, 1<<16); len(t.list) >= limit {
			return 0, false
		}
		if t.index == nil {
			t.index = map[[2]string]uint16{}
		}
		k = [2]string{strings.Clone(a), strings.Clone(b)}
		i = uint16(len(t.list))
		t.list = append(t.list, k)
		t.index[k] = i
	}
	t.last, t.lastID, t.lastUsed = t.list[i], i, true
	return i, true
}

// cdelivery is a compact delivery: a chain of observations.
type cdelivery struct {
	first, last int32 // observation indexes
	next        int32 // the intent's next delivery
	// name is the top half of the hash that names the delivery's intent,
	// worked out as its first key arrived (see namedWhileRead); 0 when
	// it must be worked out from the chain.
	name        uint32
	interesting bool
	synthetic   bool
	keyed       bool // an observation carried a key or a key hash
	multiKey    bool // the request id carried several keys (Correlator.extraKeys)
}

// bitset is a set of small non-negative numbers, a bit each.
type bitset []uint64

func (b *bitset) set(i int32) {
	w := int(i >> 6)
	if w >= len(*b) {
		*b = append(*b, make([]uint64, w+1-len(*b))...)
	}
	(*b)[w] |= 1 << (i & 63)
}

func (b bitset) clear(i int32) {
	if w := int(i >> 6); w < len(b) {
		b[w] &^= 1 << (i & 63)
	}
}

func (b bitset) has(i int32) bool {
	w := int(i >> 6)
	return w < len(b) && b[w]&(1<<(i&63)) != 0
}

// cintent is a compact intent: a chain of deliveries. Its key is its
// first delivery's (see Correlator.intentKeyRef).
type cintent struct {
	extra       int32 // index into Correlator.intentExtras for a scope or a hash-only key, else -1
	first, last int32
	n           int32
	interesting bool
}

// intentExtra is what few intents have: a scope, or a key known only by
// its hash ("hash:…", or the raw key learned from another line).
type intentExtra struct {
	scope, hashKey string
}

// simple reports whether o says nothing beyond the fields cobs holds (a
// Detail and a Message from a small set of values, such as "499 client
// closed request" or "request completed", are among them: see
// Correlator.texts).
func simple(o *model.Observation) bool {
	return o.Scope == "" && o.Decision == "" && o.State == "" && o.Fingerprint == "" &&
		o.ResultID == "" && !o.Effect && o.Attempt == 0 && o.WorkflowID == "" && o.RunID == "" &&
		o.ActivityID == "" && o.ActivityType == "" && o.KeyHash == "" && o.Labels == "" && o.Source.Entry == 0
}

// fits reports whether cobs holds o's values exactly: a value past a
// field's range (a status beyond int16, a line past 2^31, a duration
// packDuration cannot hold, a time outside int64 nanoseconds or away from
// UTC) keeps the observation whole instead of changing what it says.
func fits(o *model.Observation) bool {
	_, ok := packDuration(o.Duration)
	return ok && int(int16(o.Status)) == o.Status && int(int16(o.UpstreamStatus)) == o.UpstreamStatus &&
		int(int32(o.Source.Line)) == o.Source.Line && timeFits(o.Time)
}

// timeFits reports whether cobs.time holds t: unix nanoseconds, 0 for the
// zero time (so the epoch itself does not fit), in UTC.
func timeFits(t time.Time) bool {
	// Seconds well inside what int64 nanoseconds reach (1678 to 2262);
	// the zero time is far outside.
	const limit = math.MaxInt64 / int64(time.Second)
	if sec := t.Unix(); sec > -limit && sec < limit {
		return t.Location() == time.UTC && sec*int64(time.Second)+int64(t.Nanosecond()) != 0
	}
	return t.IsZero()
}

// durUnits are the units packDuration counts in, finest first.
var durUnits = [4]time.Duration{time.Nanosecond, time.Microsecond, time.Millisecond, time.Second}

// packDuration stores d in 32 bits: a 30-bit count of the finest unit in
// durUnits that holds it exactly, and the unit's index. Nanoseconds reach
// 1.07 s, microseconds 17.8 minutes, milliseconds 12.4 days and seconds 34
// years; false when none holds d (or d is negative).
func packDuration(d time.Duration) (uint32, bool) {
	const max = 1 << 30
	switch {
	case d >= 0 && d < max: // most requests: no division
		return uint32(d) << 2, true
	case d < 0 || d%time.Microsecond != 0:
		return 0, false
	case d/time.Microsecond < max:
		return uint32(d/time.Microsecond)<<2 | 1, true
	case d%time.Millisecond != 0:
		return 0, false
	case d/time.Millisecond < max:
		return uint32(d/time.Millisecond)<<2 | 2, true
	case d%time.Second == 0 && d/time.Second < max:
		return uint32(d/time.Second)<<2 | 3, true
	}
	return 0, false
}

// durBits is what cobs.dur holds for d. An observation whose duration does
// not pack is kept whole (see fits), so its 0 is never read.
func durBits(d time.Duration) uint32 {
	v, _ := packDuration(d)
	return v
}

// unpackDuration reads what packDuration stored.
func unpackDuration(v uint32) time.Duration {
	return time.Duration(v>>2) * durUnits[v&3]
}

// notable reports whether an observation makes its delivery worth a rule's
// look on its own: anything but a plain, answered request.
func notable(o *model.Observation) bool { return notableSimple(o, simple(o)) }

// notableSimple is notable for an o whose simple(o) is known.
func notableSimple(o *model.Observation, simple bool) bool {
	return !simple || o.Detail != "" || o.Message != "" || o.Outcome.Lost() || o.Outcome == model.OutcomeNotDelivered || o.Status >= 400 ||
		o.UpstreamStatus >= 400 || o.Replayed || o.RetryAfter
}

// materialize rebuilds a full Observation from a compact one.
func (c *Correlator) materialize(i int32, rid string, s *slab) *model.Observation {
	co := c.obs.at(i)
	if f := c.full(i); f >= 0 {
		return c.fulls[f]
	}
	src, text := c.sources.list[co.source], c.texts.list[co.text]
	o := s.observation()
	*o = model.Observation{Tier: co.tier, Format: src[0], Duration: unpackDuration(co.dur),
		Method: c.methods.list[co.method][0], Route: s.own(&c.arena, co.route), Status: int(co.status), UpstreamStatus: int(co.upstream),
		Outcome: co.outcome, RequestID: rid, Key: s.own(&c.arena, co.key), Client: s.own(&c.arena, co.client),
		Detail: text[0], Message: text[1], Replayed: co.flags&flagReplayed != 0, RetryAfter: co.flags&flagRetryAfter != 0,
		Source: model.Source{File: src[1], Line: int(co.line)}}
	if co.time != 0 {
		o.Time = time.Unix(0, co.time).UTC()
	}
	return o
}

// The fields follow-ups are compared by (see followUps.follows).
const (
	fieldClient = iota
	fieldMethod
	fieldRoute
)

// appendField appends a string field of observation j (or of none, for
// j < 0) to buf in the form appendSig lays out.
func (c *Correlator) appendField(buf []byte, j int32, field int) []byte {
	switch {
	case j < 0 && field == fieldMethod:
		return buf
	case j < 0:
		return appendPacked(buf, "", packed{})
	}
	if f := c.full(j); f >= 0 {
		o := c.fulls[f]
		if field == fieldMethod {
			return append(buf, o.Method...)
		}
		s := [...]string{fieldClient: o.Client, fieldRoute: o.Route}[field]
		return appendPacked(buf, s, pack(s))
	}
	co := c.obs.at(j)
	r := co.route
	switch field {
	case fieldClient:
		r = co.client
	case fieldMethod:
		return append(buf, c.methods.list[co.method][0]...)
	}
	raw, kind := c.arena.raw(r)
	return append(append(append(buf, byte(kind)), raw...), 0)
}

// obsTime is when observation j started.
func (c *Correlator) obsTime(j int32) time.Time {
	if f := c.full(j); f >= 0 {
		return c.fulls[f].Time
	}
	if t := c.obs.at(j).time; t != 0 {
		return time.Unix(0, t).UTC()
	}
	return time.Time{}
}

// chunked is an append-only list stored in fixed-size chunks: appending
// never copies what is stored, and indexes stay valid.
type chunked[T any] struct {
	chunks [][]T
	n      int
}

const chunkBits = 14

func (l *chunked[T]) add(v T) int32 {
	if l.n>>chunkBits == len(l.chunks) {
		l.chunks = append(l.chunks, make([]T, 0, 1<<chunkBits))
	}
	c := &l.chunks[l.n>>chunkBits]
	*c = append(*c, v)
	l.n++
	return int32(l.n - 1)
}

func (l *chunked[T]) at(i int32) *T { return &l.chunks[i>>chunkBits][i&(1<<chunkBits-1)] }

func (l *chunked[T]) len() int { return l.n }

// idLike reports whether a path holds an id: a run of three digits or a
// long segment, as in /v1/orders/48213 or /v1/orders/ord_8H2kQa9x.
func idLike(s string) bool {
	digits := 0
	seg := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			if digits++; digits >= 3 {
				return true
			}
		default:
			digits = 0
		}
		if c == '/' {
			seg = 0
		} else if seg++; seg > 24 {
			return true
		}
	}
	return false
}

// viewString views b as a string without copying; it is valid while b is
// unchanged.
func viewString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
