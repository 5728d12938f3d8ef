package formats

import (
	"testing"

	"github.com/idem-cli/idem/model"
)

// TestCutShortRequestsAreRead reads the lines proxies write for requests
// they could not read or answer: each is a request the proxy saw (often
// the one that was cut short), read with what it has, never skipped.
func TestCutShortRequestsAreRead(t *testing.T) {
	for _, tc := range []struct {
		name, forced, line, format string
		method, route              string
		status                     int
		outcome                    model.Outcome
	}{
		{
			name: "Traefik's common log format, status - (elastic/integrations traefik test-format-common.log)",
			line: `::1 - - [15/Apr/2024:13:04:10 +0000] "GET / HTTP/1.1" - - "-" "-" 27 "-" "-" 0ms`, format: "combined",
			method: "GET", route: "/", outcome: model.OutcomeClientClosed,
		}, {
			name: "nginx 408: a client that connected and sent nothing",
			line: `127.0.0.1 - - [02/Dec/2026:04:10:01 +0000] "-" 408 0 "-" "-"`, format: "combined",
			status: 408, outcome: model.OutcomeOK,
		}, {
			name: "nginx 400: TLS bytes sent to a plain port",
			line: `127.0.0.1 - - [02/Dec/2026:04:10:01 +0000] "\x16\x03\x01\x00\xF1\x01\x00\x00\xED\x03\x03\xB6\x8D\x9A" 400 157 "-" "-"`, format: "combined",
			status: 400, outcome: model.OutcomeOK,
		}, {
			name: "nginx 400: TLS bytes that hold a space",
			line: `127.0.0.1 - - [02/Dec/2026:04:10:01 +0000] "\x16\x03\x01 \x00\xF1" 400 157 "-" "-"`, format: "combined",
			status: 400, outcome: model.OutcomeOK,
		}, {
			name: "Apache 400: a request line holding a line break",
			line: `127.0.0.1 - - [02/Dec/2026:04:10:01 +0000] "POST /v1/orders\nX-Injected: 1 HTTP/1.1" 400 226 "-" "-"`, format: "combined",
			method: "POST", route: "/v1/orders", status: 400, outcome: model.OutcomeOK,
		}, {
			name: `Tomcat's "-" 400 (elastic/integrations apache_tomcat test-access.log)`,
			line: `81.2.69.144 - - [24/Oct/2024:14:18:49 +1100] "-" 400 - 81.2.69.145 + 0.000 "-" "-" X-Forwarded-For="-"`, format: "combined",
			status: 400, outcome: model.OutcomeOK,
		}, {
			name: "Apache with idem's LogFormat: a 408 with no request",
			line: `127.0.0.1 - - [02/Dec/2026:04:10:01 +0000] "-" 408 - "-" "-" 20001234 "-" "-"`, format: "apache",
			status: 408, outcome: model.OutcomeOK,
		}, {
			name: "Apache said: TLS bytes to a plain port", forced: "apache",
			line: `127.0.0.1 - - [02/Dec/2026:04:10:01 +0000] "\x16\x03\x01 \x00\xf1\x01" 400 226 "-" "-"`, format: "apache",
			status: 400, outcome: model.OutcomeOK,
		}, {
			name: "HAProxy <BADREQ>, the client aborted before a full request (CR--): no server had it",
			line: `127.0.0.1:41218 [02/Dec/2026:04:10:01.120] fe fe/<NOSRV> -1/-1/-1/-1/+12 400 0 - - CR-- 1/1/0/0/0 0/0 "<BADREQ>"`, format: "haproxy",
			outcome: model.OutcomeNotDelivered,
		}, {
			name: "HAProxy <BADREQ>, the request's headers timed out (cR--): HAProxy answered 408",
			line: `127.0.0.1:49920 [02/Dec/2026:05:21:01.992] fe fe/<NOSRV> -1/-1/-1/-1/1002 408 0 - - cR-- 1/1/0/0/0 0/0 "<BADREQ>"`, format: "haproxy",
			status: 408, outcome: model.OutcomeNotDelivered,
		}, {
			name: "HAProxy <BADREQ> with its capture blocks, CD--",
			line: `Dec  2 04:10:01 localhost haproxy[7]: 127.0.0.1:41220 [02/Dec/2026:04:10:01.140] fe fe/<NOSRV> -1/-1/-1/-1/5 -1 0 - - CD-- 1/1/0/0/0 0/0 {|} {} "<BADREQ>"`, format: "haproxy",
			outcome: model.OutcomeClientClosed,
		}, {
			name: "ingress-nginx 400 without a request",
			line: `10.1.2.3 - - [30/Nov/2026:09:14:04 +0000] "-" 400 0 "-" "-" 0 0.001 [] [] - - - - 2c1f0d6e8b3a4f5e9d7c6b5a4f3e2d1c`, format: "ingress-nginx",
			status: 400, outcome: model.OutcomeOK,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rule *SourceRule
			if tc.forced != "" {
				var err error
				if rule, err = (*Config)(nil).RuleFor("x.log", model.TierUnknown, tc.forced); err != nil {
					t.Fatal(err)
				}
			}
			p := NewParser(nil, rule)
			var res Result
			p.Into(&res)
			p.Line([]byte(tc.line), model.Source{File: "x.log", Line: 1})
			if len(res.Skips) > 0 || len(res.Obs) != 1 {
				t.Fatalf("%d observations, %d ignored, skips %v", len(res.Obs), res.Ignored, res.Skips)
			}
			o := res.Obs[0]
			if o.Format != tc.format || o.Method != tc.method || o.Route != tc.route || o.Status != tc.status || o.Outcome != tc.outcome || o.Time.IsZero() {
				t.Errorf("read as %s %q %q status %d outcome %s time %s; want %s %q %q %d %s", o.Format, o.Method, o.Route, o.Status, o.Outcome,
					o.Time, tc.format, tc.method, tc.route, tc.status, tc.outcome)
			}
		})
	}
}
