package formats

import (
	"strings"
	"testing"

	"github.com/idem-cli/idem/model"
)

// BenchmarkParseText reads each text format's own sample lines, over and
// over: the cost of a text line that matches, per format (the order of
// the registry makes later formats pay for the earlier ones' tries).
func BenchmarkParseText(b *testing.B) {
	for _, f := range all() {
		if f.Kind != kindText {
			continue
		}
		var lines [][]byte
		for _, s := range f.Samples {
			if s.Known == "" {
				lines = append(lines, []byte(s.Line))
			}
		}
		if len(lines) == 0 {
			continue
		}
		b.Run(f.Name, func(b *testing.B) {
			p := NewParser(nil, nil)
			var res Result
			size := 0
			for _, l := range lines {
				size += len(l) + 1
			}
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				res.Reset()
				p.Into(&res)
				for i, l := range lines {
					p.Line(l, model.Source{File: "bench", Line: i + 1})
				}
			}
		})
	}
}

// BenchmarkUnreadLines reads lines no format reads (an application's
// text log), alone and with one combined access-log line in twenty: each
// format's first check must refuse them in a few nanoseconds a byte.
func BenchmarkUnreadLines(b *testing.B) {
	const request = `10.0.0.7 - - [01/Dec/2026:09:00:07 +0000] "POST /orders HTTP/1.1" 201 123 "-" "curl/8.0" rid=r0000001 key=k0000001`
	for _, mixed := range []bool{false, true} {
		var lines [][]byte
		size := 0
		for i := 0; i < 2000; i++ {
			line := unreadLines[0] // no part of what a format looks for
			if mixed && i%20 == 7 {
				line = request
			}
			lines = append(lines, []byte(line))
			size += len(line) + 1
		}
		name := "app"
		if mixed {
			name = "mixed"
		}
		b.Run(name, func(b *testing.B) {
			p := NewParser(nil, nil)
			var res Result
			b.SetBytes(int64(size))
			for b.Loop() {
				res.Reset()
				p.Into(&res)
				for i, l := range lines {
					p.Line(l, model.Source{File: "bench", Line: i + 1})
				}
				p.Flush()
			}
		})
	}
}

// BenchmarkCombinedLine reads combined lines of each kind (the request
// line of BenchmarkUnreadLines, nginx's with its appended fields, a
// vhost's, one behind a logger's prefix, one cut short) with the layout's
// expressions and by hand (the groups and the appended fields), then
// through the parser (every format before combined refusing them, the
// observation made).
func BenchmarkCombinedLine(b *testing.B) {
	lines := []string{
		`10.0.0.7 - - [01/Dec/2026:09:00:07 +0000] "POST /orders HTTP/1.1" 201 123 "-" "curl/8.0" rid=r0000001 key=k0000001`,
		combinedFormat.Samples[1].Line,
		`shop.example.com:443 203.0.113.7 - - [30/Nov/2026:09:14:04 +0000] "POST /v1/orders HTTP/1.1" 201 57 "-" "curl/8.5.0"`,
		`info: [app] 10.0.0.7 - - [30/Nov/2026:09:14:04 +0000] "POST /v1/orders HTTP/1.1" 201 57 "-" "curl/8.5.0"`,
		`127.0.0.1 - - [02/Dec/2026:04:10:01 +0000] "-" 408 0 "-" "-"`,
	}
	size := 0
	for _, l := range lines {
		size += len(l) + 1
	}
	b.Run("expressions", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			for _, s := range lines {
				m := combinedLine.FindStringSubmatch(s)
				if m == nil && !strings.HasPrefix(s, "[") {
					if m = combinedAnywhere.FindStringSubmatch(s); m == nil {
						m = combinedCut.FindStringSubmatch(s)
					}
				}
				for range extraToken.FindAllStringSubmatch(m[11], 16) {
				}
			}
		}
	})
	b.Run("hand", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			for _, s := range lines {
				var m clfMatch
				if !clfLine(s, &m) && (strings.HasPrefix(s, "[") || !clfAnywhere(s, &m) && !clfCut(s, &m)) {
					b.Fatal("not read")
				}
				for i, n := 0, 0; n < 16; n++ {
					_, _, _, end, ok := nextExtra(m[11], i)
					if !ok {
						break
					}
					i = end
				}
			}
		}
	})
	b.Run("parser", func(b *testing.B) {
		p := NewParser(nil, nil)
		var res Result
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			res.Reset()
			p.Into(&res)
			for i, s := range lines {
				p.Line([]byte(s), model.Source{File: "bench", Line: i + 1})
			}
			if len(res.Obs) != len(lines) {
				b.Fatalf("%d of %d lines read", len(res.Obs), len(lines))
			}
		}
	})
}
