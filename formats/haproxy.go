package formats

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/idem-cli/idem/trace"
)

// HAProxy's option httplog line, with or without its syslog header.
var haproxyFormat = &Format{
	Name: "haproxy", Kind: KindText, Tier: trace.TierProxy,
	Doc: "HAProxy option httplog text lines",
	text: func(p *Parser, s string, src trace.Source) bool {
		m := haproxyLine.FindStringSubmatch(s)
		if m == nil {
			return false
		}
		p.haproxy(m, src)
		return true
	},
	// %tr is when the request was received (local time, no zone), Ta the
	// total in milliseconds; the termination state says who ended it.
	Samples: []Sample{{
		Origin: "lnav test/logfile_haproxy.0 (a capture of the User-Agent header in the braces)",
		Line: `Feb 25 16:19:49 192.168.4.2 haproxy[7]: 92.193.212.151:59841 [25/Feb/2019:16:19:49.851] prod_http_in~ bk_ktest_kt/nginx_sonst 0/0/0/62/62 200 306 - - ` +
			`---- 3/2/0/0/0 0/0 {Mozilla/5.0 (Macintosh; Intel Mac OS X 10_13_6) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/72.0.3626.109 Safari/537.36} {} ` +
			`"POST /portal/?Script=934&onlinetest=speichereKorrektur&anm=10347 HTTP/1.1"`,
		Want: trace.Observation{Tier: trace.TierProxy, Format: "haproxy", Method: "POST", Route: "/portal/", Status: 200,
			Outcome: trace.OutcomeOK, Client: "92.193.212.151", Time: mustTime("2019-02-25T16:19:49.851Z"), Duration: 62 * time.Millisecond},
	}, {
		Origin: "HAProxy configuration manual, section 8 (SC--: the server refused the connection, after 3 retries)",
		Line: `Feb  6 12:12:56 localhost haproxy[18989]: 10.0.0.1:34552 [15/Oct/2003:15:26:31.462] px-http px-http/srv1 3183/-1/-1/-1/11215 503 0 - - SC-- ` +
			`205/202/202/115/3 0/0 "HEAD / HTTP/1.0"`,
		Want: trace.Observation{Tier: trace.TierProxy, Format: "haproxy", Method: "HEAD", Route: "/", Status: 503,
			Outcome: trace.OutcomeNotDelivered, Client: "10.0.0.1",
			Time: mustTime("2003-10-15T15:26:31.462Z"), Duration: 11215 * time.Millisecond},
	}},
}

// haproxyLine matches HAProxy's option httplog format, with or without the
// syslog header.
var haproxyLine = regexp.MustCompile(`(?:^|\s)(\S+):(\d+) \[([^\]]+)\] (\S+) (\S+)/(\S+) (-?\d+)/(-?\d+)/(-?\d+)/(-?\d+)/\+?(-?\d+) (-?\d+) (\d+) \S+ \S+ (\S{4}) \d+/\d+/\d+/\d+/\+?(\d+) \d+/\d+ (?:\{([^}]*)\} )?(?:\{([^}]*)\} )?"(\S+) (\S+)`)

// haproxy maps an httplog line: its termination state says who gave up.
func (p *Parser) haproxy(m []string, src trace.Source) {
	var o trace.Observation
	o.Source, o.Format, o.Tier = src, "haproxy", trace.TierProxy
	o.Client = m[1]
	if ta, err := strconv.Atoi(m[11]); err == nil && ta >= 0 {
		o.Duration = msDuration(ta)
	}
	o.Time, _ = trace.ParseTime(m[3]) // %tr: when the request was received
	o.Status, _ = strconv.Atoi(m[12])
	o.Method = strings.ToUpper(m[18])
	o.Route = routePath(m[19])
	state := m[14]
	o.Detail = state
	switch {
	case state[0] == 'C' || state[0] == 'c':
		o.Outcome, o.Status = trace.OutcomeClientClosed, 0
	case state[0] == 's':
		o.Outcome = trace.OutcomeUpstreamTimeout
	case state[0] == 'S' && (state[1] == 'H' || state[1] == 'D'):
		o.Outcome = trace.OutcomeUpstreamReset
	case state[0] == 'S' || strings.Contains(m[6], "<NOSRV>"):
		o.Outcome = trace.OutcomeNotDelivered
	default:
		o.Outcome = proxyOutcome(o.Status)
	}
	if o.Status < 0 {
		o.Status = 0
	}
	if n, _ := strconv.Atoi(m[15]); n > 0 {
		o.Detail += " retries " + m[15]
	}
	// Captured request headers, in the documented order:
	// capture request header X-Request-Id, then Idempotency-Key.
	if hs := strings.Split(m[16], "|"); m[16] != "" {
		o.RequestID = strings.TrimSpace(hs[0])
		if len(hs) > 1 {
			o.Key = trace.NormalizeKey(hs[1])
		}
	}
	p.textDone(&o)
}

func msDuration(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }
