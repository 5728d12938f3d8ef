package formats

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/idem-cli/idem/formats/grammar"
	"github.com/idem-cli/idem/model"
)

// HAProxy's option httplog line, with or without its syslog header.
var haproxyFormat = &format{
	Name: "haproxy", Kind: kindText, Tier: model.TierProxy,
	Doc: "HAProxy option httplog text lines",
	// The recipe's config is in backquotes: a capture runs exactly that
	// (internal/kit/harness's TestSetupRecipes).
	Setup: "`option httplog`, `unique-id-format %[uuid()]` and `http-request set-header X-Request-Id %[unique-id] unless { req.hdr(X-Request-Id) -m found }` (an id for a request that came without one, passed on to the server), then `http-request capture req.hdr(X-Request-Id) len 64` and `http-request capture req.hdr(Idempotency-Key) len 128` (in that order, or name the order in the config's \"captures\"), and `option abortonclose` so a client that gave up is logged.",
	text: func(p *Parser, s string, src model.Source) bool {
		if !haproxyCould(s) {
			return false
		}
		m := haproxyLine.FindStringSubmatch(s)
		if m == nil {
			return false
		}
		p.haproxy(m, src)
		return true
	},
	// %tr is when the request was received (local time, no zone), Ta the
	// total in milliseconds; the termination state says who ended it.
	Samples: []sample{{
		Origin: "lnav test/logfile_haproxy.0 (a capture of the User-Agent header in the braces)",
		Line: `Feb 25 16:19:49 192.168.4.2 haproxy[7]: 92.193.212.151:59841 [25/Feb/2019:16:19:49.851] prod_http_in~ bk_ktest_kt/nginx_sonst 0/0/0/62/62 200 306 - - ` +
			`---- 3/2/0/0/0 0/0 {Mozilla/5.0 (Macintosh; Intel Mac OS X 10_13_6) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/72.0.3626.109 Safari/537.36} {} ` +
			`"POST /portal/?Script=934&onlinetest=speichereKorrektur&anm=10347 HTTP/1.1"`,
		Want: model.Observation{Tier: model.TierProxy, Format: "haproxy", Method: "POST", Route: "/portal/", Status: 200,
			Outcome: model.OutcomeOK, Client: "92.193.212.151", Time: mustTime("2019-02-25T16:19:49.851Z"), Duration: 62 * time.Millisecond},
	}, {
		Origin: "HAProxy configuration manual, section 8 (SC--: the server refused the connection, after 3 retries)",
		Line: `Feb  6 12:12:56 localhost haproxy[18989]: 10.0.0.1:34552 [15/Oct/2003:15:26:31.462] px-http px-http/srv1 3183/-1/-1/-1/11215 503 0 - - SC-- ` +
			`205/202/202/115/3 0/0 "HEAD / HTTP/1.0"`,
		Want: model.Observation{Tier: model.TierProxy, Format: "haproxy", Method: "HEAD", Route: "/", Status: 503,
			Outcome: model.OutcomeNotDelivered, Client: "10.0.0.1",
			Time: mustTime("2003-10-15T15:26:31.462Z"), Duration: 11215 * time.Millisecond},
	}, {
		Origin: "a blog post on HAProxy in front of IIS (cD--: the client stopped acknowledging after the 200 had started)",
		Known:  "a client abort or timeout once the response had started (cD, CD) drops the status the server sent",
		Line: `May  4 14:18:19 localhost haproxy[16344]: 192.168.101.47:58781 [04/May/2013:14:18:14.757] https_frontend~ web_server/s2 20/0/2/3/5026 200 236 - - ` +
			`cD-- 0/0/0/0/0 0/0 "GET /test.html HTTP/1.1"`,
		Want: model.Observation{Tier: model.TierProxy, Format: "haproxy", Method: "GET", Route: "/test.html", Status: 200,
			Outcome: model.OutcomeClientClosed, Detail: "cD--", Client: "192.168.101.47",
			Time: mustTime("2013-05-04T14:18:14.757Z"), Duration: 5026 * time.Millisecond},
	}, {
		Origin: "a production line behind an RFC 5424 header in a public HAProxy log parser's tests (CD--, status -1: the client left before any answer)",
		Known:  "%tr is local time and the header says +03:00, but a time without a zone is read as UTC",
		Line: `2021-03-10T06:26:36.347+03:00 local2.info 2021-03-10T06:26:36.347017+03:00 mslb01h haproxy 25291 - [haproxy_http_req@13238 ` +
			`conn_time="10/Mar/2021:06:26:36.206" fe_addr="2a02:6b8:0:3400:0:3c9:0:91" fe_port="8080" handshake_ms="0" idle_ms="40" req_after_connect_ms="40" ` +
			`http_version="HTTP/2.0" http_method="POST" req_size="2533" be_src_addr="2a02:6b8:c02:45a:0:577:e299:ec6c" be_src_port="42630" ` +
			`srv_ip="2a02:6b8:c08:7792:10e:f91e:0:43c9" srv_port="17355"] 2a02:6b8:c1b:360d:10b:7acd:0:429a:45228 [10/Mar/2021:06:26:36.246] ` +
			`combinator.vs.market.yandex.net:8080 be1:combinator.vs.market.yandex.net:8080/sas4-6785-266-sas-market-prod--fc2-17353.gencfg-c.yandex.net:17355 ` +
			`0/0/0/-1/100 -1 0 - - CD-- 2006/58/0/0/0 0/0 {|||combinator.vs.market.yandex.net:8080} "POST ` +
			`http://combinator.vs.market.yandex.net:8080/yandex.market.combinator.v0.Combinator/GetOffersDeliveryStats HTTP/2.0"`,
		Want: model.Observation{Tier: model.TierProxy, Format: "haproxy", Method: "POST", Route: "/yandex.market.combinator.v0.Combinator/GetOffersDeliveryStats",
			Outcome: model.OutcomeClientClosed, Detail: "CD--", Client: "2a02:6b8:c1b:360d:10b:7acd:0:429a",
			Time: mustTime("2021-03-10T06:26:36.246+03:00"), Duration: 100 * time.Millisecond},
	}},
}

// haproxyLine matches HAProxy's option httplog format, with or without the
// syslog header.
// haproxyCould reports whether s could be a haproxyLine: the client's
// port, then " [" and the accept date. One scan refuses the lines of
// other formats before the expression, which backtracks through them.
func haproxyCould(s string) bool {
	for i := 0; ; {
		j := strings.IndexByte(s[i:], '[') // rarer than the space before it
		if j < 0 {
			return false
		}
		if j += i; j >= 2 && s[j-1] == ' ' && s[j-2] >= '0' && s[j-2] <= '9' {
			return true
		}
		i = j + 1
	}
}

var haproxyLine = regexp.MustCompile(`(?:^|\s)(\S+):(\d+) \[([^\]]+)\] (\S+) (\S+)/(\S+) (-?\d+)/(-?\d+)/(-?\d+)/(-?\d+)/\+?(-?\d+) (-?\d+) (\d+) \S+ \S+ (\S{4}) \d+/\d+/\d+/\d+/(\+?\d+) \d+/\d+ (?:\{([^}]*)\} )?(?:\{([^}]*)\} )?"([^" ]+)(?: (\S+))?`)

// haproxy maps an httplog line: its termination state says who gave up.
func (p *Parser) haproxy(m []string, src model.Source) {
	var o model.Observation
	o.Source, o.Format, o.Tier = src, "haproxy", model.TierProxy
	o.Client = m[1]
	if ta, err := strconv.Atoi(m[11]); err == nil && ta >= 0 {
		o.Duration = msDuration(ta)
	}
	o.Time, _ = model.ParseTime(m[3]) // %tr: when the request was received
	o.Status, _ = strconv.Atoi(m[12])
	if m[18] != "<BADREQ>" { // a request HAProxy could not read: no method, no route
		o.Method = httpMethod(m[18])
		o.Route = routePath(m[19])
	}
	state := m[14]
	o.Detail = state
	o.Outcome, o.Status = terminationOutcome(state, m[6], o.Status)
	if endedNormally(state) && o.Status > 0 {
		o.UpstreamStatus = o.Status
	}
	if n, _ := strconv.Atoi(strings.TrimPrefix(m[15], "+")); n > 0 {
		o.Detail += " retries " + m[15]
		o.UpstreamTries = haproxyTries(n, state)
	}
	if m[16] != "" {
		var names []string
		if p.src != nil {
			names = p.src.captures
		}
		o.RequestID, o.Key = captured(strings.Split(m[16], "|"), names)
	}
	p.textDone(&o)
}

// endedNormally reports whether HAProxy's termination state says the
// session ended normally ("--"): the status is then the server's answer,
// passed on (what nginx logs as $upstream_status).
func endedNormally(state string) bool { return len(state) >= 2 && state[0] == '-' && state[1] == '-' }

// haproxyTries is the number of attempts a line's %rc (retries, "+N"
// when the last was redispatched to another server) shows: one more than
// its retries. %rc counts connection retries too, attempts that never
// reached a server (a refused or timed-out connect), so that a count
// alone cannot say the server was reached twice, only that the proxy
// tried twice: proxy-retry's warning, a critical only where the server
// logged two effects. Where the last attempt ended in the connection
// phase (SC: refused, sC: connect timeout) the line shows none reaching
// a server, as HAProxy's default retry-on conn-failure does: no tries
// are claimed.
func haproxyTries(retries int, state string) int {
	if len(state) >= 2 && (state[0] == 'S' || state[0] == 's') && state[1] == 'C' {
		return 0
	}
	return retries + 1
}

// terminationOutcome reads HAProxy's termination state (its first two
// letters: who ended the session, and in which phase) with the server's
// name and the status: what happened, and the status the client got
// (none when the client left, -1 read as none).
func terminationOutcome(state, server string, status int) (model.Outcome, int) {
	var out model.Outcome
	switch {
	case len(state) < 2:
		out = proxyOutcome(status)
	case (state[0] == 'C' || state[0] == 'c') && state[1] == 'R':
		// The client left (C) or timed out (c: HAProxy answered 408)
		// before its request was whole: no server ever had it.
		out = model.OutcomeNotDelivered
		if state[0] == 'C' {
			status = 0
		}
	case state[0] == 'C' || state[0] == 'c':
		out, status = model.OutcomeClientClosed, 0
	case state[0] == 's':
		out = model.OutcomeUpstreamTimeout
	case state[0] == 'S' && (state[1] == 'H' || state[1] == 'D'):
		out = model.OutcomeUpstreamReset
	case state[0] == 'S' || strings.Contains(server, "<NOSRV>"):
		out = model.OutcomeNotDelivered
	default:
		out = proxyOutcome(status)
	}
	return out, max(status, 0)
}

func msDuration(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }

// captured finds the request id and the key among HAProxy's captured
// request headers. HAProxy logs them by position, unnamed: with the
// config's capture order (names) they are read by name; without it, the
// first value shaped like a generated id is the request id and the second
// the key. A host name, a host:port or a user agent (the usual first
// captures) never is one.
func captured(values, names []string) (requestID, key string) {
	if len(names) > 0 {
		for i, v := range values {
			if i >= len(names) {
				break
			}
			v = strings.TrimSpace(v)
			// An ALB's X-Amzn-Trace-Id, a trace to the grammar, is the
			// only id such a capture may have: it names one trip.
			switch f, _ := grammar.RequestHeader(names[i]); f {
			case grammar.RequestID, grammar.TraceParent:
				requestID = v
			case grammar.Key:
				key = model.NormalizeKey(v)
			}
		}
		return requestID, key
	}
	for _, v := range values {
		v = strings.TrimSpace(v)
		if !generatedID(v) {
			continue
		}
		switch {
		case requestID == "":
			requestID = v
		case key == "":
			key = model.NormalizeKey(v)
		}
	}
	return requestID, key
}
