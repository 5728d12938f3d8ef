package formats

import (
	"strings"
	"testing"
	"time"
)

// TestRequestLinesNoFormatReads: lines that look like requests (a
// method, a target, a status) and that no format reads are counted, and
// the pattern laid out from the first reads them all once it is a
// config's: the facts are the lines' own, written here.
func TestRequestLinesNoFormatReads(t *testing.T) {
	type fact struct {
		method, route, id, key string
		status                 int
		at                     string
		took                   time.Duration
	}
	for _, tc := range []struct {
		name  string
		lines []string
		want  []fact
	}{{
		name: "status before the request, ids by position, a timestamp prefix",
		lines: []string{
			`2026-12-07T10:00:01Z lb-7 201 POST /v1/orders 12ms c9b2decb-ebc7-4a9b-99d6-69712772ef41 "0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41" tail`,
			`2026-12-07T10:00:02Z lb-7 409 PUT /v1/orders/7 3.5ms 14fe277217966d99b9a47cbebced2b9c "1b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41" tail`,
		},
		want: []fact{
			{"POST", "/v1/orders", "c9b2decb-ebc7-4a9b-99d6-69712772ef41", "0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41", 201, "2026-12-07T10:00:01Z", 12 * time.Millisecond},
			{"PUT", "/v1/orders/7", "14fe277217966d99b9a47cbebced2b9c", "1b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41", 409, "2026-12-07T10:00:02Z", 3500 * time.Microsecond},
		},
	}, {
		name: "a bracketed time, a quoted request line, named ids after it, status far from it",
		lines: []string{
			`edge [07/Dec/2026:10:00:01 +0000] "POST /v1/pay HTTP/1.1" "curl/8.5" up=10.0.0.2:80 code 502 request_id=req-1 idempotency_key=k-1`,
			`edge [07/Dec/2026:10:00:03 +0000] "POST /v1/pay HTTP/1.1" "curl/8.5" up=10.0.0.3:80 code 201 request_id=req-2 idempotency_key=k-1`,
		},
		want: []fact{
			{"POST", "/v1/pay", "req-1", "k-1", 502, "2026-12-07T10:00:01Z", 0},
			{"POST", "/v1/pay", "req-2", "k-1", 201, "2026-12-07T10:00:03Z", 0},
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			res := readLines(t, NewParser(nil, nil), "odd.log", tc.lines)
			if len(res.Obs) != 0 {
				t.Fatalf("a format read %d lines (%s): pick lines no format reads", len(res.Obs), res.Obs[0].Format)
			}
			// Skipped, said with file:line: never set aside as saying
			// nothing about a request.
			if res.Ignored != 0 || len(res.Skips) != len(tc.lines) || res.Skips[0].Reason != unreadRequestReason {
				t.Errorf("%d set aside, %d skipped (%v); want every line skipped as a request line", res.Ignored, len(res.Skips), res.Skips)
			}
			if res.RequestLines != len(tc.lines) || res.RequestPattern == "" || res.RequestFirst.Line != 1 {
				t.Fatalf("counted %d request lines, first at %v, pattern %q; want %d, line 1, a pattern", res.RequestLines, res.RequestFirst, res.RequestPattern, len(tc.lines))
			}
			cfg := &Config{Patterns: []PatternConfig{{Name: "requests", Regex: res.RequestPattern}}}
			if err := cfg.Compile(); err != nil {
				t.Fatalf("the pattern does not compile: %v\n%s", err, res.RequestPattern)
			}
			got := readLines(t, NewParser(cfg, nil), "odd.log", tc.lines)
			if len(got.Obs) != len(tc.want) || got.RequestLines != 0 {
				t.Fatalf("read %d lines (%d still unread) with %s", len(got.Obs), got.RequestLines, res.RequestPattern)
			}
			for i, w := range tc.want {
				o := got.Obs[i]
				if o.Method != w.method || o.Route != w.route || o.Status != w.status || o.RequestID != w.id || o.Key != w.key ||
					!o.Time.Equal(mustTime(w.at)) || o.Duration != w.took {
					t.Errorf("line %d: got %s %s %d id=%q key=%q at %v took %v; want %+v", i+1, o.Method, o.Route, o.Status, o.RequestID, o.Key, o.Time, o.Duration, w)
				}
			}
		})
	}
}

// TestNotRequestLines: lines that lack a method, a target or a status
// are not said to be requests; nor are lines a format reads.
func TestNotRequestLines(t *testing.T) {
	for _, line := range []string{
		`2026-12-07T10:00:01Z worker started, 200 jobs queued`,        // a status-shaped number, no request
		`2026-12-07T10:00:01Z client POST /v1/orders then gave up`,    // a request, no status
		`2026-12-07T10:00:01Z see https://example.com/docs 404 times`, // a URL without a method
		`POSTAL /v1/orders 201`, // not a method
		`127.0.0.1 - - [07/Dec/2026:10:00:01 +0000] "POST /v1/orders HTTP/1.1" 201 57 "-" "curl/8"`, // combined: read
		elbFormat.Samples[0].Line, // read as elb
	} {
		res := readLines(t, NewParser(nil, nil), "x.log", []string{line})
		if res.RequestLines != 0 {
			t.Errorf("%s\n  said to be a request line no format reads", line)
		}
	}
	if _, ok := requestPattern(`GET /x and 2026-12-07T10:00:01Z`); ok {
		t.Error("a pattern for a line without a status")
	}
}

// TestRequestPatternHoldsNoValue: the pattern names each field by its
// kind; nothing of the line's values (a secret among them) is in it.
func TestRequestPatternHoldsNoValue(t *testing.T) {
	pat, ok := requestPattern(`2026-12-07T10:00:01Z lb sk_live_4eC39HqLyjWDarjtT1zdp7dc "GET /v1/x?token=hunter2 HTTP/1.1" 200 token=hunter2`)
	if !ok {
		t.Fatal("no pattern")
	}
	for _, v := range []string{"sk_live", "hunter2", "v1", "2026", "lb"} {
		if strings.Contains(pat, v) {
			t.Errorf("pattern %s holds %q", pat, v)
		}
	}
}

// FuzzRequestPattern: any line lays out as a pattern that compiles, or
// as none; the reader never crashes.
func FuzzRequestPattern(f *testing.F) {
	f.Add(`2026-12-07T10:00:01Z lb-7 201 POST /v1/orders 12ms c9b2decb-ebc7-4a9b-99d6-69712772ef41 "k" tail`)
	f.Add(`edge [07/Dec/2026:10:00:01 +0000] "POST /v1/pay HTTP/1.1" "a\"b" code 502 rid=req-1`)
	f.Add(`"GET / HTTP/1.1" [ 200 "`)
	f.Fuzz(func(t *testing.T, line string) {
		pat, ok := requestPattern(line)
		if !ok {
			return
		}
		cfg := &Config{Patterns: []PatternConfig{{Regex: pat}}}
		if err := cfg.Compile(); err != nil {
			t.Fatalf("%q: pattern %s: %v", line, pat, err)
		}
		readLines(t, NewParser(nil, nil), "x", []string{line})
	})
}
