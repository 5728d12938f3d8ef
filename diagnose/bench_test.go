package diagnose_test

import (
	"context"
	"testing"
	"time"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/internal/tools/benchlog"
	"github.com/idem-cli/idem/load"
)

// BenchmarkRules times the rules alone on IDEM_BENCH_INPUT.
func BenchmarkRules(b *testing.B) {
	path := benchlog.Path(b)
	start := time.Now()
	set, err := load.Files(context.Background(), []string{path}, load.Options{Read: ingest.Options{}, Build: diagnose.DefaultOptions().Build()})
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
