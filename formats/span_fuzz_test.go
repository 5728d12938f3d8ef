package formats

import (
	"bytes"
	"testing"

	"github.com/idem-cli/idem/model"
	"github.com/tidwall/gjson"
)

// FuzzSpans feeds a trace format's record to the parser, as a line and
// as a value streamed out of a document: it must not panic; every span it
// keeps names its place in its trace with a SpanRef the correlator reads
// back, has no field past the cap, and is cited by a line of the record.
func FuzzSpans(f *testing.F) {
	for _, format := range []*format{otlpTracesFormat, jaegerFormat, zipkinFormat} {
		for _, s := range format.Samples {
			f.Add([]byte(s.Line))
		}
	}
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331",` + "\n" +
		`"kind":"SPAN_KIND_CLIENT","attributes":[{"key":"http.request.header.idempotency-key","value":{"arrayValue":{"values":[{"stringValue":"k"}]}}}]}]}]}]}`))
	f.Add([]byte(`{"traceId":"1","id":"2","kind":"CLIENT","tags":{"http.method":"POST","error":""},"annotations":[{"value":"x: {"}]}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		check := func(res *Result, lines int) {
			for _, o := range res.Obs {
				if o.Source.File != "f" || o.Source.Line < 1 || o.Source.Line > lines {
					t.Fatalf("source %+v outside the record's lines 1..%d", o.Source, lines)
				}
				if model.IsSpanRef(o.RequestID) {
					if _, ok := model.ParseSpanRef(o.RequestID); !ok {
						t.Fatalf("span ref %q does not read back", o.RequestID)
					}
				}
				for _, s := range []string{o.RequestID, o.Key, o.Route, o.Message, o.Detail, o.ResultID, o.Client} {
					if len(s) > MaxField {
						t.Fatalf("field of %d bytes kept", len(s))
					}
				}
			}
		}
		p := NewParser(nil, nil)
		var res Result
		p.Into(&res)
		p.Line(bytes.ReplaceAll(line, []byte("\n"), nil), model.Source{File: "f", Line: 1})
		check(&res, 1)
		if gjson.ValidBytes(line) {
			res.Reset()
			p.Object(gjson.ParseBytes(line), model.Source{File: "f", Line: 1})
			check(&res, 1+bytes.Count(line, []byte("\n")))
		}
	})
}
