package formats

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/idem-cli/idem/model"
)

// nginx's and Apache's combined text access log, with the fields
// nginx setups append after it (request time, upstream status, request id,
// key), by name or by shape.
var combinedFormat = &Format{
	Name: "combined", Aliases: []string{"clf", "nginx-text"}, Kind: KindText, Tier: model.TierProxy,
	Doc: "nginx/Apache combined text access logs, with appended fields",
	// $request_id, not $http_x_request_id: most clients send no
	// X-Request-Id, and nginx's own id, passed on, is the one the server
	// logs. The recipe's config is in backquotes: a capture runs exactly
	// that (internal/harness's TestSetupRecipes).
	Setup: "`log_format idem '$remote_addr - $remote_user [$time_local] \"$request\" $status $body_bytes_sent \"$http_referer\" \"$http_user_agent\" $request_time \"$upstream_status\" \"$request_id\" \"$http_idempotency_key\"';` and, where it proxies, `proxy_set_header X-Request-Id $request_id;` so the server logs the id nginx logs (its own, made for every request).",
	text:  readCombined,
	// nginx's $time_local is when the log is written (start = it -
	// $request_time); Apache's %t is when the request arrived.
	Samples: []Sample{{
		Origin: "Apache HTTP Server documentation, Log Files (Combined Log Format example)",
		Line:   `127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326 "http://www.example.com/start.html" "Mozilla/4.08 [en] (Win98; I ;Nav)"`,
		Want: model.Observation{Tier: model.TierProxy, Format: "combined", Method: "GET", Route: "/apache_pb.gif", Status: 200,
			Outcome: model.OutcomeOK, Client: "127.0.0.1", Time: mustTime("2000-10-10T13:55:36-07:00")},
	}, {
		Origin: "fixtures/exports/combined.log: a 499 with request time, upstream status, request id and key appended",
		Line: `198.51.100.23 - - [30/Nov/2026:09:14:04 +0000] "POST /v1/orders HTTP/1.1" 499 0 "-" "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6)" 2.398 "201" ` +
			`"c9b2decb-ebc7-4a9b-99d6-69712772ef41" "0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41"`,
		Want: model.Observation{Tier: model.TierProxy, Format: "combined", Method: "POST", Route: "/v1/orders", UpstreamStatus: 201,
			Outcome: model.OutcomeClientClosed, RequestID: "c9b2decb-ebc7-4a9b-99d6-69712772ef41", Key: "0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41",
			Client: "198.51.100.23", Time: mustTime("2026-11-30T09:14:01.602Z"), Duration: 2_398_000_000},
	}},
}

// combinedLine matches the Common/Combined Log Format, and Apache's
// vhost_combined (the virtual host and port first); what follows the user
// agent is read by extras. Groups: vhost, client, user, time, method,
// path, status, bytes, referer, user agent, extras.
var combinedLine = regexp.MustCompile(`^(?:(\S+) )?` + clfBody)

// combinedAnywhere finds a combined line behind a logger's prefix
// (morgan through winston: "info: [app] 1.2.3.4 - - [...] "POST …"").
var combinedAnywhere = regexp.MustCompile(`(?:^|\s)()` + clfBody)

const clfBody = `(\S+) \S+ (\S+) \[([^\]]+)\] "(\S+) (\S+)(?: [^"]*)?" (\d{3}) (\d+|-)(?: "((?:[^"\\]|\\.)*)" "((?:[^"\\]|\\.)*)")?(.*)$`

// combinedCut matches, with the same groups, the lines a proxy writes for
// a request it could not read or answer: the request "-" (a client that
// connected and sent nothing, 408), raw bytes (TLS sent to a plain port,
// 400), a request line with escaped control bytes, and the status "-"
// (no response: Traefik). The method group is empty and the path group
// holds the request as logged. Tried only on lines combinedLine does not
// match, so that a usual line pays nothing for it.
var combinedCut = regexp.MustCompile(`^(?:(\S+) )?(\S+) \S+ (\S+) \[([^\]]+)\] "()((?:[^"\\]|\\.)*)" (\d{3}|-) (\d+|-)(?: "((?:[^"\\]|\\.)*)" "((?:[^"\\]|\\.)*)")?(.*)$`)

// clfCould reports whether s could be a combined line (clfBody or
// combinedCut): each has the time's closing bracket before the quoted
// request. One scan refuses the lines of other formats before the
// expressions, which backtrack through them.
func (p *Parser) clfCould(s string) bool { return !p.lacks(s, "] \"") }

// readCombined reads a combined line, at the start of the line or, for a
// line that is not kubectl's prefix, behind another prefix.
func readCombined(p *Parser, s string, src model.Source) bool {
	if !p.clfCould(s) {
		return false
	}
	m := combinedLine.FindStringSubmatch(s)
	if m == nil && !strings.HasPrefix(s, "[") {
		m = combinedAnywhere.FindStringSubmatch(s)
		if m == nil {
			m = combinedCut.FindStringSubmatch(s)
		}
	}
	if m == nil {
		return false
	}
	p.combined(m, src)
	return true
}

// combined maps a combined-format line and its appended fields.
func (p *Parser) combined(m []string, src model.Source) {
	var o model.Observation
	o.Source, o.Format, o.Tier = src, "combined", model.TierProxy
	if m[1] != "" {
		o.Labels = "vhost=" + m[1]
	}
	m = m[1:] // the rest as in the combined format
	o.Client = m[1]
	switch {
	case m[4] == "": // combinedCut's request, whole
		o.Method, o.Route = cutRequest(m[5])
	case methodToken(m[4]):
		o.Method = httpMethod(m[4])
		o.Route = routePath(m[5])
		if strings.IndexByte(m[5], '\\') >= 0 {
			o.Route = routePath(lineBreakCut(m[5]))
		}
	default: // raw bytes that hold a space
		o.Method, o.Route = cutRequest(m[4] + " " + m[5])
	}
	o.Status, _ = strconv.Atoi(m[6]) // "-": no response was sent
	ex := readExtras(m[10])
	o.Duration, _ = model.ParseDuration(ex.requestTime, model.Seconds)
	if t, ok := model.ParseTime(m[3]); ok {
		o.Time = t.Add(-o.Duration) // $time_local is when the log was written
	}
	o.UpstreamStatus, _ = intValue(ex.upstream)
	o.RequestID, o.Key = ex.requestID, model.NormalizeKey(ex.key)
	o.Outcome = proxyOutcome(o.Status)
	switch {
	case o.Status == 499:
		o.Detail, o.Status = "499 client closed request", 0
	case m[6] == "-":
		o.Detail = "no status logged"
	case o.Method == "":
		o.Detail = "no request line read"
	}
	if n := upstreamTries(ex.upstream); n > 0 {
		o.UpstreamTries = n
		if o.Detail == "" {
			o.Detail = "upstream_status " + ex.upstream
		}
	}
	p.textDone(&o)
}

// lineBreakCut cuts a logged request line at its first escaped line
// break: what follows was never part of it (a header smuggled in).
func lineBreakCut(s string) string {
	for _, esc := range []string{`\x0A`, `\x0a`, `\x0D`, `\x0d`, `\n`, `\r`} {
		s, _, _ = strings.Cut(s, esc)
	}
	return s
}

// methodToken reports whether s can be a method: letters only (a
// request of raw bytes starts with escapes).
func methodToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return s != ""
}

// cutRequest reads a request line that the usual pattern did not: "-"
// (none was read), raw bytes, or one holding escaped control bytes. A
// method is taken only where the line starts with one (letters, then a
// space, then a path); raw bytes give neither method nor route.
func cutRequest(req string) (method, route string) {
	req = lineBreakCut(req)
	m, rest, ok := strings.Cut(req, " ")
	if !ok || !methodToken(m) {
		return "", ""
	}
	path, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
	if !strings.HasPrefix(path, "/") && !strings.Contains(path, "://") {
		return "", ""
	}
	return httpMethod(m), routePath(path)
}

// extras are the fields appended after the user agent. They are read by
// name where named (rt=0.5 us=201 rid="…" key="…", as ingress setups
// write them), else by position: the first decimal is the request time, a
// status list is the upstream status, and the quoted values are the
// request id, then the key (log_format … "$http_x_request_id"
// "$http_idempotency_key"), each only where it is shaped like a
// generated id (generatedID).
type extras struct {
	requestTime, upstream, requestID, key string
}

var extraToken = regexp.MustCompile(`(?:(\w+)=)?("(?:[^"\\]|\\.)*"|\S+)`)

func readExtras(s string) extras {
	var e extras
	var quoted []string
	for _, m := range extraToken.FindAllStringSubmatch(s, 16) {
		name, v := m[1], m[2]
		q := strings.HasPrefix(v, `"`)
		v = strings.Trim(v, `"`)
		if v == "-" || v == "" {
			if q && name == "" {
				quoted = append(quoted, "")
			}
			continue
		}
		switch name {
		case "rt", "request_time":
			e.requestTime = v
		case "us", "ups", "upstream_status":
			e.upstream = v
		case "rid", "req_id", "request_id", "x_request_id":
			e.requestID = v
		case "key", "idem", "idempotency_key":
			e.key = v
		case "":
			switch {
			case q && e.upstream == "" && isStatusList(v):
				e.upstream = v // "$upstream_status" quoted
			case q:
				quoted = append(quoted, v)
			case e.requestTime == "" && strings.Contains(v, ".") && isNumber(v):
				e.requestTime = v
			case e.upstream == "" && isStatusList(v):
				e.upstream = v
			case e.requestID == "" && len(v) == 32 && isHex(v) && generatedID(v):
				e.requestID = v // ingress-nginx's $req_id
			}
		}
	}
	// A quoted "$upstream_status" is "-" when no upstream answered (a
	// 499): then three quoted values follow the request time, and the
	// first is that status, not the request id.
	if len(quoted) >= 3 && quoted[0] == "" && e.upstream == "" {
		quoted = quoted[1:]
	}
	// The quoted values are unnamed: only one shaped like a generated id
	// is taken, never a forwarded-for list, a router's name or a URL
	// (Traefik's common log format appends those).
	for i, v := range quoted {
		switch {
		case i == 0 && e.requestID == "" && generatedID(v):
			e.requestID = v
		case i == 1 && e.key == "" && generatedID(v):
			e.key = v
		}
	}
	return e
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// isStatusList matches "201", "504, 201" or, after an internal redirect,
// "504, 201 : 200".
func isStatusList(s string) bool {
	for part := range strings.SplitSeq(strings.ReplaceAll(s, ":", ","), ",") {
		part = strings.TrimSpace(part)
		if len(part) != 3 || part[0] < '1' || part[0] > '5' || !isNumber(part) {
			return false
		}
	}
	return true
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'f') {
			return false
		}
	}
	return true
}
