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
	if m[16] != "" {
		var names []string
		if p.src != nil {
			names = p.src.captures
		}
		o.RequestID, o.Key = captured(strings.Split(m[16], "|"), names)
	}
	p.textDone(&o)
}

func msDuration(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }

// captured finds the request id and the key among HAProxy's captured
// request headers. HAProxy logs them by position, unnamed: with the
// config's capture order (names) they are read by name; without it, the
// first value shaped like an id is the request id and the second the key.
// A hostname or a user agent (the usual first captures) never is one.
func captured(values, names []string) (requestID, key string) {
	if len(names) > 0 {
		for i, v := range values {
			if i >= len(names) {
				break
			}
			v = strings.TrimSpace(v)
			switch names[i] {
			case "x-request-id", "x-correlation-id", "request-id", "x-amzn-trace-id":
				requestID = v
			case "idempotency-key", "x-idempotency-key":
				key = trace.NormalizeKey(v)
			}
		}
		return requestID, key
	}
	for _, v := range values {
		v = strings.TrimSpace(v)
		if !idShaped(v) {
			continue
		}
		switch {
		case requestID == "":
			requestID = v
		case key == "":
			key = trace.NormalizeKey(v)
		}
	}
	return requestID, key
}

// idShaped reports whether a captured value looks like a request id or a
// key: 8 to 200 characters of letters, digits and -_:.=+/, with a digit in
// it, no spaces, and not a host name (dotted labels) or a host:port.
func idShaped(v string) bool {
	v = strings.Trim(v, `"`)
	if len(v) < 8 || len(v) > 200 {
		return false
	}
	digits := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= '0' && c <= '9':
			digits = true
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '-', c == '_', c == '=', c == '+', c == ':', c == '.':
		default:
			return false
		}
	}
	if !digits {
		return false
	}
	// A host name or address: dotted labels, perhaps with a port.
	if strings.Contains(v, ".") && !strings.Contains(v, "=") {
		return false
	}
	return true
}
