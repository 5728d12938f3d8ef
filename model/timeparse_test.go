package model

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseTime(t *testing.T) {
	utc := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	tests := []struct {
		in   string
		want time.Time
	}{
		{"2024-12-29T11:42:47.503803974Z", utc("2024-12-29T11:42:47.503803974Z")},
		{"2014-03-10 19:57:38.562264131 -0400 EDT", utc("2014-03-10T23:57:38.562264131Z")},          // Go's time.String(), old logrus
		{"2014-03-10 19:57:38.562264131 -0400 EDT m=+0.001", utc("2014-03-10T23:57:38.562264131Z")}, // with the monotonic reading
		{"Mon, 10 Mar 2014 19:57:38 -0400", utc("2014-03-10T23:57:38Z")},                            // RFC 1123 with an offset
		{"Mon, 10 Mar 2014 23:57:38 GMT", utc("2014-03-10T23:57:38Z")},                              // an HTTP date
		{"2024-12-29T12:42:47.503803974+01:00", utc("2024-12-29T11:42:47.503803974Z")},
		{"2022-11-08T15:28:26.5-05:00", utc("2022-11-08T20:28:26.5Z")},
		{"2018-07-02T22:23:00.186641Z", utc("2018-07-02T22:23:00.186641Z")},
		{"2016-04-15T20:17:00.310Z", utc("2016-04-15T20:17:00.310Z")},
		{"2015-05-29T16:10:30.424+02:00", utc("2015-05-29T14:10:30.424Z")},
		{"2023-07-18T13:44:17+00:00", utc("2023-07-18T13:44:17Z")},
		{"1646861401.5241024", utc("2022-03-09T21:30:01.5241024Z")},
		{"1690184907.681", utc("2023-07-24T07:48:27.681Z")},
		{"1.572161051846623e+09", time.Unix(1572161051, 846623000).UTC()},
		{"1531171074631", time.UnixMilli(1531171074631).UTC()},
		{"1544712660300000000", time.Unix(0, 1544712660300000000).UTC()},
		{"1544712660300000", time.UnixMicro(1544712660300000).UTC()},
		{"1700000000", time.Unix(1700000000, 0).UTC()},
		{"10/Oct/2000:13:55:36 -0700", utc("2000-10-10T20:55:36Z")},
		{"[10/Oct/2000:13:55:36 -0700]", utc("2000-10-10T20:55:36Z")},
		{"06/Feb/2009:12:14:14.655", utc("2009-02-06T12:14:14.655Z")},
		{"2024/01/15 10:30:45", utc("2024-01-15T10:30:45Z")},
		{"2003-07-08 16:49:45,896", utc("2003-07-08T16:49:45.896Z")},
		{"2003-07-08 16:49:45.896", utc("2003-07-08T16:49:45.896Z")},
	}
	for _, tt := range tests {
		got, ok := ParseTime(tt.in)
		if !ok {
			t.Errorf("ParseTime(%q) failed", tt.in)
			continue
		}
		// Float parsing may round below a microsecond.
		if d := got.Sub(tt.want); d > time.Microsecond || d < -time.Microsecond {
			t.Errorf("ParseTime(%q) = %s, want %s", tt.in, got.Format(time.RFC3339Nano), tt.want.Format(time.RFC3339Nano))
		}
	}
	for _, bad := range []string{"", "-", "yesterday", "2024-13-45T99:99:99Z", "0", "-5", "NaN", "1e400", "[]", "12/ab/2000:00:00:00"} {
		if got, ok := ParseTime(bad); ok {
			t.Errorf("ParseTime(%q) = %s, want failure", bad, got)
		}
	}
}

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		unit Unit
		want time.Duration
		ok   bool
	}{
		{"0.153", Seconds, 153 * time.Millisecond, true},
		{"2.398", Seconds, 2398 * time.Millisecond, true},
		{"1870", Milliseconds, 1870 * time.Millisecond, true},
		{"8184335", Nanoseconds, 8184335, true},
		{"0.5s", Milliseconds, 500 * time.Millisecond, true},
		{"0.014512s", Seconds, 14512 * time.Microsecond, true},
		{"12ms", Seconds, 12 * time.Millisecond, true},
		{"-1", Milliseconds, 0, false},
		{"-", Seconds, 0, false},
		{"", Seconds, 0, false},
		{"abc", Seconds, 0, false},
		{"1e300", Seconds, 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseDuration(tt.in, tt.unit)
		if ok != tt.ok || got != tt.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"2024-12-29T11:42:47.503803974Z", "1690184907.681", "10/Oct/2000:13:55:36 -0700", "1.5e9", "2024/01/15 10:30:45"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tm, ok := ParseTime(s)
		if !ok && !tm.IsZero() {
			t.Fatalf("failure with a non-zero time %v", tm)
		}
	})
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"0.153", "1870", "0.5s", "-1", "1e9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, ok := ParseDuration(s, Milliseconds)
		if ok && d < 0 {
			t.Fatalf("negative duration %v from %q", d, s)
		}
	})
}

// FuzzEpochSeconds checks the fast path for epoch seconds against the
// general reader: wherever it answers, it answers the same.
func FuzzEpochSeconds(f *testing.F) {
	for _, s := range []string{"1795996800.148", "1795996800", "1.5", "9999999999.123456789123", "0.1", "1795996800."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sec, ns, ok := epochSeconds(s)
		if !ok {
			return
		}
		want, wok := parseEpoch(s)
		if got := time.Unix(sec, ns).UTC(); !wok || !got.Equal(want) {
			t.Fatalf("%q: fast %v, general %v %v", s, got, want, wok)
		}
	})
}

// FuzzExactDecimal checks the one-pass decimal reader against the
// definition it replaced (split at the dot, two ParseInts), wherever the
// input is plain digits with at most one dot.
func FuzzExactDecimal(f *testing.F) {
	for _, s := range []string{"0.098", "12", "1.5", "123456789012.123456789012345678", "0.0000000019", "1."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range []byte(s) {
			if c != '.' && (c < '0' || c > '9') {
				return
			}
		}
		// Each unit a format reads bare numbers in, and one above a
		// second, whose fraction is scaled another way.
		for _, unit := range []Unit{Nanoseconds, Microseconds, Milliseconds, Seconds, Unit(time.Minute)} {
			want, wok := func() (time.Duration, bool) {
				ip, fp, _ := strings.Cut(s, ".")
				if ip == "" || len(ip) > 12 || len(fp) > 18 || strings.Contains(fp, ".") {
					return 0, false
				}
				n, _ := strconv.ParseInt(ip, 10, 64)
				d := time.Duration(n) * time.Duration(unit)
				if len(fp) > 9 {
					fp = fp[:9]
				}
				if fp != "" {
					v, _ := strconv.ParseInt(fp, 10, 64)
					d += time.Duration(v * int64(unit) / int64(math.Pow10(len(fp))))
				}
				return d, true
			}()
			got, ok := exactDecimal(s, unit)
			if ok != wok || got != want {
				t.Fatalf("%q in %v: %v %v, want %v %v", s, time.Duration(unit), got, ok, want, wok)
			}
		}
	})
}
