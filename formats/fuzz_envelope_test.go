package formats

import (
	"bytes"
	"testing"

	"github.com/idem-cli/idem/model"
)

// FuzzLinesWithState feeds lines whose reading depends on the lines
// before them (a W3C #Fields header, a container runtime's P parts, a
// wrapper around an access line) to one parser: nothing panics, every
// observation keeps its source, no field outgrows the cap, and every
// line is accounted for (read, ignored or skipped).
func FuzzLinesWithState(f *testing.F) {
	f.Add([]byte("#Fields: date time c-ip cs-method cs-uri-stem sc-status time-taken cs(X-Request-Id)\n2026-12-01 09:00:00 10.0.0.1 POST /v1/orders 201 15 c9b2decb-ebc7-4a9b-99d6-69712772ef41"))
	f.Add([]byte("#Software: Microsoft Internet Information Services 10.0\n#Fields: time date\n\n09:00 2026-12-01\n#Fields:"))
	f.Add([]byte("2026-12-01T09:00:00.1Z stdout P {\"a\":\n2026-12-01T09:00:00.1Z stdout F 1}\n2026-12-01T09:00:00.1Z stderr P x"))
	f.Add([]byte("[2026-12-01 09:00:00.412][21][info][access] [2026-12-01T09:00:00.101Z] \"POST /v1/orders HTTP/1.1\" 201 - 57 15 311 309 \"-\" \"-\" \"-\" \"-\" \"-\"\nACCESS {\"response_flags\":\"-\"}"))
	f.Add([]byte(`127.0.0.1 - - [02/Dec/2026:04:10:01 +0000] "\x16\x03\x01 \x00" 400 157 "-" "-"` + "\n" + `1.2.3.4:5 [02/Dec/2026:04:10:01.120] fe fe/<NOSRV> -1/-1/-1/-1/+12 400 0 - - CR-- 1/1/0/0/0 0/0 "<BADREQ>"`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := NewParser(nil, nil)
		var res Result
		p.Into(&res)
		lines := bytes.Split(data, []byte("\n"))
		for i, l := range lines {
			p.Line(l, model.Source{File: "f", Line: i + 1})
		}
		p.Flush()
		for _, o := range res.Obs {
			if o.Source.File != "f" || o.Source.Line < 1 || o.Source.Line > len(lines) {
				t.Fatalf("source lost: %+v", o.Source)
			}
			for _, s := range []string{o.RequestID, o.Key, o.Route, o.Message, o.Detail, o.Client, o.Method} {
				if len(s) > MaxField {
					t.Fatalf("field of %d bytes kept", len(s))
				}
			}
		}
		p.Context(HeaderLine(data))
		_ = continued(data)
	})
}

// FuzzGeneratedID checks the id predicate never panics and never takes a
// value with a space or a comma (a list, a user agent) for an id.
func FuzzGeneratedID(f *testing.F) {
	for _, s := range []string{"c9b2decb-ebc7-4a9b-99d6-69712772ef41", "10.225.192.17, 10.2.2.1", "Root=1-58337262-36d228ad5d99923122bbe354", "projects/p/traces/x", "00-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if generatedID(s) && bytes.ContainsAny([]byte(s), " ,\t") && !bytes.HasPrefix([]byte(s), []byte("Root=")) {
			t.Fatalf("%q taken for an id", s)
		}
	})
}
