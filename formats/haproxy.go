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
