package model

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseTime reads a timestamp in any of the forms real log formats write:
// RFC 3339 at any precision with Z or an offset, epoch seconds, milliseconds,
// microseconds or nanoseconds (numbers or strings, e-notation included),
// nginx/Apache $time_local ("10/Oct/2000:13:55:36 -0700", brackets allowed),
// HAProxy's "06/Feb/2009:12:14:14.655", Go's log layout "2024/01/15 10:30:45",
// Go's time.String() ("2014-03-10 19:57:38.562264131 -0400 EDT", old
// logrus), RFC 1123 ("Mon, 10 Mar 2014 19:57:38 -0400") and Python's
// "2003-07-08 16:49:45,896". Forms without a zone are read as UTC.
func ParseTime(s string) (time.Time, bool) {
	if sec, ns, ok := epochSeconds(s); ok {
		return time.Unix(sec, ns).UTC(), true // nginx's $msec: the common case first
	}
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	if s == "" || s == "-" {
		return time.Time{}, false
	}
	c := s[0]
	if c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' {
		if t, ok := parseEpoch(s); ok {
			return t, true
		}
	}
	if len(s) >= 19 && s[4] == '-' && s[7] == '-' {
		// RFC 3339 (and ISO with a space instead of T, or Python's comma).
		r := []byte(s)
		if r[10] == ' ' {
			r[10] = 'T'
		}
		if len(r) > 19 && r[19] == ',' {
			r[19] = '.'
		}
		if t, err := time.Parse(time.RFC3339Nano, string(r)); err == nil {
			return t, true
		}
		if i := strings.Index(string(r), " m=+"); i > 0 {
			r = r[:i] // Go's monotonic clock reading, from time.String()
		}
		for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02T15:04:05.999999999Z0700",
			"2006-01-02T15:04:05.999999999 -0700", "2006-01-02T15:04:05.999999999 MST",
			"2006-01-02T15:04:05.999999999 -0700 MST"} {
			if t, err := time.Parse(layout, string(r)); err == nil {
				return t, true
			}
		}
		return time.Time{}, false
	}
	if len(s) >= 19 && s[4] == '/' && s[7] == '/' {
		if t, err := time.Parse("2006/01/02 15:04:05.999999999", s); err == nil {
			return t, true
		}
		return time.Time{}, false
	}
	if len(s) >= 25 && s[3] == ',' {
		// RFC 1123, as HTTP dates and some Go and Java loggers write them.
		for _, layout := range []string{time.RFC1123Z, time.RFC1123} {
			if t, err := time.Parse(layout, s); err == nil {
				return t, true
			}
		}
		return time.Time{}, false
	}
	if len(s) >= 20 && s[2] == '/' && s[6] == '/' {
		for _, layout := range []string{"02/Jan/2006:15:04:05.999999999 -0700", "02/Jan/2006:15:04:05.999999999"} {
			if t, err := time.Parse(layout, s); err == nil {
				return t, true
			}
		}
	}
	return time.Time{}, false
}

// epochSeconds reads seconds since the epoch with an optional fraction
// ("1795996800.148"), in one pass, when s is exactly that and the seconds
// fall where parseEpoch would read seconds (before 2286).
func epochSeconds(s string) (sec, ns int64, ok bool) {
	if len(s) == 14 && s[10] == '.' {
		// nginx's $msec, "1795996800.148": the first eight digits read
		// as one word, the rest one by one, no loop.
		w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		d8, d9, f0, f1, f2 := s[8]-'0', s[9]-'0', s[11]-'0', s[12]-'0', s[13]-'0'
		if eightDigits(w) && d8 <= 9 && d9 <= 9 && f0 <= 9 && f1 <= 9 && f2 <= 9 {
			sec = int64(eightDigitsValue(w))*100 + int64(d8)*10 + int64(d9)
			if sec > 0 {
				return sec, (int64(f0)*100 + int64(f1)*10 + int64(f2)) * 1e6, true
			}
			return 0, 0, false
		}
	}
	i := 0
	for ; i < len(s) && s[i]-'0' <= 9; i++ {
		sec = sec*10 + int64(s[i]-'0')
	}
	if i == 0 || i > 10 || sec <= 0 || sec >= 1e10 {
		return 0, 0, false
	}
	if i == len(s) {
		return sec, 0, true
	}
	if s[i] != '.' || i+1 == len(s) {
		return 0, 0, false
	}
	scale := int64(1e9)
	for i++; i < len(s); i++ {
		c := s[i] - '0'
		if c > 9 {
			return 0, 0, false
		}
		if scale > 1 {
			scale /= 10
			ns += int64(c) * scale
		}
	}
	return sec, ns, true
}

// eightDigits reports whether the eight bytes of w (the first in the low
// byte) are all ASCII digits: each byte's high nibble is 3, and adding 6
// to it does not carry into the high nibble.
func eightDigits(w uint64) bool {
	return (w&0xF0F0F0F0F0F0F0F0)|((w+0x0606060606060606)&0xF0F0F0F0F0F0F0F0)>>4 == 0x3333333333333333
}

// eightDigitsValue is the number the eight digits of w spell, the first
// (the low byte) the most significant: pairs, then fours, then all eight
// are combined in the word's lanes.
func eightDigitsValue(w uint64) uint64 {
	w = (w & 0x0F0F0F0F0F0F0F0F) * (10<<8 + 1) >> 8
	w = (w & 0x00FF00FF00FF00FF) * (100<<16 + 1) >> 16
	return (w & 0x0000FFFF0000FFFF) * (10000<<32 + 1) >> 32
}

// parseEpoch reads a number of seconds, milliseconds, microseconds or
// nanoseconds since the epoch, choosing the unit by magnitude: logs from
// 2001 to 2286 in any of the units fall in disjoint ranges.
func parseEpoch(s string) (time.Time, bool) {
	if i := strings.IndexAny(s, "eE."); i < 0 {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			return time.Time{}, false
		}
		switch {
		case n < 1e10:
			return time.Unix(n, 0).UTC(), true
		case n < 1e13:
			return time.UnixMilli(n).UTC(), true
		case n < 1e16:
			return time.UnixMicro(n).UTC(), true
		default:
			return time.Unix(0, n).UTC(), true
		}
	}
	// Fractional seconds: split at the dot to keep nanosecond precision
	// that a float64 would round away.
	if !strings.ContainsAny(s, "eE") {
		dot := strings.IndexByte(s, '.')
		sec, err := strconv.ParseInt(s[:dot], 10, 64)
		if err != nil || sec <= 0 {
			return time.Time{}, false
		}
		frac := s[dot+1:]
		if len(frac) > 9 {
			frac = frac[:9]
		}
		var ns int64
		if frac != "" {
			v, err := strconv.ParseInt(frac, 10, 64)
			if err != nil || v < 0 {
				return time.Time{}, false
			}
			ns = v * int64(math.Pow10(9-len(frac)))
		}
		switch {
		case sec < 1e10:
			return time.Unix(sec, ns).UTC(), true
		case sec < 1e13:
			return time.UnixMilli(sec).Add(time.Duration(ns / 1e3)).UTC(), true
		}
		return time.Time{}, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return time.Time{}, false
	}
	switch {
	case f < 1e10:
		sec, frac := math.Modf(f)
		return time.Unix(int64(sec), int64(frac*1e9)).UTC(), true
	case f < 1e13:
		return time.UnixMilli(int64(f)).UTC(), true
	case f < 1e16:
		return time.UnixMicro(int64(f)).UTC(), true
	case f < 1e19:
		return time.Unix(0, int64(f)).UTC(), true
	}
	return time.Time{}, false
}

// Unit is the unit a format writes bare duration numbers in.
type Unit time.Duration

// Units of bare durations.
const (
	Nanoseconds  = Unit(time.Nanosecond)
	Microseconds = Unit(time.Microsecond)
	Milliseconds = Unit(time.Millisecond)
	Seconds      = Unit(time.Second)
)

// ParseDuration reads a duration written as a bare number in the given unit
// ("0.153", "1870") or with its own unit ("0.5s", "12ms", "1.5µs", the
// protobuf JSON form "0.014512s"). Negative values (HAProxy's -1 for "not
// reached") and junk give false.
func ParseDuration(s string, unit Unit) (time.Duration, bool) {
	s = strings.TrimSpace(s)
	if s == "" || s == "-" {
		return 0, false
	}
	if last := s[len(s)-1]; last < '0' || last > '9' {
		if last == '.' {
			return 0, false
		}
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return 0, false
		}
		return d, true
	}
	if d, ok := exactDecimal(s, unit); ok {
		return d, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	v := f * float64(unit)
	if v > float64(math.MaxInt64) {
		return 0, false
	}
	return time.Duration(v), true
}

// exactDecimal reads "123" or "2.398" without float rounding, so that
// "1.001" seconds is exactly 1001ms.
func exactDecimal(s string, unit Unit) (time.Duration, bool) {
	var n int64
	i := 0
	for ; i < len(s) && s[i]-'0' <= 9; i++ {
		if i == 12 {
			return 0, false
		}
		n = n*10 + int64(s[i]-'0')
	}
	if i == 0 {
		return 0, false
	}
	d := time.Duration(n) * time.Duration(unit)
	if i == len(s) {
		return d, true
	}
	if s[i] != '.' || len(s)-i-1 > 18 {
		return 0, false
	}
	// Nine digits of fraction are as fine as a Duration goes; the rest
	// must still be digits.
	var f, digits int64
	for j, c := range []byte(s[i+1:]) {
		if c-'0' > 9 {
			return 0, false
		}
		if j < 9 {
			f, digits = f*10+int64(c-'0'), digits+1
		}
	}
	if unit > Seconds {
		// f nanoseconds' worth of nine digits times a large unit could
		// overflow where the fraction times the unit does not.
		return d + time.Duration(f*int64(unit)/int64(pow10[digits])), true
	}
	// The fraction in billionths, so that the division is by a constant
	// (a multiplication) and not by 10^digits: the same quotient, since
	// f*unit/10^k = f*10^(9-k)*unit/10^9.
	return d + time.Duration(f*int64(pow10[9-digits])*int64(unit)/1e9), true
}

var pow10 = [10]int64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9}
