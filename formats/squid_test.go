package formats

import (
	"testing"
	"time"

	"github.com/idem-cli/idem/model"
)

// Squid's lines are read as squid's only with its result word; a
// connection that sent nothing is no request (counted, not read); the
// time squid writes is the end.
func TestSquidLines(t *testing.T) {
	end := time.Unix(1796688950, 857e6).UTC()
	for _, tc := range []struct {
		name, line, format string
		requests           int
		status             int
		outcome            model.Outcome
		time               time.Time
	}{
		{"native, 502 from squid", `1796688950.857     27 127.0.0.1 TCP_MISS/502 3381 POST http://127.0.0.1:44487/v1/orders? - FIRSTUP_PARENT/127.0.0.1 text/html`,
			"squid", 1, 502, model.OutcomeUpstreamReset, end.Add(-27 * time.Millisecond)},
		{"native, 502 having reached no next hop (it could not connect)", `1796688950.857      1 127.0.0.1 TCP_MISS/502 3467 POST http://127.0.0.1:39787/v1/down/orders - HIER_NONE/- text/html`,
			"squid", 1, 502, model.OutcomeNotDelivered, end.Add(-1 * time.Millisecond)},
		{"native, a connection that sent nothing", `1796688950.375      0 127.0.0.1 NONE_NONE/000 0 - error:transaction-end-before-headers - HIER_NONE/- -`,
			"", 0, 0, model.OutcomeUnknown, time.Time{}},
		{"combined, a connection that sent nothing", `127.0.0.1 - - [08/Dec/2026:01:01:08 +0000] "- error:transaction-end-before-headers NONE/0.0" 0 0 "-" "-" NONE_NONE:HIER_NONE`,
			"", 0, 0, model.OutcomeUnknown, time.Time{}},
		{"native, a request never forwarded", `1796688950.857      5 127.0.0.1 NONE_NONE/000 0 POST http://h/v1/orders - HIER_NONE/- -`,
			"squid", 1, 0, model.OutcomeNotDelivered, end.Add(-5 * time.Millisecond)},
		{"combined, %tl the end", `127.0.0.1 - - [08/Dec/2026:00:15:50 +0000] "POST http://h/v1/orders HTTP/1.1" 201 261 "-" "curl/8" TCP_MISS:FIRSTUP_PARENT`,
			"squid", 1, 201, model.OutcomeOK, time.Date(2026, 12, 8, 0, 15, 50, 0, time.UTC)},
		{"combined without squid's word is not squid's", `127.0.0.1 - - [08/Dec/2026:00:15:50 +0000] "POST /v1/orders HTTP/1.1" 201 261 "-" "curl/8" x:y`,
			"combined", 1, 201, model.OutcomeOK, time.Date(2026, 12, 8, 0, 15, 50, 0, time.UTC)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewParser(nil, nil)
			var res Result
			p.Into(&res)
			p.Line([]byte(tc.line), model.Source{File: "access.log", Line: 1})
			if len(res.Obs) != tc.requests {
				t.Fatalf("%d observations, want %d; skips %v", len(res.Obs), tc.requests, res.Skips)
			}
			if tc.requests == 0 {
				if len(res.Skips) != 0 || res.Ignored != 1 {
					t.Errorf("skips %v, ignored %d: want it counted as ignored", res.Skips, res.Ignored)
				}
				return
			}
			o := res.Obs[0]
			if o.Format != tc.format || o.Status != tc.status || o.Outcome != tc.outcome || !o.Time.Equal(tc.time) {
				t.Errorf("read as %s, status %d, outcome %s, start %s; want %s, %d, %s, %s", o.Format, o.Status, o.Outcome, o.Time,
					tc.format, tc.status, tc.outcome, tc.time)
			}
		})
	}
}
