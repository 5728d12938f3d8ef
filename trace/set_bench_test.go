package trace_test

import (
	"bytes"
	"context"
	"os"
	"runtime"
	"testing"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/internal/tools/benchlog"
	"github.com/idem-cli/idem/trace"
)

// BenchmarkSet times grouping a read log into intents and building the
// ones worth a look (what a correlator builds unless told): what runs on
// both cores after the last line is read.
func BenchmarkSet(b *testing.B) { benchmarkSet(b, trace.NewCorrelator(nil).Build) }

// BenchmarkSetDiagnose is BenchmarkSet with what idem diagnose asks to
// build besides: the follow-ups of losses and the keys some rules read.
func BenchmarkSetDiagnose(b *testing.B) { benchmarkSet(b, diagnose.DefaultOptions().Build()) }

func benchmarkSet(b *testing.B, build trace.Build) {
	data, err := os.ReadFile(benchlog.Path(b))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var cpu int64 // what Set costs both cores together: the wall hides it
	for b.Loop() {
		b.StopTimer()
		c := trace.NewCorrelator(nil)
		c.Build = build
		inputs, err := ingest.Read(context.Background(), []string{"-"}, ingest.Options{Stdin: bytes.NewReader(data)}, c)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC() // what reading left to collect is not Set's
		b.StartTimer()
		t := cpuNanos()
		if set := c.Set(inputs); len(set.Built) == 0 {
			b.Fatal("no intent built")
		}
		cpu += cpuNanos() - t
	}
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
}
