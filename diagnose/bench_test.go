package diagnose_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/trace"
)

// BenchmarkRules times the rules alone on IDEM_BENCH_INPUT.
func BenchmarkRules(b *testing.B) {
	path := os.Getenv("IDEM_BENCH_INPUT")
	if path == "" {
		b.Skip("set IDEM_BENCH_INPUT to a log file (go run ./internal/loggen -o FILE)")
	}
	start := time.Now()
	set, err := trace.Load(context.Background(), []string{path}, trace.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("load %v", time.Since(start))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if res := diagnose.Run(set, diagnose.DefaultOptions()); res.Summary.Intents == 0 {
			b.Fatal("no intents")
		}
	}
}
