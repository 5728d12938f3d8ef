package formats

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"strconv"

	"github.com/tidwall/gjson"
)

// scanObject reads the top-level members of one JSON object in a single
// pass: it checks the object's structure (balanced, quoted, separated; a
// truncated or garbled line fails), and records each member's name and
// value without parsing nested values, which gjson reads later only where a
// format needs them. Strings without escapes are used in place.
func (r *record) scanObject(b []byte) bool {
	return r.scanObjectLike(b, nil)
}

// scanObjectLike is scanObject for a line that likely has the key set of
// hint (the previous line's, in a log written by one logger). When hint
// knows the text between its members' values as a line of its shape wrote
// it (seps: `{"a":`, `,"b":`), a line laid out the same is read by
// comparing each separator whole and reading only the values. Otherwise
// each name is compared with the expected one instead of searched for.
// When all match, r.hinted tells shapeOf it need not look the key set up.
func (r *record) scanObjectLike(b []byte, hint *shape) bool {
	r.keys = r.keyBuf[:0]
	r.vals = r.vals[:0]
	r.loaded = nil
	r.shape = nil
	r.tooDeep, r.ctl, r.odd = false, false, ""
	r.hinted, r.hint, r.laidOut = false, hint, false
	r.text = bytesToString(b)
	if uint64(len(b)) > math.MaxUint32 {
		return false // members' bounds are 32-bit; the reader's lines stop at 1 GiB
	}
	like := hint != nil && hint.plainKeys
	i, n := 0, 0
	if like && len(hint.seps) == len(hint.keys) {
		// Equal bytes parse alike: a separator taken from a valid line of
		// this shape holds the same punctuation and the same name here.
		words := hint.sepWords[:len(hint.seps)]
		for n < len(hint.seps) {
			sep := hint.seps[n]
			if sw := &words[n]; i+32 <= len(b) && !sw.long {
				// Four words of the line against the separator's, masked
				// to its length: no call, no branch on its length.
				t := b[i : i+32]
				if (binary.LittleEndian.Uint64(t)^sw.w[0])&sw.m[0]|(binary.LittleEndian.Uint64(t[8:])^sw.w[1])&sw.m[1]|
					(binary.LittleEndian.Uint64(t[16:])^sw.w[2])&sw.m[2]|(binary.LittleEndian.Uint64(t[24:])^sw.w[3])&sw.m[3] != 0 {
					break
				}
			} else if len(b)-i < len(sep) || string(b[i:i+len(sep)]) != sep {
				break
			}
			j, ok := r.value(b, skipWS(b, i+len(sep)))
			if !ok {
				return false
			}
			i = j
			n++
		}
		if n == len(hint.keys) {
			if j := skipWS(b, i); j < len(b) && b[j] == '}' && skipWS(b, j+1) == len(b) {
				r.keys = hint.keys
				r.hinted, r.laidOut = true, true
				return true
			}
		}
		if n > 0 {
			r.keys = append(r.keys, hint.keys[:n]...)
		}
	}
	if n == 0 {
		i = skipWS(b, 0)
		if i >= len(b) || b[i] != '{' {
			return false
		}
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == '}' {
			return skipWS(b, i+1) == len(b)
		}
	} else {
		// After the last value read by separators: the next member's
		// separator, or the object's end, is read the long way.
		i = skipWS(b, i)
		if i >= len(b) {
			return false
		}
		if b[i] == '}' {
			r.keyBuf = r.keys
			return skipWS(b, i+1) == len(b)
		}
		if b[i] != ',' {
			return false
		}
		i = skipWS(b, i+1)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		var key string
		matched := false
		if n := len(r.keys); like && n < len(hint.keys) {
			// The expected name, quote-free and backslash-free, followed
			// by a quote: that quote ends the name.
			k := hint.keys[n]
			if end := i + 1 + len(k); end < len(b) && b[end] == '"' && string(b[i+1:end]) == k {
				key, i, matched = k, end, true
			}
		}
		like = like && matched
		if !matched {
			end, esc, ctl := stringEnd(b, i)
			if end < 0 {
				return false
			}
			r.ctl = r.ctl || ctl
			key = bytesToString(b[i+1 : end])
			if esc {
				key = gjson.ParseBytes(b[i : end+1]).Str
			}
			i = end
		}
		i = skipWS(b, i+1)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipWS(b, i+1)
		j, ok := r.value(b, i)
		if !ok {
			return false
		}
		i = j
		r.keys = append(r.keys, key)
		i = skipWS(b, i)
		if i >= len(b) {
			return false
		}
		if b[i] == '}' {
			r.keyBuf = r.keys
			r.hinted = like && len(r.keys) == len(hint.keys)
			return skipWS(b, i+1) == len(b)
		}
		if b[i] != ',' {
			return false
		}
		i = skipWS(b, i+1)
	}
}

// value reads the member value at b[i] into r.vals, returning where it
// ends; false when it is not a valid value.
func (r *record) value(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	m := member{start: uint32(i)}
	switch c := b[i]; {
	case c == '"':
		// quoteBackslashOrControl's loop, here for the usual string, which
		// holds neither escapes nor control bytes: its end is found without
		// a call; any other string is read by stringEnd.
		j := i + 1
		for {
			if j+8 > len(b) {
				// The last bytes of the line, short of a word (the last
				// value's end).
				for j < len(b) && b[j] != '"' && b[j] != '\\' && b[j] >= 0x20 {
					j++
				}
				break
			}
			w := binary.LittleEndian.Uint64(b[j:])
			q, s := w^(ones*'"'), w^(ones*'\\')
			if stop := ((q - ones) | (s - ones) | (w - ones*0x20)) &^ w & highs; stop != 0 {
				j += bits.TrailingZeros64(stop) >> 3
				break
			}
			j += 8
		}
		if j < len(b) && b[j] == '"' {
			m.kind, i = gjson.String, j+1
			break
		}
		end, esc, ctl := stringEnd(b, i)
		if end < 0 {
			return 0, false
		}
		r.ctl = r.ctl || ctl
		m.kind, m.esc = gjson.String, esc
		i = end + 1
	case c == '{' || c == '[':
		end, ctl := containerEnd(b, i)
		r.ctl = r.ctl || ctl
		if end == tooDeep {
			r.tooDeep = true
			return 0, false
		}
		if end < 0 {
			return 0, false
		}
		m.kind = gjson.JSON
		i = end + 1
	default:
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ' ' && b[j] != '\t' && b[j] != '\r' && b[j] != '\n' {
			j++
		}
		raw := bytesToString(b[i:j])
		switch {
		case raw == "true":
			m.kind = gjson.True
		case raw == "false":
			m.kind = gjson.False
		case raw == "null":
			m.kind = gjson.Null
		case len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9'):
			if _, err := strconv.ParseFloat(raw, 64); err != nil && !errors.Is(err, strconv.ErrRange) {
				return 0, false // out of range (1e700) is valid JSON; junk is not
			}
			m.kind = gjson.Number
		default:
			return 0, false
		}
		i = j
	}
	m.end = uint32(i)
	r.vals = append(r.vals, m)
	return i, true
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// stringEnd returns the index of the quote closing the string that opens
// at b[i], whether it holds escapes, and whether it holds raw control
// bytes; -1 when it is not closed. A raw control byte (RFC 8259 wants it
// escaped) is accepted, as loggers that build JSON by hand write them and
// outputs escape them anyway, but it is reported so that the line is
// counted as repaired.
func stringEnd(b []byte, i int) (int, bool, bool) {
	esc, ctl := false, false
	for j := i + 1; ; {
		k := quoteBackslashOrControl(b, j)
		if k < 0 {
			return -1, false, false
		}
		switch b[k] {
		case '"':
			return k, esc, ctl
		case '\\':
			esc = true
			j = k + 2 // past the escaped byte
			if j > len(b) {
				return -1, false, false
			}
		default:
			ctl = true
			j = k + 1
		}
	}
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// quoteBackslashOrControl returns the index of the first '"', '\\' or
// control byte (below 0x20) in b from j on, or -1. Bytes are tested eight
// at a time with word arithmetic, to the string's end: with control bytes
// to find as well, one pass beats the runtime's vectorised search for the
// quote and then the backslash over the strings logs hold (user agents,
// paths, messages of a few hundred bytes).
func quoteBackslashOrControl(b []byte, j int) int {
	for ; j+8 <= len(b); j += 8 {
		w := binary.LittleEndian.Uint64(b[j:])
		q, s := w^(ones*'"'), w^(ones*'\\')
		// A byte of q or s is zero where w has the byte sought, and
		// w-0x20 borrows into a byte's high bit where it is below 0x20;
		// the lowest flagged byte is always a true one. Below it nothing
		// borrows, and an ASCII byte of q, s or w minus its constant has
		// its high bit set only when it is the byte sought; a byte with
		// its high bit set (UTF-8) is none of them, and &^ w drops it:
		// one mask for the three tests, as q and s share w's high bits.
		if m := ((q - ones) | (s - ones) | (w - ones*0x20)) &^ w & highs; m != 0 {
			return j + bits.TrailingZeros64(m)>>3
		}
	}
	for ; j < len(b); j++ {
		if b[j] == '"' || b[j] == '\\' || b[j] < 0x20 {
			return j
		}
	}
	return -1
}

// tooDeep is containerEnd's answer for nesting past 512 levels.
const tooDeep = -2

// containerEnd returns the index closing the object or array at b[i],
// skipping strings, or -1 when it is not closed (tooDeep past 512 levels),
// and whether a string in it holds raw control bytes.
func containerEnd(b []byte, i int) (int, bool) {
	depth, ctl := 0, false
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '"':
			end, _, c := stringEnd(b, j)
			if end < 0 {
				return -1, false
			}
			ctl = ctl || c
			j = end
		case '{', '[':
			depth++
			if depth > 512 {
				return tooDeep, false
			}
		case '}', ']':
			depth--
			if depth == 0 {
				return j, ctl
			}
		}
	}
	return -1, false
}
