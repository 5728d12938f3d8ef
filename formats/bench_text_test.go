package formats

import (
	"testing"

	"github.com/idem-cli/idem/model"
)

// BenchmarkParseText reads each text format's own sample lines, over and
// over: the cost of a text line that matches, per format (the order of
// the registry makes later formats pay for the earlier ones' tries).
func BenchmarkParseText(b *testing.B) {
	for _, f := range All() {
		if f.Kind != KindText {
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
