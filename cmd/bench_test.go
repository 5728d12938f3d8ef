package cmd

import (
	"context"
	"io"
	"os"
	"testing"
	"time"

	"github.com/idem-cli/idem/internal/iostreams"
	"github.com/idem-cli/idem/internal/tools/benchlog"
)

// BenchmarkDiagnose runs the whole command on IDEM_BENCH_INPUT (a file
// from go run ./internal/tools/loggen): read, correlate, rules, JSON report.
func BenchmarkDiagnose(b *testing.B) {
	path := benchlog.Path(b)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		ios, _, _, _ := iostreams.Test()
		ios.Out = io.Discard
		f := &Factory{IO: ios, Now: time.Now}
		// The generated log is a proxy's alone: rules that need the
		// server's lines cannot look, so a whole run ends inconclusive (3).
		switch code := Run(context.Background(), f, []string{"diagnose", "-o", "json", "--fail-on", "critical", path}); code {
		case exitOK, exitFindings, exitInconclusive:
		default:
			b.Fatalf("exit %d", code)
		}
	}
}
