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

// TestUpstreamTries counts the upstreams nginx tried for one request, as
// $upstream_status lists them, in its JSON log and in the combined layout
// with the status list appended; a " : " starts another pass after an
// internal redirect, counted apart.
func TestUpstreamTries(t *testing.T) {
	tests := []struct {
		up   string
		want int
	}{
		{"201", 0},
		{"-", 0},
		{"", 0},
		{"504, 201", 2},
		{"502, 504, 201", 3},
		{"504, 201 : 200", 2},
		{"201 : 404", 0},
		{"502 : 504, 504, 201", 3},
	}
	for _, tt := range tests {
		t.Run(tt.up, func(t *testing.T) {
			if got := upstreamTries(tt.up); got != tt.want {
				t.Errorf("upstreamTries(%q) = %d, want %d", tt.up, got, tt.want)
			}
			lines := map[string]string{
				"nginx": `{"msec":"1795996800.148","request_id":"r1","request_method":"POST","request_uri":"/v1/orders","status":"201","upstream_status":"` + tt.up + `"}`,
				"combined": `10.0.0.1 - - [30/Nov/2026:09:14:04 +0000] "POST /v1/orders HTTP/1.1" 201 12 "-" "curl/8.5.0" 1.006 "` + tt.up +
					`" "3d5156d7c5228be1e3c69ab697d02044" "b450a2ce-e36e-489d-9759-8cec7d02dccf"`,
			}
			for format, line := range lines {
				p := NewParser(nil, nil)
				var res Result
				p.Into(&res)
				p.Line([]byte(line), model.Source{File: "t", Line: 1})
				if len(res.Obs) != 1 || res.Obs[0].Format != format {
					t.Fatalf("%s: %d observations (skips %v)", format, len(res.Obs), res.Skips)
				}
				if got := res.Obs[0].UpstreamTries; got != tt.want {
					t.Errorf("%s: UpstreamTries %d, want %d (%+v)", format, got, tt.want, res.Obs[0])
				}
			}
		})
	}
}
