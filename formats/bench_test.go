package formats

import (
	"bufio"
	"bytes"
	"os"
	"testing"

	"github.com/idem-cli/idem/internal/tools/benchlog"
	"github.com/idem-cli/idem/model"
)

// BenchmarkParseLines parses the benchmark log's first lines on one
// goroutine, in batches as the reader hands them over: the parser's own
// cost, without reading or correlating.
func BenchmarkParseLines(b *testing.B) {
	f, err := os.Open(benchlog.Path(b))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var lines [][]byte
	size := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() && len(lines) < 20000 {
		lines = append(lines, bytes.Clone(sc.Bytes()))
		size += len(sc.Bytes()) + 1
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	p := NewParser(nil, nil)
	var res Result
	for b.Loop() {
		for i := 0; i < len(lines); i += 2000 {
			res.Reset()
			p.Into(&res)
			for j, l := range lines[i:min(i+2000, len(lines))] {
				p.Line(l, model.Source{File: "bench", Line: i + j + 1})
			}
		}
	}
}
