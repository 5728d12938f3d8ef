package formats

import (
	"testing"

	"github.com/idem-cli/idem/model"
)

// TestNginxReplyHeaders reads the response headers an nginx template may
// log (a replay marker, Retry-After, the result id), under each alias,
// and nothing from a line that has none of them, each line read twice in
// a row so that the second is read by its layout.
func TestNginxReplyHeaders(t *testing.T) {
	const head = `{"msec":"1795996800.148","request_id":"r1","http_idempotency_key":"k1","request_method":"POST","request_uri":"/v1/orders","status":"201"`
	tests := []struct {
		name, tail string
		replayed   bool
		retryAfter bool
		resultID   string
	}{
		{"none", `}`, false, false, ""},
		{"sent", `,"sent_http_idempotent_replayed":"true","sent_http_retry_after":"5","sent_http_x_result_id":"ord_1"}`, true, true, "ord_1"},
		{"upstream", `,"upstream_http_idempotent_replayed":"TRUE","upstream_http_retry_after":"-","upstream_http_x_result_id":"ord_2"}`, true, false, "ord_2"},
		{"result only", `,"upstream_http_x_result_id":"ord_3"}`, false, false, "ord_3"},
		{"empty", `,"sent_http_idempotent_replayed":"","sent_http_retry_after":"","sent_http_x_result_id":"-"}`, false, false, ""},
		{"not true", `,"sent_http_idempotent_replayed":"false","sent_http_retry_after":"120"}`, false, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewParser(nil, nil)
			var res Result
			p.Into(&res)
			line := []byte(head + tt.tail)
			for i := 1; i <= 3; i++ {
				p.Line(line, model.Source{File: "t", Line: i})
			}
			if len(res.Obs) != 3 {
				t.Fatalf("%d observations, want 3 (skips %v)", len(res.Obs), res.Skips)
			}
			for _, o := range res.Obs {
				if o.Format != "nginx" || o.Replayed != tt.replayed || o.RetryAfter != tt.retryAfter || o.ResultID != tt.resultID {
					t.Errorf("line %d: %s replayed %v retry-after %v result %q, want nginx %v %v %q",
						o.Source.Line, o.Format, o.Replayed, o.RetryAfter, o.ResultID, tt.replayed, tt.retryAfter, tt.resultID)
				}
			}
		})
	}
}
