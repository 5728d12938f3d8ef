package formats

import (
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/model"
)

// TestVocabularyAtAnyDepth reads one request's meaning written in each
// vocabulary, nested and flat, and a name of no vocabulary.
func TestVocabularyAtAnyDepth(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		want       model.Observation
	}{
		{"express-winston under meta", `{"level":"info","message":"HTTP POST /v1/x","meta":{"req":{"method":"POST","url":"/v1/x","headers":{"X-Request-Id":"r-1","Idempotency-Key":"k-1"}},"res":{"statusCode":201},"responseTime":7}}`,
			model.Observation{Method: "POST", Route: "/v1/x", RequestID: "r-1", Key: "k-1", Status: 201, Duration: 7 * time.Millisecond}},
		{"ECS nested, event.duration in ns", `{"message":"m","http":{"request":{"method":"post"},"response":{"status_code":"409"}},"url":{"path":"/v1/y"},"event":{"duration":2000000},"transaction":{"id":"tx-1"}}`,
			model.Observation{Method: "POST", Route: "/v1/y", Status: 409, RequestID: "tx-1", Duration: 2 * time.Millisecond}},
		{"OTel attributes under attributes", `{"body":"done","attributes":{"http.request.method":"PATCH","http.route":"/v1/z/{id}","http.response.status_code":200,"http.request.header.x-request-id":["o-1"]}}`,
			model.Observation{Method: "PATCH", Route: "/v1/z/{id}", Status: 200, RequestID: "o-1"}},
		{"Monolog context", `{"message":"x","context":{"correlationId":"c-1","method":"DELETE","path":"/v1/w","elapsed_us":1500},"channel":"app","datetime":"2026-12-02T00:00:00+00:00"}`,
			model.Observation{Method: "DELETE", Route: "/v1/w", RequestID: "c-1", Duration: 1500 * time.Microsecond}},
		{"a status nested under no wrapper is no request's", `{"msg":"x","request_id":"r-2","order":{"status":201,"method":"PUT"}}`,
			model.Observation{RequestID: "r-2"}},
		{"a response's body is not the request's", `{"msg":"x","request_id":"r-3","res":{"statusCode":201,"body":{"id":"ord_3"}}}`,
			model.Observation{RequestID: "r-3", Status: 201, ResultID: "ord_3"}},
	} {
		p := NewParser(nil, nil)
		var res Result
		p.Into(&res)
		p.Line([]byte(tc.line), model.Source{File: "v", Line: 1})
		if len(res.Obs) != 1 {
			t.Errorf("%s: %d observations, want 1", tc.name, len(res.Obs))
			continue
		}
		o := res.Obs[0]
		got := model.Observation{Method: o.Method, Route: o.Route, RequestID: o.RequestID, Key: o.Key, Status: o.Status, Duration: o.Duration, ResultID: o.ResultID}
		if got != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
		if o.Fingerprint != "" && strings.Contains(tc.name, "response") {
			t.Errorf("%s: the response body was fingerprinted as the request's", tc.name)
		}
	}
}

// TestVocabularyWalkIsBounded reads hostile lines: nested as deep as the
// scanner allows under a wrapper, and wide; the walk stops at its bounds.
func TestVocabularyWalkIsBounded(t *testing.T) {
	deep := `{"msg":"x","meta":` + strings.Repeat(`{"req":`, 500) + `{"method":"POST"}` + strings.Repeat("}", 500) + `}`
	var wide strings.Builder
	wide.WriteString(`{"msg":"x","meta":{`)
	for i := range 5000 {
		if i > 0 {
			wide.WriteByte(',')
		}
		wide.WriteString(`"req` + strings.Repeat("x", i%7) + `":{"a":1}`)
	}
	wide.WriteString(`,"method":"POST"}}`)
	for _, line := range []string{deep, wide.String()} {
		p := NewParser(nil, nil)
		var res Result
		p.Into(&res)
		p.Line([]byte(line), model.Source{File: "v", Line: 1})
		if p.vocab.nodes > maxVocabNodes+1 {
			t.Errorf("the walk looked at %d members, more than %d", p.vocab.nodes, maxVocabNodes)
		}
		for _, o := range res.Obs {
			if o.Method != "" {
				t.Errorf("a method read past the walk's bounds: %+v", o)
			}
		}
	}
}

// FuzzVocabulary reads any JSON line by the vocabulary, explaining and
// sampling it: it must not panic, stay within its bounds, and keep every
// field capped.
func FuzzVocabulary(f *testing.F) {
	for _, s := range jsonSamples {
		f.Add([]byte(s.Line))
	}
	for _, s := range bunyanFormat.Samples {
		f.Add([]byte(s.Line))
	}
	f.Add([]byte(`{"meta":{"req":{"headers":{"x-request-id":["a","b"]},"body":"{\"a\":1}"},"res":{"body":"[1]"}}}`))
	f.Add([]byte(`{"attributes":{"http.request.header.idempotency-key":[{"x":1}],"event.duration":"1e400"}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		p := NewParser(nil, nil)
		p.Explain, p.Sample = true, true
		var res Result
		p.Into(&res)
		p.Line(line, model.Source{File: "f", Line: 1})
		if p.vocab.nodes > maxVocabNodes+1 {
			t.Fatalf("the walk looked at %d members", p.vocab.nodes)
		}
		for _, o := range res.Obs {
			for _, s := range []string{o.RequestID, o.Key, o.Route, o.Message, o.Detail, o.ResultID, o.Fingerprint} {
				if len(s) > MaxField {
					t.Fatalf("field of %d bytes kept", len(s))
				}
			}
		}
		if len(res.Uses) > 256 || len(res.Candidates) > maxCandidatePaths {
			t.Fatalf("%d uses, %d candidate paths kept", len(res.Uses), len(res.Candidates))
		}
		for _, vals := range res.Candidates {
			if len(vals) > maxCandidateValues {
				t.Fatalf("%d values kept at one path", len(vals))
			}
		}
	})
}

// BenchmarkVocabularyNested reads express-winston's nested request lines:
// the deep reading's own cost.
func BenchmarkVocabularyNested(b *testing.B) {
	line := []byte(jsonSamples[0].Line)
	p := NewParser(nil, nil)
	var res Result
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		res.Reset()
		p.Into(&res)
		p.Line(line, model.Source{File: "b", Line: 1})
	}
}
