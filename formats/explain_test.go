package formats

import (
	"testing"

	"github.com/idem-cli/idem/model"
)

// TestExplainNamesWhereEachFieldCameFrom reads lines of a logger idem has
// no format for, and of nginx, with Explain, and checks each field's path
// and what said it means.
func TestExplainNamesWhereEachFieldCameFrom(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []model.FieldUse
	}{{
		line: jsonSamples[0].Line, // winston + express-winston
		want: []model.FieldUse{
			{Field: "request_id", Path: "meta.req.headers.x-request-id", By: "vocabulary (pino-http, express-winston, bunyan)"},
			{Field: "key", Path: "meta.req.headers.idempotency-key", By: "vocabulary (pino-http, express-winston, bunyan)"},
			{Field: "status", Path: "meta.res.statusCode", By: "vocabulary (pino-http, express-winston, bunyan)"},
			{Field: "duration", Path: "meta.responseTime", By: "vocabulary (pino-http, express-winston, bunyan), in ms"},
			{Field: "fingerprint", Path: "meta.req.body", By: "SHA-256 of the logged body"},
		},
	}, {
		line: jsonSamples[1].Line, // OpenTelemetry's dotted names
		want: []model.FieldUse{
			{Field: "method", Path: `http\.request\.method`, By: "vocabulary (OpenTelemetry, Elastic ECS)"},
			{Field: "key", Path: `http\.request\.header\.idempotency-key`, By: "vocabulary (OpenTelemetry)"},
		},
	}, {
		line: nginxFormat.Samples[0].Line,
		want: []model.FieldUse{{Field: "method", Path: "request_method", By: "format nginx"}},
	}} {
		p := NewParser(nil, nil)
		p.Explain = true
		var res Result
		p.Into(&res)
		p.Line([]byte(tc.line), model.Source{File: "x", Line: 1})
		for _, w := range tc.want {
			if res.Uses[w] != 1 {
				t.Errorf("%.60s…: no use %+v; uses %v", tc.line, w, res.Uses)
			}
		}
	}
	// Not asked, nothing is counted.
	p := NewParser(nil, nil)
	var res Result
	p.Into(&res)
	p.Line([]byte(jsonSamples[0].Line), model.Source{File: "x", Line: 1})
	if res.Uses != nil {
		t.Errorf("uses counted without Explain: %v", res.Uses)
	}
}
