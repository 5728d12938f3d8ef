package ingest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestSampleReadsABoundedStartAndKeepsUnnamedValues reads the start of an
// input only, and keeps, by path, the values of the lines whose request
// id no reading named.
func TestSampleReadsABoundedStartAndKeepsUnnamedValues(t *testing.T) {
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, `{"zq_when":"2026-12-02T00:00:00Z","zq_rid":"rid-%04d","zq_msg":"handled","zq_host":"api-1"}`+"\n", i)
	}
	_, in := readString(t, "sample", b.String(), Options{SampleBytes: 8000, SampleFields: true})
	if in.Lines == 0 || in.Lines > 100 {
		t.Errorf("%d lines read of a sample of 8000 bytes", in.Lines)
	}
	rids := in.Candidates["request_id\tzq_rid"]
	if len(rids) != 32 || !slices.Contains(rids, "rid-0000") {
		t.Errorf("sampled request ids %v, want the first 32", rids)
	}
	if got := in.Candidates["request_id\tzq_host"]; !slices.Equal(got, []string{"api-1"}) {
		t.Errorf("a repeated value is kept once: %v", got)
	}
	_, whole := readString(t, "whole", b.String(), Options{})
	if whole.Lines != 1000 || whole.Candidates != nil {
		t.Errorf("without sampling: %d lines, candidates %v", whole.Lines, whole.Candidates)
	}
}
