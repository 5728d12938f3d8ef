package diagnose_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/load"
	"github.com/idem-cli/idem/model"
)

func diagnoseFiles(t *testing.T, paths ...string) (*diagnose.Result, *model.Set) {
	t.Helper()
	set, err := load.Files(context.Background(), paths, load.Options{Read: ingest.Options{}, Build: diagnose.DefaultOptions().Build()})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range set.Inputs {
		if in.Skipped > 0 {
			t.Errorf("%s: skipped %v", in.Path, in.SkipSamples)
		}
	}
	return diagnose.Run(set, diagnose.DefaultOptions()), set
}

// signature is what must match across exports: rules, severities, keys,
// and (for JSON envelopes, which keep every timestamp) narratives.
func signature(res *diagnose.Result, narratives bool) string {
	var lines []string
	for _, f := range res.Findings {
		l := fmt.Sprintf("%s %s %s", f.Rule.ID, f.Severity, strings.Join(f.Keys, ","))
		if narratives {
			l += " " + f.Narrative
		}
		lines = append(lines, l)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestExportsDiagnoseLikeTheTierFiles reads the bundled incident's proxy
// and server lines from one export per log aggregator (every tier in one
// file, each line in the aggregator's envelope) and requires the diagnosis
// of the per-tier files.
func TestExportsDiagnoseLikeTheTierFiles(t *testing.T) {
	ref, _ := diagnoseFiles(t, "../fixtures/incident/nginx-access.jsonl", "../fixtures/incident/app.jsonl")
	if len(ref.Findings) == 0 {
		t.Fatal("the reference has no finding")
	}
	tests := []struct {
		files      []string
		envelope   string
		narratives bool
	}{
		{[]string{"loki.jsonl"}, "loki", true},
		{[]string{"grafana.json"}, "loki", true},
		{[]string{"elasticsearch-search.json"}, "elasticsearch", true},
		{[]string{"elasticsearch.ndjson"}, "ecs", true},
		{[]string{"gcloud.json"}, "gcp", true},
		{[]string{"cloudwatch.json"}, "cloudwatch", true},
		{[]string{"docker.jsonl"}, "docker", true},
		{[]string{"fluentbit.jsonl"}, "fluent", true},
		{[]string{"datadog.json"}, "datadog", true},
		{[]string{"kubectl.log"}, "", true},
		{[]string{"mixed.jsonl"}, "", true},
		// Text access logs keep whole seconds (combined) or the proxy's
		// own words (HAProxy): the same findings, told differently.
		{[]string{"combined.log", "app.jsonl"}, "combined", false},
		{[]string{"haproxy.log", "app.jsonl"}, "haproxy", false},
	}
	for _, tt := range tests {
		t.Run(tt.files[0], func(t *testing.T) {
			var paths []string
			for _, f := range tt.files {
				paths = append(paths, "../fixtures/exports/"+f)
			}
			res, set := diagnoseFiles(t, paths...)
			if got, want := signature(res, tt.narratives), signature(ref, tt.narratives); got != want {
				t.Errorf("findings differ\n got: %s\nwant: %s", got, want)
			}
			if tt.envelope != "" && set.Inputs[0].Formats[tt.envelope] == 0 {
				t.Errorf("no line recognised as %s: %v", tt.envelope, set.Inputs[0].Formats)
			}
			if !set.Tiers[model.TierProxy] || !set.Tiers[model.TierServer] {
				t.Errorf("tiers %v, want proxy and server", set.Tiers)
			}
		})
	}
}

// TestMixedFileEqualsSplitFiles compares every scenario read as one mixed
// file (all its JSON-lines files concatenated) with the files apart.
func TestMixedFileEqualsSplitFiles(t *testing.T) {
	for _, sc := range []string{"retry-new-key", "non-atomic-reservation", "external-duplicate", "attempt-scoped-key"} {
		split, _ := diagnoseFiles(t, globScenario(t, sc)...)
		var mixed strings.Builder
		var rest []string
		for _, p := range globScenario(t, sc) {
			if strings.HasSuffix(p, ".har") {
				rest = append(rest, p)
				continue
			}
			mixed.WriteString(readFile(t, p))
		}
		set, err := load.Files(context.Background(), append(rest, "-"), load.Options{Read: ingest.Options{Stdin: strings.NewReader(mixed.String())}, Build: diagnose.DefaultOptions().Build()})
		if err != nil {
			t.Fatal(err)
		}
		res := diagnose.Run(set, diagnose.DefaultOptions())
		if got, want := signature(res, true), signature(split, true); got != want {
			t.Errorf("%s: mixed\n%s\nsplit\n%s", sc, got, want)
		}
	}
}

// TestCompressedExportOnStdin reads a gzip-compressed Loki export from
// standard input: the same diagnosis.
func TestCompressedExportOnStdin(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(readFile(t, "../fixtures/exports/loki.jsonl")))
	zw.Close()
	set, err := load.Files(context.Background(), []string{"-"}, load.Options{Read: ingest.Options{Stdin: &gz}, Build: diagnose.DefaultOptions().Build()})
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := diagnoseFiles(t, "../fixtures/exports/loki.jsonl")
	if got := signature(diagnose.Run(set, diagnose.DefaultOptions()), true); got != signature(ref, true) || set.Inputs[0].Compression != "gzip" {
		t.Errorf("gzip on stdin: %s", got)
	}
}
