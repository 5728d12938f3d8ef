package formats

import (
	"testing"

	"github.com/idem-cli/idem/model"
)

func TestHAROutcomes(t *testing.T) {
	for _, tt := range []struct {
		status int
		err    string
		want   model.Outcome
	}{
		{0, "net::ERR_TIMED_OUT", model.OutcomeTimeout},
		{0, "net::ERR_CONNECTION_TIMED_OUT", model.OutcomeTimeout},
		{0, "net::ERR_CONNECTION_RESET", model.OutcomeReset},
		{0, "net::ERR_EMPTY_RESPONSE", model.OutcomeReset},
		{0, "net::ERR_CONNECTION_REFUSED", model.OutcomeNotDelivered},
		{200, "net::ERR_ABORTED", model.OutcomeAborted},
		{0, "net::ERR_FAILED", model.OutcomeError},
		{0, "", model.OutcomeAborted},
		{201, "", model.OutcomeOK},
	} {
		if got := harOutcome(tt.status, tt.err); got != tt.want {
			t.Errorf("harOutcome(%d, %q) = %s, want %s", tt.status, tt.err, got, tt.want)
		}
	}
}

// TestHARFailuresAsRealToolsWriteThem reads the failures Playwright
// (status -1, response._failureText) and mitmproxy (its own words in
// _error) record, and result ids only from answers to writes, base64
// bodies decoded.
func TestHARFailuresAsRealToolsWriteThem(t *testing.T) {
	entry := func(method string, response string) string {
		return `{"startedDateTime":"2026-11-30T09:14:02.105Z","time":2000,"request":{"method":"` + method + `","url":"https://shop.example.com/v1/orders","headers":[{"name":"Idempotency-Key","value":"k-1"}]},"response":` + response + `,"timings":{}}`
	}
	tests := []struct {
		name, line string
		outcome    model.Outcome
		status     int
		result     string
		detail     string
	}{
		{"playwright refused", entry("POST", `{"status":-1,"statusText":"","headers":[],"content":{"size":0,"mimeType":"x-unknown"},"_failureText":"net::ERR_CONNECTION_REFUSED"}`),
			model.OutcomeNotDelivered, 0, "", "net::ERR_CONNECTION_REFUSED"},
		{"playwright timed out", entry("POST", `{"status":-1,"headers":[],"content":{},"_failureText":"net::ERR_TIMED_OUT"}`),
			model.OutcomeTimeout, 0, "", "net::ERR_TIMED_OUT"},
		{"playwright aborted", entry("POST", `{"status":-1,"headers":[],"content":{},"_failureText":"net::ERR_ABORTED"}`),
			model.OutcomeAborted, 0, "", "net::ERR_ABORTED"},
		{"mitmproxy could not connect", entry("POST", `{"status":0,"headers":[],"content":{},"_error":"Connect call failed ('127.0.0.1', 8080)"}`),
			model.OutcomeNotDelivered, 0, "", "Connect call failed ('127.0.0.1', 8080)"},
		{"mitmproxy server went away", entry("POST", `{"status":0,"headers":[],"content":{},"_error":"Server disconnected."}`),
			model.OutcomeReset, 0, "", "Server disconnected."},
		{"a created order, base64 body", entry("POST", `{"status":201,"headers":[],"content":{"mimeType":"application/json","encoding":"base64","text":"eyJpZCI6Im9yZF84SDJrUSJ9"}}`),
			model.OutcomeOK, 201, "ord_8H2kQ", ""},
		{"a GET's body id is not a result", entry("GET", `{"status":200,"headers":[],"content":{"mimeType":"application/json","text":"{\"id\":\"ord_8H2kQ\"}"}}`),
			model.OutcomeOK, 200, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewParser(nil, nil)
			var res Result
			p.Into(&res)
			p.Line([]byte(tt.line), model.Source{File: "x.har", Line: 1})
			if len(res.Obs) != 1 {
				t.Fatalf("%d observations, skips %v", len(res.Obs), res.Skips)
			}
			o := res.Obs[0]
			if o.Outcome != tt.outcome || o.Status != tt.status || o.ResultID != tt.result || o.Detail != tt.detail {
				t.Errorf("outcome %s status %d result %q detail %q; want %s %d %q %q", o.Outcome, o.Status, o.ResultID, o.Detail, tt.outcome, tt.status, tt.result, tt.detail)
			}
		})
	}
}
