package ingest

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/idem-cli/idem/internal/tools/benchlog"
	"github.com/idem-cli/idem/trace"
)

// benchInput is a generated nginx log (go run ./internal/tools/loggen); the
// benchmarks skip when it is absent. CI runs them on a small file.
func benchInput(b *testing.B) []byte {
	path := benchlog.Path(b)
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

func BenchmarkReadNginx(b *testing.B) {
	data := benchInput(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var n counter
		_, err := Read(context.Background(), []string{"-"}, Options{Stdin: bytes.NewReader(data)}, &n)
		if err != nil || n.N == 0 {
			b.Fatal(err, n.N)
		}
	}
}

func BenchmarkLoadNginx(b *testing.B) {
	data := benchInput(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		c := trace.NewCorrelator(nil)
		inputs, err := Read(context.Background(), []string{"-"}, Options{Stdin: bytes.NewReader(data)}, c)
		if set := c.Set(inputs); err != nil || len(set.Built) == 0 {
			b.Fatal(err)
		}
	}
}
