package model

import "testing"

// TestSpanRefRoundTrips: what String writes, ParseSpanRef reads back;
// ids that are not SpanRefs are not read as one.
func TestSpanRefRoundTrips(t *testing.T) {
	for _, r := range []SpanRef{
		{Trace: "5b8efff798038103d269b633813fc60c", Span: "eee19b7ec3c1b174", Parent: "eee19b7ec3c1b173", Join: SpanPart},
		{Trace: "5b8efff798038103d269b633813fc60c", Span: "eee19b7ec3c1b174", Join: SpanOwn, RequestID: "req/1:a"},
		{Trace: "5b8efff798038103d269b633813fc60c", Span: "eee19b7ec3c1b174", Join: SpanPart, Quiet: true},
		{Trace: "5b8efff798038103d269b633813fc60c", Join: SpanLine},
	} {
		got, ok := ParseSpanRef(r.String())
		if !ok || got != r {
			t.Errorf("%q read back as %+v, %v; want %+v", r.String(), got, ok, r)
		}
	}
	for _, id := range []string{"", "span:", "span:t", "span:t/s/p/x/", "span:t//p/o/", "span:/s/p/o/", "span:t/s/p/oo/", "span:t/s/p/lq/",
		"req-1", "trace:5b8efff798038103d269b633813fc60c"} {
		if r, ok := ParseSpanRef(id); ok {
			t.Errorf("%q read as %+v", id, r)
		}
	}
}

func TestIsSpan(t *testing.T) {
	for format, want := range map[string]bool{"otlp-traces": true, "jaeger": true, "zipkin": true, "otel": false, "nginx": false, "": false} {
		if got := IsSpan(&Observation{Format: format}); got != want {
			t.Errorf("IsSpan(%q) = %v", format, got)
		}
	}
}

func FuzzParseSpanRef(f *testing.F) {
	f.Add("span:5b8efff798038103d269b633813fc60c/eee19b7ec3c1b174/eee19b7ec3c1b173/pq/r-1")
	f.Add("span:t//x/l/")
	f.Fuzz(func(t *testing.T, id string) {
		r, ok := ParseSpanRef(id)
		if !ok {
			return
		}
		if again, ok := ParseSpanRef(r.String()); !ok || again != r {
			t.Fatalf("%q read as %+v, which writes %q, read back as %+v", id, r, r.String(), again)
		}
	})
}
