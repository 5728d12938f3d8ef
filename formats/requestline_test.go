package formats

import (
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/model"
)

// readReqLines reads lines as one input's batch: each line numbered from 1.
func readReqLines(t testing.TB, src *SourceRule, lines ...string) *Result {
	t.Helper()
	p := NewParser(nil, src)
	var res Result
	p.Into(&res)
	for i, l := range lines {
		p.Line([]byte(l), model.Source{File: "in.log", Line: i + 1})
	}
	p.Flush()
	return &res
}

func TestRequestLine(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		want  []model.Observation // in order; fields set must match
		skips int
	}{
		{name: "a level tag is no request id",
			lines: []string{`[INFO] 2026/12/07 10:00:01 "GET /health HTTP/1.1" 200 2 in 35µs`},
			want:  []model.Observation{{Tier: model.TierServer, Method: "GET", Route: "/health", Status: 200, Duration: 35 * time.Microsecond}}},
		{name: "an address, a port and a byte count are no id nor duration",
			lines: []string{`10.0.0.1:8080 - "POST /v1/orders HTTP/1.1" 201 57`},
			want:  []model.Observation{{Tier: model.TierServer, Method: "POST", Route: "/v1/orders", Status: 201}}},
		{name: "an absolute URL with nothing that says who wrote it leaves the tier unknown",
			lines: []string{`"POST https://api.example.com/v1/orders HTTP/1.1" 201`},
			want:  []model.Observation{{Tier: model.TierUnknown, Method: "POST", Route: "/v1/orders", Status: 201}}},
		{name: "an access log's date says the server handled it, whatever its target",
			lines: []string{`app[1]: [07/Dec/2026:10:00:01 +0000] "POST https://api.example.com/v1/orders HTTP/1.1" 201`},
			want:  []model.Observation{{Tier: model.TierServer, Method: "POST", Route: "/v1/orders", Status: 201}}},
		{name: "a call that failed with no answer is the client's, with its outcome",
			lines: []string{`2026/12/07 21:22:24 [ERR] POST http://127.0.0.1:8081/v1/orders request failed: Post "http://127.0.0.1:8081/v1/orders": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`},
			want:  []model.Observation{{Tier: model.TierClient, Method: "POST", Route: "/v1/orders", Outcome: model.OutcomeTimeout}}},
		{name: "a refused call is not delivered",
			lines: []string{`2026/12/07 21:22:24 [ERR] POST https://api.example.com/v1/orders request failed: dial tcp 127.0.0.1:1: connect: connection refused`},
			want:  []model.Observation{{Tier: model.TierClient, Method: "POST", Route: "/v1/orders", Outcome: model.OutcomeNotDelivered}}},
		{name: "an absolute URL with no status and no failure is no request",
			lines: []string{`2026/12/07 21:22:24 [DEBUG] POST http://127.0.0.1:8081/v1/orders`}, skips: 1},
		{name: "a path-only request that failed is nobody's send by its words alone",
			lines: []string{`upstream timed out (110: Connection timed out) while reading response header from upstream, request: "POST /v1/orders HTTP/1.1"`}, skips: 1},
		{name: "a request line without a status is no request",
			lines: []string{`handling POST /v1/orders for a client`}, skips: 1},
		{name: "a message about a request is no request line",
			lines: []string{`user called GET /api/x and got 404`}, skips: 1},
		{name: "a retry mark naming another path marks no send",
			lines: []string{`DEBUG:urllib3.connectionpool:Retry: /v1/orders`, `DEBUG:urllib3.connectionpool:http://127.0.0.1:1 "POST /v1/payments HTTP/1.1" 201 57`},
			want:  []model.Observation{{Tier: model.TierClient, Route: "/v1/payments", Status: 201}}},
		{name: "a method word and a number are no request line",
			lines: []string{`GET requests served: 200`}, skips: 1},
		{name: "a header line after no request is not read",
			lines: []string{`Idempotency-Key: k-1`}, skips: 1},
		{name: "a server's next lines are no header dump",
			lines: []string{`INFO:     127.0.0.1:5 - "POST /v1/orders HTTP/1.1" 201 Created`, `X-Request-Id: r-9`},
			want:  []model.Observation{{Tier: model.TierServer, Method: "POST", Status: 201}}, skips: 1},
		{name: "a dump broken by another line ends",
			lines: []string{`--> POST http://127.0.0.1:1/v1/orders`, `Idempotency-Key: k-1`, `something else entirely`, `X-Request-Id: r-1`},
			want:  []model.Observation{{Tier: model.TierClient, Method: "POST", Key: "k-1"}}, skips: 2},
		{name: "a client library's retry header in a dump marks the send",
			lines: []string{`--> POST http://127.0.0.1:1/v1/orders`, `x-stainless-retry-count: 1`},
			want:  []model.Observation{{Tier: model.TierClient, Method: "POST", RetryMark: "x-stainless-retry-count: 1", Attempt: 2}}},
		{name: "a retry library's line marks the client's next send, and only it",
			lines: []string{`DEBUG:client:http://127.0.0.1:1 "POST /v1/orders HTTP/1.1" 503 0`, `retrying in 1s (2 left)`,
				`DEBUG:client:http://127.0.0.1:1 "POST /v1/orders HTTP/1.1" 201 57`, `DEBUG:client:http://127.0.0.1:1 "POST /v1/orders HTTP/1.1" 201 57`},
			want: []model.Observation{{Tier: model.TierClient, Status: 503}, {Tier: model.TierClient, Status: 201, RetryMark: "retrying in 1s (2 left)"},
				{Tier: model.TierClient, Status: 201}}},
		{name: "urllib3's warning before a resend after a broken connection",
			lines: []string{`WARNING:urllib3.connectionpool:Retrying (Retry(total=2, connect=None, read=None, redirect=None, status=None)) after connection broken by 'ReadTimeoutError("HTTPConnectionPool(host='127.0.0.1', port=1): Read timed out. (read timeout=1)")': /v1/orders`,
				`DEBUG:urllib3.connectionpool:http://127.0.0.1:1 "POST /v1/orders HTTP/1.1" 201 57`},
			want: []model.Observation{{Tier: model.TierClient, Status: 201, RetryMark: "Retrying (Retry(total=2, connect=None, read=None, redirect=None, status=None)) after connection broken by 'ReadTimeoutEr"}}},
		{name: "curl's warning before it sends again",
			lines: []string{`> POST /v1/orders HTTP/1.1`, `>`, `} [2 bytes data]`, `< HTTP/1.1 503 Service Unavailable`, `Warning: Problem : HTTP error. Will retry in 1 seconds. 2 retries left.`,
				`*   Trying 127.0.0.1:1...`, `> POST /v1/orders HTTP/1.1`, `>`, `* HTTP 1.0, assume close after body`, `< HTTP/1.1 201 Created`},
			want:  []model.Observation{{Tier: model.TierClient, Status: 503}, {Tier: model.TierClient, Status: 201, RetryMark: "Will retry in 1 seconds. 2 retries left."}},
			skips: 1},
		{name: "a server's request line takes no client retry mark",
			lines: []string{`retrying in 1s (2 left)`, `"POST /v1/orders HTTP/1.1" 201 57`},
			want:  []model.Observation{{Tier: model.TierServer, Status: 201}}},
		{name: "a fiber-like layout of columns",
			lines: []string{`10:00:01 | 409 |  1.5ms |  127.0.0.1 | POST | /v1/orders | -`},
			want:  []model.Observation{{Tier: model.TierServer, Method: "POST", Route: "/v1/orders", Status: 409, Duration: 1500 * time.Microsecond}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := readReqLines(t, nil, tc.lines...)
			if len(res.Skips) != tc.skips {
				t.Errorf("%d lines skipped, want %d: %v", len(res.Skips), tc.skips, res.Skips)
			}
			if len(res.Obs) != len(tc.want) {
				t.Fatalf("%d observations, want %d: %+v", len(res.Obs), len(tc.want), res.Obs)
			}
			for i, w := range tc.want {
				w.Format = "requestline"
				for _, pr := range wantFields(w, res.Obs[i]) {
					t.Errorf("observation %d: %s", i+1, pr)
				}
				if w.RequestID == "" && res.Obs[i].RequestID != "" {
					t.Errorf("observation %d: request id %q read from a line that names none", i+1, res.Obs[i].RequestID)
				}
				if w.RetryMark == "" && res.Obs[i].RetryMark != "" {
					t.Errorf("observation %d: marked a retry (%q), which no line says", i+1, res.Obs[i].RetryMark)
				}
				if w.Tier == model.TierUnknown && res.Obs[i].Tier != model.TierUnknown {
					t.Errorf("observation %d: tier %v, want it left unknown", i+1, res.Obs[i].Tier)
				}
			}
		})
	}
}

// TestRequestLineCredentialsAreCounted: a credential in a dump is
// counted for secret-in-logs by its header's name, and its value kept
// nowhere.
func TestRequestLineCredentialsAreCounted(t *testing.T) {
	res := readReqLines(t, nil, `--> POST https://api.example.com/v1/orders`, `Authorization: Bearer sk_live_abc`, `--> END POST`)
	if res.Secrets["headers.authorization"] != 1 {
		t.Errorf("secrets %v, want headers.authorization counted once", res.Secrets)
	}
	for _, o := range res.Obs {
		if strings.Contains(o.Detail+o.Message+o.RequestID+o.Key, "sk_live") {
			t.Errorf("the credential was kept: %+v", o)
		}
	}
}

// TestRequestLineTierOverride: the input's tier, from --input-tier or
// the config, wins over what the line says.
func TestRequestLineTierOverride(t *testing.T) {
	var cfg *Config // --input-tier proxy, no config file
	src, err := cfg.RuleFor("in.log", model.TierProxy, "")
	if err != nil || src == nil {
		t.Fatal(src, err)
	}
	res := readReqLines(t, src, `INFO:     127.0.0.1:5 - "POST /v1/orders HTTP/1.1" 201 Created`)
	if len(res.Obs) != 1 || res.Obs[0].Tier != model.TierProxy {
		t.Fatalf("got %+v, want one observation of the proxy tier", res.Obs)
	}
}

// TestRequestLineExplains: --explain-fields says what a request line gave
// and why its tier.
func TestRequestLineExplains(t *testing.T) {
	p := NewParser(nil, nil)
	p.Explain = true
	var res Result
	p.Into(&res)
	for i, l := range []string{`--> POST http://127.0.0.1:1/v1/orders`, `Idempotency-Key: k-1`, `<-- 201 Created http://127.0.0.1:1/v1/orders (3ms)`} {
		p.Line([]byte(l), model.Source{File: "in.log", Line: i + 1})
	}
	got := map[string]string{}
	for u := range res.Uses {
		got[u.Field] = u.Path + " | " + u.By
	}
	for field, want := range map[string]string{"method": "request line", "key": " | format requestline: the idempotency-key header in the dump", "status": "the response line", "tier": "client: a client logger's arrow"} {
		if !strings.Contains(got[field], want) {
			t.Errorf("%s explained as %q, want it to say %q", field, got[field], want)
		}
	}
}

// FuzzRequestLine: whatever the lines, reading never panics, and no
// request id or key is read that the input does not name: each is found
// after a name ("request_id=", "X-Request-Id: ") or in the brackets of
// chi's layout, never as a bare address, port or count.
func FuzzRequestLine(f *testing.F) {
	for _, s := range requestLineFormat.Samples {
		f.Add(s.Line)
	}
	f.Add("10.0.0.1:8080 - \"POST /v1/orders HTTP/1.1\" 201 57\n[INFO] [abc] \"GET / HTTP/1.1\" 200")
	f.Add("--> POST http://h/x\nX-Request-Id: 1\n\nX-Request-Id: 2")
	f.Fuzz(func(t *testing.T, in string) {
		res := readReqLines(t, nil, strings.Split(in, "\n")...)
		for _, o := range res.Obs {
			if o.Format != requestLineName {
				continue
			}
			if o.RequestID != "" && !namesID(in, o.RequestID) {
				t.Fatalf("request id %q read from %q, which does not name it", o.RequestID, in)
			}
			if o.Key != "" && !namesID(in, o.Key) {
				t.Fatalf("key %q read from %q, which does not name it", o.Key, in)
			}
		}
	})
}

// namesID reports whether in names v as an id: after '=' or ':' (a
// key=value pair, a header) or in brackets.
func namesID(in, v string) bool {
	for i := strings.Index(in, v); i >= 0; {
		before := strings.TrimRight(in[:i], " \"'")
		if strings.HasSuffix(before, "=") || strings.HasSuffix(before, ":") || strings.HasSuffix(before, "[") && strings.HasPrefix(in[i+len(v):], "]") {
			return true
		}
		j := strings.Index(in[i+1:], v)
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// TestRequestLineContinues: the lines a trace or a retry needs the next
// lines for are kept with them at a batch's end; a transfer's end note,
// a server's line and a message are not.
func TestRequestLineContinues(t *testing.T) {
	for line, want := range map[string]bool{
		"> POST /v1/orders HTTP/1.1\r\n":            true,
		">\n":                                       true,
		"< HTTP/1.1 201 Created\r\n":                true,
		"} [11 bytes data]\n":                       true,
		"--> POST https://api.example.com/v1/x\n":   true,
		"*   Trying 127.0.0.1:8080...\n":            true,
		"DEBUG:urllib3.connectionpool:Retry: /v1\n": true,
		"Warning: Problem : HTTP error. Will retry in 1 seconds. 2 retries left.\n": true,
		"* Connection #0 to host 127.0.0.1 left intact\n":                           false,
		"* Closing connection 0\n":                                                  false,
		`INFO:     127.0.0.1:5 - "POST /v1/orders HTTP/1.1" 201 Created` + "\n":     false,
		"{\"msg\":\"x\"}\n":    false,
		"Idempotency-Key: k\n": false,
		"\n":                   false,
	} {
		if got := TraceContinues([]byte(line)); got != want {
			t.Errorf("TraceContinues(%q) = %v, want %v", line, got, want)
		}
	}
}
