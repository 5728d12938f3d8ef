package formats

import (
	"testing"

	"github.com/idem-cli/idem/model"
)

// TestRetryMarkWhereverLogged reads a client library's number of its
// send from each place a line may log the header: a proxy's header
// variable, nginx JSON's http_ name, a logger's headers object, an
// OpenTelemetry attribute. A first send is not marked.
func TestRetryMarkWhereverLogged(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sc      *SourceConfig
		line    string
		mark    string
		attempt int
	}{{
		name: "nginx log_format, the AWS SDK's second attempt",
		sc:   &SourceConfig{LogFormat: `log_format r '$request_id $status "$request" "$http_amz_sdk_request"';`},
		line: `r-1 201 "POST /v1/orders HTTP/1.1" "attempt=2; max=3"`,
		mark: "amz-sdk-request: attempt=2; max=3", attempt: 2,
	}, {
		name: "apache LogFormat, a Stainless SDK's first retry",
		sc:   &SourceConfig{LogFormat: `%{X-Request-Id}i %>s "%r" %{X-Stainless-Retry-Count}i`, LogFormatSyntax: "apache"},
		line: `r-2 201 "POST /v1/orders HTTP/1.1" 1`,
		mark: "x-stainless-retry-count: 1", attempt: 2,
	}, {
		name: "nginx log_format, a first send marks nothing",
		sc:   &SourceConfig{LogFormat: `log_format r '$request_id $status "$request" "$http_x_stainless_retry_count"';`},
		line: `r-3 201 "POST /v1/orders HTTP/1.1" "0"`,
	}, {
		name: "nginx JSON, the http_ name",
		line: `{"msec":"1796030044.512","request_time":"0.010","request_id":"r-4","request_method":"POST","request_uri":"/v1/orders",` +
			`"status":"201","http_idempotency_key":"k-4","http_x_stainless_retry_count":"2"}`,
		mark: "x-stainless-retry-count: 2", attempt: 3,
	}, {
		name: "pino-http, the request's headers object",
		line: `{"level":30,"time":1796030044512,"req":{"id":"r-5","method":"POST","url":"/v1/orders","headers":{"idempotency-key":"k-5",` +
			`"amz-sdk-request":"attempt=3; max=3","user-agent":"aws-sdk-js/3"}},"res":{"statusCode":201},"responseTime":4,"msg":"request completed"}`,
		mark: "amz-sdk-request: attempt=3; max=3", attempt: 3,
	}, {
		name: "OpenTelemetry attributes, a header as a list",
		line: `{"body":"done","attributes":{"http.request.method":"POST","http.route":"/v1/orders","http.response.status_code":201,` +
			`"http.request.header.x-request-id":["r-6"],"http.request.header.x-stainless-retry-count":["1"]}}`,
		mark: "x-stainless-retry-count: 1", attempt: 2,
	}, {
		name: "a value outside the header's grammar marks nothing",
		line: `{"msec":"1796030044.512","request_id":"r-7","request_method":"POST","request_uri":"/v1/orders","status":"201",` +
			`"http_amz_sdk_request":"ttl=20261201T000000Z; max=3"}`,
	}} {
		var res *Result
		if tc.sc != nil {
			res = readWith(t, *tc.sc, tc.line)
		} else {
			p := NewParser(nil, nil)
			res = &Result{}
			p.Into(res)
			p.Line([]byte(tc.line), model.Source{File: "v", Line: 1})
		}
		if len(res.Obs) != 1 {
			t.Errorf("%s: %d observations, want 1", tc.name, len(res.Obs))
			continue
		}
		if o := res.Obs[0]; o.RetryMark != tc.mark || o.Attempt != tc.attempt {
			t.Errorf("%s: mark %q attempt %d, want %q %d", tc.name, o.RetryMark, o.Attempt, tc.mark, tc.attempt)
		}
	}
}
