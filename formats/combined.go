package formats

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/idem-cli/idem/model"
)

// nginx's and Apache's combined text access log, with the fields
// nginx setups append after it (request time, upstream status, request id,
// key), by name or by shape.
var combinedFormat = &format{
	Name: "combined", Aliases: []string{"clf", "nginx-text"}, Kind: kindText, Tier: model.TierProxy,
	Doc: "nginx/Apache combined text access logs, with appended fields",
	// $request_id, not $http_x_request_id: most clients send no
	// X-Request-Id, and nginx's own id, passed on, is the one the server
	// logs. The recipe's config is in backquotes: a capture runs exactly
	// that (internal/kit/harness's TestSetupRecipes).
	Setup: "`log_format idem '$remote_addr - $remote_user [$time_local] \"$request\" $status $body_bytes_sent \"$http_referer\" \"$http_user_agent\" $request_time \"$upstream_status\" \"$request_id\" \"$http_idempotency_key\"';` and, where it proxies, `proxy_set_header X-Request-Id $request_id;` so the server logs the id nginx logs (its own, made for every request).",
	text:  readCombined,
	// nginx's $time_local is when the log is written (start = it -
	// $request_time); Apache's %t is when the request arrived.
	Samples: []sample{{
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

// The layout's definition: what these expressions match is what a
// combined line is. Lines are read by hand (clfLine, clfAnywhere, clfCut
// below), which gives the same groups for every line in a twentieth of
// the time (BenchmarkCombinedLine); the expressions are the oracle the
// tests hold it to.

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
// holds the request as logged. Read only on lines combinedLine does not
// match, so that a usual line pays nothing for it.
var combinedCut = regexp.MustCompile(`^(?:(\S+) )?(\S+) \S+ (\S+) \[([^\]]+)\] "()((?:[^"\\]|\\.)*)" (\d{3}|-) (\d+|-)(?: "((?:[^"\\]|\\.)*)" "((?:[^"\\]|\\.)*)")?(.*)$`)

// clfCould reports whether s could be a combined line (clfBody or
// combinedCut): each has the time's closing bracket before the quoted
// request. One scan refuses the lines of other formats before the
// readers below, which would try the fields from every word.
func (p *Parser) clfCould(s string) bool { return !p.lacks(s, "] \"") }

// The combined layout read by hand: clfLine, clfAnywhere and clfCut give
// for every line what combinedLine, combinedAnywhere and combinedCut give
// (the same groups, the expressions' leftmost-first choices, or no match;
// FuzzCombinedHand holds them to it), without the expressions' cost.
// Each field but two has one way to be read: the vhost, taken where the
// rest of the line then reads, and the request's path, which is \S+ and
// may hold quotes: it is tried whole, followed by the protocol up to the
// next quote, then ending before a quote that ends it.

// clfMatch holds the groups of the combined expressions: the whole match,
// then vhost, client, user, time, method, path, status, bytes, referer,
// user agent and extras.
type clfMatch [12]string

// clfSpace reports whether c is a space to the expressions (\s: space,
// tab, line feed, form feed, carriage return).
func clfSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// clfToken returns the end of the run of non-spaces (\S+) at i, i where
// there is none.
func clfToken(s string, i int) int {
	for i < len(s) && !clfSpace(s[i]) {
		i++
	}
	return i
}

// clfField reads `\S+ ` at i and returns the end of the field.
func clfField(s string, i int) (end int, ok bool) {
	end = clfToken(s, i)
	return end, end > i && end < len(s) && s[end] == ' '
}

// clfQuoted returns the index of the quote that ends a quoted value whose
// text ((?:[^"\\]|\\.)*) begins at i, or -1: a backslash escapes any byte
// but a line feed.
func clfQuoted(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case '"':
			return i
		case '\\':
			if i+1 >= len(s) || s[i+1] == '\n' {
				return -1
			}
			i += 2
		default:
			i++
		}
	}
	return -1
}

// clfScan is one line being read, as one of the expressions reads it
// (cut: combinedCut). It keeps the last line feed in the line (what
// follows the fields, (.*)$, holds none) and the time's closing bracket
// last found, so that clfAnywhere's tries from each word do not read the
// same bytes again: the first ']' at or after from is at close (-1:
// there is none), and what follows refused (-1: none) was found not to
// read.
type clfScan struct {
	s                    string
	cut                  bool
	nl                   int
	from, close, refused int
}

func newCLFScan(s string, cut bool) clfScan {
	return clfScan{s: s, cut: cut, nl: strings.LastIndexByte(s, '\n'), from: len(s) + 1, close: -1, refused: -1}
}

// body reads clfBody (or combinedCut's body) with the client at j, into
// m[2:].
func (c *clfScan) body(j int, m *clfMatch) bool {
	s := c.s
	ce, ok := clfField(s, j)
	if !ok {
		return false
	}
	ie, ok := clfField(s, ce+1)
	if !ok {
		return false
	}
	ue, ok := clfField(s, ie+1)
	if !ok || ue+1 >= len(s) || s[ue+1] != '[' {
		return false
	}
	t0 := ue + 2
	// The time runs to the first closing bracket after its opening one.
	if t0 < c.from || c.close >= 0 && t0 > c.close {
		c.from, c.close = t0, -1
		if i := strings.IndexByte(s[t0:], ']'); i >= 0 {
			c.close = t0 + i
		}
	}
	tc := c.close
	if tc <= t0 || tc == c.refused {
		return false // no bracket, an empty time, or what follows does not read
	}
	if tc+2 >= len(s) || s[tc+1] != ' ' || s[tc+2] != '"' || !c.request(tc+3, m) {
		c.refused = tc
		return false
	}
	m[2], m[3], m[4] = s[j:ce], s[ie+1:ue], s[t0:tc]
	return true
}

// request reads the quoted request begun at r0 and what follows it into
// m[5:]: "(\S+) (\S+)(?: [^"]*)?", or where cut "()((?:[^"\\]|\\.)*)".
func (c *clfScan) request(r0 int, m *clfMatch) bool {
	s := c.s
	if c.cut {
		q := clfQuoted(s, r0)
		if q < 0 || !c.tail(q+1, m) {
			return false
		}
		m[5], m[6] = "", s[r0:q]
		return true
	}
	me, ok := clfField(s, r0)
	if !ok {
		return false
	}
	p0 := me + 1
	pe := clfToken(s, p0)
	if pe == p0 {
		return false
	}
	// The whole path, then a space and the protocol up to the next quote.
	if pe < len(s) && s[pe] == ' ' {
		if q := strings.IndexByte(s[pe+1:], '"'); q >= 0 && c.tail(pe+1+q+1, m) {
			m[5], m[6] = s[r0:me], s[p0:pe]
			return true
		}
	}
	// A shorter path ends before a quote, and only the path's last byte
	// can be a quote that the status's space follows.
	if pe-1 > p0 && s[pe-1] == '"' && c.tail(pe, m) {
		m[5], m[6] = s[r0:me], s[p0:pe-1]
		return true
	}
	return false
}

// tail reads what follows the request's closing quote, at k, into m[7:]:
// ` (\d{3}) (\d+|-)(?: "referer" "user agent")?(.*)$`, the status "-" too
// where cut.
func (c *clfScan) tail(k int, m *clfMatch) bool {
	s := c.s
	if k >= len(s) || s[k] != ' ' {
		return false
	}
	st, se := k+1, k+4
	switch {
	case se <= len(s) && isDigit(s[st]) && isDigit(s[st+1]) && isDigit(s[st+2]):
	case c.cut && st < len(s) && s[st] == '-':
		se = st + 1
	default:
		return false
	}
	if se >= len(s) || s[se] != ' ' {
		return false
	}
	b0 := se + 1
	be := b0
	for be < len(s) && isDigit(s[be]) {
		be++
	}
	if be == b0 {
		if b0 >= len(s) || s[b0] != '-' {
			return false
		}
		be++
	}
	// The referer and user agent where both are quoted; a line feed after
	// them refuses the line either way.
	x, ref, ua := be, "", ""
	if be+1 < len(s) && s[be] == ' ' && s[be+1] == '"' {
		if re := clfQuoted(s, be+2); re >= 0 && re+2 < len(s) && s[re+1] == ' ' && s[re+2] == '"' {
			if ae := clfQuoted(s, re+3); ae >= 0 {
				x, ref, ua = ae+1, s[be+2:re], s[re+3:ae]
			}
		}
	}
	if c.nl >= x {
		return false
	}
	m[7], m[8], m[9], m[10], m[11] = s[st:se], s[b0:be], ref, ua, s[x:]
	return true
}

func isDigit(c byte) bool { return c-'0' < 10 }

// clfLine reads s as combinedLine: with the vhost first, then without.
func clfLine(s string, m *clfMatch) bool { return clfAnchored(s, false, m) }

// clfCut reads s as combinedCut.
func clfCut(s string, m *clfMatch) bool { return clfAnchored(s, true, m) }

func clfAnchored(s string, cut bool, m *clfMatch) bool {
	c := newCLFScan(s, cut)
	if ve, ok := clfField(s, 0); ok && c.body(ve+1, m) {
		m[0], m[1] = s, s[:ve]
		return true
	}
	if c.body(0, m) {
		m[0], m[1] = s, ""
		return true
	}
	return false
}

// clfAnywhere reads s as combinedAnywhere: the client at the start or
// after the first space from which the rest reads.
func clfAnywhere(s string, m *clfMatch) bool {
	c := newCLFScan(s, false)
	for j := 0; j < len(s); j++ {
		if j > 0 && !clfSpace(s[j-1]) || clfSpace(s[j]) {
			continue
		}
		if c.body(j, m) {
			m[0], m[1] = s[max(j-1, 0):], ""
			return true
		}
	}
	return false
}

// readCombined reads a combined line, at the start of the line or, for a
// line that is not kubectl's prefix, behind another prefix.
func readCombined(p *Parser, s string, src model.Source) bool {
	if !p.clfCould(s) {
		return false
	}
	var m clfMatch
	if !clfLine(s, &m) && (strings.HasPrefix(s, "[") || !clfAnywhere(s, &m) && !clfCut(s, &m)) {
		return false
	}
	p.combined(m[:], src)
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
	if t, ok := clfTime(m[3]); ok {
		// $time_local is when the log was written; in UTC, as every
		// report writes it, so that the correlator keeps it compact.
		o.Time = t.Add(-o.Duration).UTC()
		o.EndOrStart = o.Duration > 0 // Apache's %t is the start: the correlator learns which
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

// clfTime reads the time of a combined line as model.ParseTime does,
// the usual form by hand.
func clfTime(s string) (time.Time, bool) {
	if t, ok := timeLocal(s); ok {
		return t, true
	}
	return model.ParseTime(s)
}

// timeLocal reads nginx's $time_local and Apache's %t written as they
// write them, "10/Oct/2000:13:55:36 -0700" (a valid date, the month's
// name as written, no fraction), giving what model.ParseTime gives for
// it: the same instant in the same location, the local zone where its
// offset at that instant is the one written, else a zone fixed at that
// offset (FuzzCombinedTime). Any other form is left to ParseTime, which
// tries the other forms it knows first.
func timeLocal(s string) (time.Time, bool) {
	if len(s) != 26 || s[2] != '/' || s[6] != '/' || s[11] != ':' || s[14] != ':' || s[17] != ':' || s[20] != ' ' || s[21] != '+' && s[21] != '-' {
		return time.Time{}, false
	}
	day, c1, c2, hour, minute, sec, oh, om := twoDigits(s, 0), twoDigits(s, 7), twoDigits(s, 9), twoDigits(s, 12), twoDigits(s, 15), twoDigits(s, 18), twoDigits(s, 22), twoDigits(s, 24)
	mi := strings.Index("JanFebMarAprMayJunJulAugSepOctNovDec", s[3:6]) // a name is upper then lower case: found only where one starts
	if day < 0 || c1 < 0 || c2 < 0 || hour < 0 || minute < 0 || sec < 0 || oh < 0 || om < 0 ||
		hour > 23 || minute > 59 || sec > 59 || oh > 23 || om > 59 || mi < 0 || mi%3 != 0 {
		return time.Time{}, false
	}
	month := time.Month(mi/3 + 1)
	year := c1*100 + c2
	if day < 1 || day > daysIn(month, year) {
		return time.Time{}, false
	}
	off := (oh*60 + om) * 60
	if s[21] == '-' {
		off = -off
	}
	t := time.Date(year, month, day, hour, minute, sec, 0, time.UTC).Add(-time.Duration(off) * time.Second)
	if _, o := t.In(time.Local).Zone(); o == off {
		return t.In(time.Local), true
	}
	return t.In(time.FixedZone("", off)), true
}

// twoDigits reads the two decimal digits at s[i:], -1 where they are not.
func twoDigits(s string, i int) int {
	a, b := s[i]-'0', s[i+1]-'0'
	if a > 9 || b > 9 {
		return -1
	}
	return int(a)*10 + int(b)
}

// daysIn is the number of days in month m of year y.
func daysIn(m time.Month, y int) int {
	if m == time.February {
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	}
	return 30 + int((m+m/8)&1)
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

// extraToken says what an appended field is; nextExtra reads one by hand
// as the expression does (FuzzCombinedHand), readExtras at most sixteen.
var extraToken = regexp.MustCompile(`(?:(\w+)=)?("(?:[^"\\]|\\.)*"|\S+)`)

// nextExtra reads the first match of extraToken at or after i: its name
// (empty where it has none), its value, where it starts and ends; ok is
// false where none is left.
func nextExtra(s string, i int) (name, v string, start, end int, ok bool) {
	for i < len(s) && clfSpace(s[i]) {
		i++
	}
	if i >= len(s) {
		return "", "", i, i, false
	}
	w := i
	for w < len(s) && isWordChar(s[w]) {
		w++
	}
	if w > i && w < len(s) && s[w] == '=' {
		if e := extraValue(s, w+1); e > w+1 {
			return s[i:w], s[w+1 : e], i, e, true
		}
	}
	e := extraValue(s, i)
	return "", s[i:e], i, e, true
}

// extraValue returns the end of a quoted value or of a run of non-spaces
// at i: i where neither begins there.
func extraValue(s string, i int) int {
	if i < len(s) && s[i] == '"' {
		if q := clfQuoted(s, i+1); q >= 0 {
			return q + 1
		}
	}
	return clfToken(s, i)
}

// isWordChar reports whether c is a word character to the expressions (\w).
func isWordChar(c byte) bool {
	return c-'0' < 10 || (c|0x20)-'a' < 26 || c == '_'
}

func readExtras(s string) extras {
	var e extras
	var room [16]string
	quoted := room[:0]
	for i, n := 0, 0; n < 16; n++ {
		name, v, _, end, ok := nextExtra(s, i)
		if !ok {
			break
		}
		i = end
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
