package formats

import (
	"bytes"
	"regexp"
	"strings"
	"time"

	"github.com/idem-cli/idem/formats/grammar"
	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/redact"
)

// A text line of no named format that carries an HTTP request line: Go
// routers' default loggers (gin's "[GIN] 2026/12/07 - 10:00:00 | 201 |
// 1.234ms | 10.1.2.3 | POST "/v1/orders"", chi's middleware.Logger),
// Python servers' access lines (uvicorn's `127.0.0.1:5 - "POST /v1/orders
// HTTP/1.1" 201 Created`), HTTP clients' loggers (urllib3's
// `http://127.0.0.1:8080 "POST /v1/orders HTTP/1.1" 201 35`, OkHttp's
// "--> POST https://…" and "<-- 201 Created https://… (35ms)", curl -v's
// "> POST /v1/orders HTTP/1.1" and "< HTTP/1.1 201 Created"), and retry
// libraries' "Retrying … after …", "retrying in 1s (2 left)", curl's
// "Will retry in 1 seconds.".
//
// It is read by the grammar the line carries, not by the logger's name:
// a request line (RFC 9112: method, target, optional version) or a method
// and an absolute URL, with a three-digit status beside it, is a request;
// a duration is a number with its unit; the time is the line's own
// leading timestamp, written when the response was (the duration is taken
// off). Ids are read only where the line names them: request_id=…, a
// header dump's X-Request-Id:, chi's bracketed id before its request
// line; never an address, a byte count or a level tag. The tier is what
// the line means: a handled request (a path-only target, an access log's
// date, chi's "from ADDR") is the server's; an outbound call (a client
// logger's arrow, the base URL urllib3 writes before its request line) is
// the client's; otherwise it is left unknown, for --input-tier or the
// config to say.
//
// A client logger's request line may be followed by its headers, one a
// line ("Idempotency-Key: k", curl's "> X-Request-Id: r"): they are
// joined to that request while they follow it line after line in one
// batch, and read (the key, the request id, a client library's retry
// header; a credential is counted for secret-in-logs, never kept). A
// retry line marks the client's next request line as a retry.
//
// This format is tried last among the text formats: every named format
// keeps its lines.
// requestLineName is the format's name, as its lines carry it.
const requestLineName = "requestline"

var requestLineFormat = &format{
	Name: "requestline", Aliases: []string{"request-line", "text-request"}, Kind: kindText, Tier: model.TierUnknown,
	Doc:  "any text line holding an HTTP request line and its status (gin, chi, uvicorn, urllib3, OkHttp, curl -v), read by its grammar; header dumps and retry lines joined",
	text: readRequestLine,
	Samples: []sample{{
		Origin: "gin's default logger (LoggerWithConfig, defaultLogFormatter) without colours",
		Line:   `[GIN] 2026/12/07 - 10:00:01 | 201 |    1.234ms |        10.1.2.3 | POST     "/v1/orders"`,
		Want: model.Observation{Tier: model.TierServer, Format: "requestline", Method: "POST", Route: "/v1/orders", Status: 201,
			Outcome: model.OutcomeOK, Duration: 1234 * time.Microsecond, Time: mustTime("2026-12-07T10:00:00.998766Z")},
	}, {
		Origin: "chi's middleware.Logger behind middleware.RequestID (Go's log layout, the id bracketed before the request line)",
		Line:   `2026/12/07 10:00:01 [api-7f9c/Jx1bQ2cZ4k-000042] "POST http://127.0.0.1:8080/v1/orders?x=1 HTTP/1.1" from 127.0.0.1:54321 - 201 57B in 2s`,
		Want: model.Observation{Tier: model.TierServer, Format: "requestline", Method: "POST", Route: "/v1/orders", Status: 201,
			RequestID: "api-7f9c/Jx1bQ2cZ4k-000042", Duration: 2 * time.Second, Time: mustTime("2026-12-07T09:59:59Z")},
	}, {
		Origin: "uvicorn's access log, its default layout",
		Line:   `INFO:     127.0.0.1:54321 - "POST /v1/orders HTTP/1.1" 409 Conflict`,
		Want:   model.Observation{Tier: model.TierServer, Format: "requestline", Method: "POST", Route: "/v1/orders", Status: 409, Outcome: model.OutcomeOK},
	}, {
		Origin: "urllib3's connectionpool at DEBUG, through logging.basicConfig: the byte count after the status is no duration",
		Line:   `DEBUG:urllib3.connectionpool:http://127.0.0.1:8080 "POST /v1/orders HTTP/1.1" 503 35`,
		Want:   model.Observation{Tier: model.TierClient, Format: "requestline", Method: "POST", Route: "/v1/orders", Status: 503, Outcome: model.OutcomeOK},
	}, {
		Origin: "urllib3 retrying a 503 (Retry with status_forcelist): the retry line marks the next send",
		Line: "DEBUG:urllib3.util.retry:Incremented Retry for (url='/v1/orders'): Retry(total=1, connect=None, read=None, redirect=None, status=None)\n" +
			"DEBUG:urllib3.connectionpool:Retry: /v1/orders\n" +
			`DEBUG:urllib3.connectionpool:http://127.0.0.1:8080 "POST /v1/orders HTTP/1.1" 201 57`,
		Want: model.Observation{Tier: model.TierClient, Format: "requestline", Method: "POST", Route: "/v1/orders", Status: 201,
			RetryMark: "Retry: /v1/orders"},
	}, {
		Origin: "OkHttp's HttpLoggingInterceptor at Level.HEADERS: the request line, its headers, the response line",
		Line: "--> POST https://api.example.com/v1/orders\n" +
			"Content-Type: application/json; charset=utf-8\n" +
			"Idempotency-Key: 0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41\n" +
			"X-Request-Id: c9b2decb-ebc7-4a9b-99d6-69712772ef41\n" +
			"Authorization: Bearer sk_live_redacted\n" +
			"--> END POST\n" +
			"<-- 201 Created https://api.example.com/v1/orders (35ms)\n" +
			"Idempotent-Replayed: true\n" +
			"<-- END HTTP",
		Want: model.Observation{Tier: model.TierClient, Format: "requestline", Method: "POST", Route: "/v1/orders", Status: 201, Outcome: model.OutcomeOK,
			Key: "0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41", RequestID: "c9b2decb-ebc7-4a9b-99d6-69712772ef41", Duration: 35 * time.Millisecond, Replayed: true},
	}, {
		Origin: "curl -v's trace: the request line and headers after '>', the status line after '<'",
		Line:   "> POST /v1/orders HTTP/1.1\n> Host: 127.0.0.1:8080\n> User-Agent: curl/7.88.1\n> Idempotency-Key: k-curl-1\n>\n< HTTP/1.1 201 Created\n< Content-Length: 57",
		Want:   model.Observation{Tier: model.TierClient, Format: "requestline", Method: "POST", Route: "/v1/orders", Status: 201, Key: "k-curl-1"},
	}, {
		Origin: "a key=value request logger: the request id and the key only where named",
		Line:   `2026-12-07T10:00:01Z INFO [api] request_id=req-1 idempotency_key=k-1 "PUT /v1/orders/7 HTTP/1.1" 200 512 in 35µs`,
		Want: model.Observation{Tier: model.TierServer, Format: "requestline", Method: "PUT", Route: "/v1/orders/7", Status: 200,
			RequestID: "req-1", Key: "k-1", Duration: 35 * time.Microsecond, Time: mustTime("2026-12-07T10:00:00.999965Z")},
	}},
}

// reqLine is the state a request line leaves for the lines after it: the
// header dump that follows it, a response line to come, a retry mark for
// the next send. It never outlives a batch (Flush), so that what is read
// does not depend on how the input is shared out.
type reqLine struct {
	// obs is the index in the batch of the last request read, at src.
	obs int
	src model.Source
	// last is the line the dump has reached; open says a dump may go on.
	last int
	open bool
	// response: the dump's headers after a response line are the
	// response's.
	response bool
	// waiting: a client's request line whose status is still to come.
	waiting bool
	// curl: the request line is curl -v's ("> POST …"), whose trace
	// puts notes ("* …") and data ("} [2 bytes data]") among its lines.
	curl bool
	// stripped is the prefix kubectl's format took off the line being
	// read (an RFC 3339 time, "[pod/…]"), whose time is the line's own.
	stripped string
	// retry is the last retry line read, for the client's next send.
	retry    string
	retryAt  model.Source
	hasRetry bool
}

// maxRetryGap is how many lines a retry mark waits for its send.
const maxRetryGap = 20

// httpMethods are the methods a request line may start with (RFC 9110).
var httpMethods = [...]string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "CONNECT", "TRACE"}

// request is where a request line lies in its line.
type request struct {
	start, end     int // the request line, quotes included
	method, target string
	absolute       bool // an absolute URL, not a path
}

// findRequest finds the first method followed by a request target (a
// path or an absolute URL, quoted or not, after spaces or a '|'). It
// looks only where a target can start, at a '/' after a space or a
// quote, or at the "http://" of an absolute URL: the usual line of
// another kind costs a search for '/' and little more.
func findRequest(s string) (request, bool) {
	for off := 0; off < len(s); {
		j := strings.IndexByte(s[off:], '/')
		if j < 0 {
			return request{}, false
		}
		k := off + j
		off = k + 1
		ts, absolute := k, false // where the target starts
		switch {
		case k >= 5 && strings.HasSuffix(s[:k], "http:") && strings.HasPrefix(s[k:], "//"):
			ts, absolute = k-5, true
		case k >= 6 && strings.HasSuffix(s[:k], "https:") && strings.HasPrefix(s[k:], "//"):
			ts, absolute = k-6, true
		}
		if absolute {
			off = k + 2
		}
		if r, ok := requestAt(s, ts, absolute); ok {
			return r, true
		}
	}
	return request{}, false
}

// requestAt reads the request line whose target starts at ts, if a
// method stands before it.
func requestAt(s string, ts int, absolute bool) (request, bool) {
	i := ts
	tq := i > 0 && s[i-1] == '"'
	if tq {
		i--
	}
	j := i
	for j > 0 && s[j-1] == ' ' {
		j--
	}
	if j > 0 && s[j-1] == '|' {
		for j--; j > 0 && s[j-1] == ' '; j-- {
		}
	}
	if j == i {
		return request{}, false // nothing between a word and the target
	}
	m := ""
	for _, hm := range httpMethods {
		if strings.HasSuffix(s[:j], hm) {
			m = hm
			break
		}
	}
	if m == "" {
		return request{}, false
	}
	start := j - len(m)
	if start > 0 && !strings.ContainsRune(" \"|>[(:", rune(s[start-1])) {
		return request{}, false
	}
	quoted := start > 0 && s[start-1] == '"'
	e := ts
	for e < len(s) && s[e] != ' ' && s[e] != '"' && s[e] != '\t' {
		e++
	}
	r := request{start: start, method: m, target: s[ts:e], absolute: absolute}
	if tq && e < len(s) && s[e] == '"' {
		e++
	}
	// An optional version: HTTP/1.1, HTTP/2.
	if e+6 <= len(s) && s[e] == ' ' && strings.HasPrefix(s[e+1:], "HTTP/") {
		e += 6
		for e < len(s) && (s[e] >= '0' && s[e] <= '9' || s[e] == '.') {
			e++
		}
	}
	if quoted && e < len(s) && s[e] == '"' {
		e++
	}
	if quoted {
		r.start--
	}
	r.end = e
	return r, true
}

// tokens splits s at spaces and '|', the separators of the layouts read.
func tokens(s string) []string {
	return strings.FieldsFunc(s, func(c rune) bool { return c == ' ' || c == '|' || c == '\t' })
}

// statusToken reads a three-digit HTTP status.
func statusToken(t string) (int, bool) {
	if len(t) != 3 || t[0] < '1' || t[0] > '5' || t[1] < '0' || t[1] > '9' || t[2] < '0' || t[2] > '9' {
		return 0, false
	}
	return int(t[0]-'0')*100 + int(t[1]-'0')*10 + int(t[2]-'0'), true
}

// allDigits reports whether t is a number without sign or point.
func allDigits(t string) bool {
	if t == "" {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return false
		}
	}
	return true
}

// statusBeside is the status beside a request line: the first number
// after it (an access line's "201 57", chi's "- 201 57B"), or, in a
// layout of '|'-separated columns (gin's), the column before it that is
// a status and nothing else.
func statusBeside(prefix, suffix string) int {
	for _, t := range tokens(suffix) {
		if allDigits(t) {
			n, _ := statusToken(t)
			return n // a first number that is not a status: none
		}
		// Only chi's "from ADDR -" may stand between: a word of a
		// message ("… and got 404") says it is no request line.
		if t != "-" && t != "from" && !addressToken(t) {
			return 0
		}
	}
	if !strings.Contains(prefix, "|") {
		return 0
	}
	for _, col := range strings.Split(prefix, "|") {
		if n, ok := statusToken(strings.TrimSpace(col)); ok {
			return n
		}
	}
	return 0
}

// addressToken reports whether t is an address or host:port as access
// lines write the peer ("127.0.0.1:50776", "[::1]:80").
func addressToken(t string) bool {
	if t == "" {
		return false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == '.' || c == ':' || c == '[' || c == ']') {
			return false
		}
	}
	return strings.ContainsAny(t, ".:")
}

// durationToken reads a duration written with its unit ("1.234ms",
// "(35ms,", "2s", "35µs"); a bare number is a byte count or a size, not a
// duration, and is not read.
func durationToken(t string) (time.Duration, bool) {
	t = strings.Trim(t, "(),;[]")
	if len(t) < 2 || t[0] < '0' || t[0] > '9' {
		return 0, false
	}
	if last := t[len(t)-1]; last != 's' && last != 'm' && last != 'h' {
		return 0, false
	}
	d, err := time.ParseDuration(t)
	if err != nil || d < 0 {
		return 0, false
	}
	return d, true
}

// leadingTime is the line's own timestamp at its start: RFC 3339, Go's
// log layout, gin's "2026/12/07 - 10:00:00", Python's asctime, or an
// access log's bracketed [07/Dec/2026:10:00:00 +0000] anywhere before
// the request line.
func leadingTime(prefix string) (time.Time, bool) {
	if t, ok := bracketedDate(prefix); ok {
		return t, true
	}
	ts := tokens(prefix)
	// A leading tag: [GIN], [INFO].
	for len(ts) > 0 && strings.HasPrefix(ts[0], "[") && strings.HasSuffix(ts[0], "]") && !strings.ContainsAny(ts[0], "0123456789") {
		ts = ts[1:]
	}
	if len(ts) == 0 || !strings.ContainsAny(ts[0], "-/:T") || ts[0][0] < '0' || ts[0][0] > '9' {
		return time.Time{}, false
	}
	if len(ts) >= 3 && ts[1] == "-" {
		ts = append([]string{ts[0]}, ts[2:]...) // gin's "date - time"
	}
	if len(ts) >= 2 && ts[1] != "" && ts[1][0] >= '0' && ts[1][0] <= '9' && strings.Contains(ts[1], ":") {
		if t, ok := model.ParseTime(ts[0] + " " + strings.TrimSuffix(ts[1], ",")); ok {
			return t, true
		}
	}
	return model.ParseTime(strings.Trim(ts[0], "[]"))
}

// accessDate reports whether an access log's bracketed date
// ([07/Dec/2026:10:00:00 +0000]) stands before the request line.
func accessDate(prefix string) bool {
	_, ok := bracketedDate(prefix)
	return ok
}

// bracketedDate is the first bracketed date and time in s, as access
// logs write it ([07/Dec/2026:10:00:00 +0000]).
func bracketedDate(s string) (time.Time, bool) {
	for {
		i := strings.IndexByte(s, '[')
		if i < 0 {
			return time.Time{}, false
		}
		s = s[i+1:]
		j := strings.IndexByte(s, ']')
		if j < 0 {
			return time.Time{}, false
		}
		if in := s[:j]; strings.Count(in, "/") == 2 && strings.Contains(in, ":") {
			if t, ok := model.ParseTime(in); ok {
				return t, true
			}
		}
		s = s[j+1:]
	}
}

// namedIDs reads the request id and the key where a key=value pair names
// them.
func namedIDs(o *model.Observation, s string) {
	for _, t := range strings.Fields(s) {
		k, v, ok := strings.Cut(t, "=")
		if !ok {
			continue
		}
		v = strings.Trim(v, `"',;`)
		if v == "" || v == "-" {
			continue
		}
		switch normName(k) {
		case "requestid", "reqid", "xrequestid":
			if o.RequestID == "" {
				o.RequestID = v
			}
		case "idempotencykey", "xidempotencykey":
			if o.Key == "" {
				o.Key = model.NormalizeKey(v)
			}
		}
	}
}

// chiRequestID is the id chi's middleware.Logger brackets right before
// its quoted request line when middleware.RequestID runs: that layout
// ([id] "METHOD URL PROTO" from ADDR) says it is the request id.
func chiRequestID(prefix, suffix string) string {
	p := strings.TrimRight(prefix, " ")
	if !strings.HasSuffix(p, "]") || !strings.HasPrefix(strings.TrimLeft(suffix, " "), "from ") {
		return ""
	}
	i := strings.LastIndexByte(p, '[')
	if i < 0 {
		return ""
	}
	id := p[i+1 : len(p)-1]
	if !taggedID(id) {
		return ""
	}
	return id
}

func readRequestLine(p *Parser, s string, src model.Source) bool {
	st := &p.reqline
	r, ok := findRequest(s)
	if !ok {
		return readRequestLineRest(p, s, src)
	}
	prefix, suffix := s[:r.start], s[r.end:]
	arrow := strings.HasSuffix(strings.TrimRight(prefix, " "), "-->") || strings.HasPrefix(s, "> ")
	status := statusBeside(prefix, suffix)
	// A call that failed has no status: a client's log names the method,
	// the URL it called and the error it met instead (Go's "[ERR] POST
	// http://… request failed: … context deadline exceeded").
	failed := model.OutcomeUnknown
	if status == 0 && !arrow && r.absolute {
		if oc := errorOutcome(suffix); oc != model.OutcomeError || failureWords.MatchString(suffix) {
			failed = oc
		}
	}
	if status == 0 && !arrow && failed == model.OutcomeUnknown {
		return false
	}
	var o model.Observation
	o.Source, o.Format, o.Tier = src, requestLineName, model.TierUnknown
	o.Method, o.Route = r.method, routePath(r.target)
	o.Status = status
	why := "unknown: neither a handled nor an outbound request by what the line says"
	pt := tokens(prefix)
	switch {
	case failed != model.OutcomeUnknown:
		o.Tier, why = model.TierClient, "client: a call to an absolute URL that failed with no answer (an outbound call)"
		o.Outcome, o.Detail = failed, strings.TrimSpace(suffix)
	case arrow:
		o.Tier, why = model.TierClient, "client: a client logger's arrow before the request line"
	case len(pt) > 0 && (strings.Contains(pt[len(pt)-1], "http://") || strings.Contains(pt[len(pt)-1], "https://")):
		o.Tier, why = model.TierClient, "client: the server's address written before the request line (an outbound call)"
	case accessDate(prefix):
		o.Tier, why = model.TierServer, "server: an access log's bracketed date before the request line (a handled request)"
	case strings.HasPrefix(strings.TrimLeft(suffix, " "), "from "):
		o.Tier, why = model.TierServer, "server: the request came \"from\" an address (a handled request)"
	case !r.absolute:
		o.Tier, why = model.TierServer, "server: a path-only request target (a handled request)"
	}
	for _, t := range tokens(prefix + " " + suffix) {
		if d, ok := durationToken(t); ok {
			o.Duration = d
			break
		}
	}
	t, ok := leadingTime(prefix)
	if !ok && st.stripped != "" {
		// kubectl's --timestamps, or the line's own RFC 3339 time, taken
		// off before the line came here: its last word.
		if f := strings.Fields(st.stripped); len(f) > 0 {
			t, ok = model.ParseTime(f[len(f)-1])
		}
	}
	if ok {
		o.Time = t
		if status > 0 && o.Duration > 0 {
			o.Time = t.Add(-o.Duration) // written when the response was
		}
	}
	namedIDs(&o, prefix)
	namedIDs(&o, suffix)
	if id := chiRequestID(prefix, suffix); id != "" && o.RequestID == "" {
		o.RequestID = id
	}
	if status > 0 {
		o.Outcome = model.OutcomeOK
	}
	if o.Tier == model.TierClient && st.hasRetry && st.retryAt.File == src.File && src.Line > st.retryAt.Line && src.Line-st.retryAt.Line <= maxRetryGap &&
		retryFor(st.retry, o.Route) {
		o.RetryMark = st.retry
	}
	if o.Tier == model.TierClient {
		st.hasRetry = false
	}
	p.labelTier(&o, false)
	p.emit(&o)
	// Only a client's request line opens a dump: the lines after a
	// server's are its own messages ("INFO: …"), not headers.
	*st = reqLine{obs: len(p.out.Obs) - 1, src: src, last: src.Line, open: o.Tier == model.TierClient, waiting: status == 0 && failed == model.OutcomeUnknown, curl: strings.HasPrefix(s, "> "),
		retry: st.retry, retryAt: st.retryAt, hasRetry: st.hasRetry}
	if p.Explain && src.Line <= maxExplained {
		p.explainRequestLine(&p.out.Obs[st.obs], why, chiRequestID(prefix, suffix) != "")
	}
	return true
}

// readRequestLineRest reads the lines around a request line: a retry
// line, a response line of a client's request, a header of a dump.
func readRequestLineRest(p *Parser, s string, src model.Source) bool {
	st := &p.reqline
	if mark, ok := retryLine(s); ok {
		st.retry, st.retryAt, st.hasRetry = mark, src, true
		st.open = false
		p.out.Ignored++
		p.countFormat(requestLineName)
		return true
	}
	o := st.current(p, src)
	if o == nil {
		return false
	}
	next := func() bool {
		st.last = src.Line
		p.out.Ignored++ // a part of the request read on its first line
		p.countFormat(requestLineName)
		return true
	}
	if st.curl && (strings.HasPrefix(s, "* ") || strings.HasPrefix(s, "{ [") || strings.HasPrefix(s, "} [")) {
		return next() // curl -v's own notes and data between its request and response
	}
	line := s
	switch {
	case strings.HasPrefix(line, "> ") || strings.HasPrefix(line, "< "):
		line = line[2:]
	case line == ">" || line == "<":
		return next()
	case st.curl:
		// curl's trace marks every header; a bare "Note: …" is its own.
		st.open = false
		return false
	}
	switch {
	case strings.HasPrefix(line, "--> END") || strings.HasPrefix(line, "<-- END"):
		return next()
	case strings.HasPrefix(line, "<-- "):
		// OkHttp's response line: "<-- 201 Created URL (35ms)".
		ts := tokens(line[4:])
		if len(ts) > 0 && st.waiting {
			if n, ok := statusToken(ts[0]); ok {
				o.Status, o.Outcome = n, model.OutcomeOK
			}
			for _, t := range ts[1:] {
				if d, ok := durationToken(t); ok {
					o.Duration = d
					break
				}
			}
		}
		st.response, st.waiting = true, false
		p.explainResponse(o, src)
		return next()
	case strings.HasPrefix(line, "HTTP/") && st.waiting:
		// curl's status line: "HTTP/1.1 201 Created".
		if ts := tokens(line); len(ts) > 1 {
			if n, ok := statusToken(ts[1]); ok {
				o.Status, o.Outcome = n, model.OutcomeOK
			}
		}
		st.response, st.waiting = true, false
		p.explainResponse(o, src)
		return next()
	}
	name, value, ok := strings.Cut(line, ":")
	if !ok || !headerToken(name) || logLevel(name) {
		st.open = false
		return false
	}
	p.dumpHeader(o, strings.ToLower(name), strings.TrimSpace(value), st.response, src)
	return next()
}

// current is the request whose dump line src may continue: the line
// right after the dump's last, in the same input and batch.
func (st *reqLine) current(p *Parser, src model.Source) *model.Observation {
	if !st.open || src.File != st.src.File || src.Line != st.last+1 || st.obs >= len(p.out.Obs) {
		return nil
	}
	o := &p.out.Obs[st.obs]
	if o.Source != st.src || o.Format != requestLineName {
		return nil
	}
	return o
}

// headerToken reports whether s is a header's name (RFC 9110's token).
func headerToken(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// logLevel reports whether name is a level a logger writes before a
// colon (Python's "INFO:root:…"), which no header is named.
func logLevel(name string) bool {
	switch strings.ToUpper(name) {
	case "TRACE", "DEBUG", "DBG", "INFO", "INF", "NOTICE", "WARN", "WRN", "WARNING", "ERROR", "ERR", "ERRO",
		"CRIT", "CRITICAL", "ALERT", "EMERG", "FATAL", "FTL", "PANIC", "SEVERE":
		return true
	}
	return false
}

// dumpHeader reads one header of a dump into the request it follows.
func (p *Parser) dumpHeader(o *model.Observation, name, value string, response bool, src model.Source) {
	if value == "" {
		return
	}
	if redact.IsSecretName(name) {
		p.secret("headers." + p.keep(name)) // counted, never kept
		return
	}
	// Read by position, as the request line is: a config's "fields" names
	// no path in a text line, so the header is said in words.
	explain := p.Explain && src.Line <= maxExplained
	by := "format requestline: the " + name + " header in the dump after the request line"
	switch name {
	case "x-request-id", "request-id", "x-correlation-id":
		if o.RequestID == "" {
			o.RequestID = value
			if explain {
				p.use("request_id", "", p.keep(by))
			}
		}
	case "idempotency-key", "x-idempotency-key":
		if !response && o.Key == "" {
			o.Key = model.NormalizeKey(value)
			if explain {
				p.use("key", "", p.keep(by))
			}
		}
	case "idempotent-replayed":
		if response {
			o.Replayed = strings.EqualFold(value, "true")
		}
	case "retry-after":
		if response {
			o.RetryAfter = true
		}
	default:
		for _, h := range grammar.RetryHeaders {
			if name == h && !response {
				markRetry(o, h, value)
			}
		}
	}
}

// retryLine reads a line that says a client retries: urllib3's
// "Retrying (Retry(total=2, …)) after connection broken by …" and its
// DEBUG "Retry: /path" and "Incremented Retry for (url=…)", a retry
// library's "retrying in 1s (2 left)", curl's "Will retry in 1 seconds.
// 2 retries left.". What it says is the mark.
func retryLine(s string) (string, bool) {
	for off := 0; ; {
		j := strings.Index(s[off:], "etry")
		if j < 0 {
			return "", false
		}
		i := off + j - 1
		off += j + 4
		if i < 0 || s[i] != 'R' && s[i] != 'r' {
			continue
		}
		rest := s[i:]
		switch {
		case strings.HasPrefix(rest, "Retrying (") && strings.Contains(rest, ") after "),
			strings.HasPrefix(rest, "Retry: /"), strings.HasPrefix(rest, "Retry: http"),
			strings.HasPrefix(rest, "Retrying in ") || strings.HasPrefix(rest, "retrying in "):
			return retryMarkOf(rest), true
		case strings.HasPrefix(rest, "retry in ") && i >= 5 && strings.EqualFold(s[i-5:i], "will "):
			// curl --retry: "Warning: Problem : HTTP error. Will retry in 1 seconds. 2 retries left."
			return retryMarkOf(s[i-5:]), true
		case strings.HasPrefix(rest, "Retry for (") && i >= 12 && s[i-12:i] == "Incremented ":
			return retryMarkOf(s[i-12:]), true
		}
	}
}

// retryMarkOf is what a retry line says, from its mark on, cut short: a
// mark, not the whole message.
func retryMarkOf(s string) string {
	if len(s) > 120 {
		s = strings.ToValidUTF8(s[:120], "")
	}
	return strings.TrimSpace(s)
}

// retryFor reports whether a retry mark may be route's: urllib3's name
// the path they retry ("Retry: /v1/orders", "(url='/v1/orders')", "…':
// /v1/orders"); a mark that names none may be any route's.
func retryFor(mark, route string) bool {
	var named string
	switch {
	case strings.HasPrefix(mark, "Retry: "):
		named = mark[len("Retry: "):]
	case strings.HasPrefix(mark, "Incremented Retry for (url='"):
		named, _, _ = strings.Cut(mark[len("Incremented Retry for (url='"):], "'")
	case strings.HasPrefix(mark, "Retrying (") && strings.Contains(mark, "': /"):
		named = mark[strings.LastIndex(mark, "': /")+3:]
	default:
		return true
	}
	named = strings.TrimSpace(named)
	if named == "" || len(named) >= 110 {
		return true // cut short with the mark: unknown
	}
	return routePath(named) == route
}

// explainRequestLine says what a request line gave, and why its tier.
func (p *Parser) explainRequestLine(o *model.Observation, tierWhy string, chiID bool) {
	by := "format requestline: "
	if o.Method != "" {
		p.use("method", "", by+"the HTTP request line (RFC 9112)")
	}
	if o.Route != "" {
		p.use("route", "", by+"the request line's target, without its query")
	}
	if o.Status > 0 {
		p.use("status", "", by+"the three-digit status beside the request line")
	}
	if o.Duration > 0 {
		p.use("duration", "", by+"a number with its own unit")
	}
	if !o.Time.IsZero() {
		p.use("time", "", by+"the line's leading timestamp, less the duration")
	}
	switch {
	case o.RequestID != "" && chiID:
		p.use("request_id", "", by+"the id bracketed before the request line (chi's middleware.Logger)")
	case o.RequestID != "":
		p.use("request_id", "", by+"a request_id= pair on the line")
	}
	if o.Key != "" {
		p.use("key", "", by+"an idempotency_key= pair on the line")
	}
	p.use("tier", "", by+tierWhy+"; --input-tier or a config source's tier says otherwise")
}

// explainResponse says where a client request's status came from: the
// response line after it.
func (p *Parser) explainResponse(o *model.Observation, src model.Source) {
	if p.Explain && src.Line <= maxExplained && o.Status > 0 {
		p.use("status", "", "format requestline: the response line after the request line")
	}
}

// failureWords say a call failed, where the error's words name no cause
// errorOutcome knows.
var failureWords = regexp.MustCompile(`(?i)\b(request failed|failed|error)\b`)

// MaxTraceCarry bounds what the reader carries to the next batch of a
// trace a batch ends inside: each byte is carried once at most, so no
// input can make reading quadratic.
const MaxTraceCarry = 64 << 10

// TraceContinues reports whether line is one the lines after it
// complete: a client's request line or header in its trace (curl's "> ",
// OkHttp's "--> "), its response's lines ("< ") and data notes ("} [",
// "{ ["), curl's notes ("* ") but those that end a transfer, a retry
// line that marks the next send. The reader keeps such lines at the end
// of a batch with the next (at most MaxTraceCarry bytes of them), so that
// a trace is read whole whatever the batch size; a transfer's end note
// stops the carry, so that a long trace log is never carried whole.
func TraceContinues(line []byte) bool {
	line = bytes.TrimRight(line, "\r\n")
	if len(line) == 0 {
		return false
	}
	switch line[0] {
	case '>', '<':
		return len(line) == 1 || line[1] == ' '
	case '{', '}':
		return len(line) > 2 && line[1] == ' ' && line[2] == '['
	case '-':
		return bytes.HasPrefix(line, []byte("--> "))
	case '*':
		// curl's notes, but those that end a transfer: a long trace log
		// is carried no further back than its last transfer's end.
		return len(line) > 1 && line[1] == ' ' && !bytes.HasPrefix(line, []byte("* Connection #")) && !bytes.HasPrefix(line, []byte("* Closing connection"))
	}
	if len(line) > 4096 {
		return false
	}
	_, ok := retryLine(string(line))
	return ok
}
