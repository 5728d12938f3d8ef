package formats

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/idem-cli/idem/trace"
)

// Text access logs: nginx's and Apache's combined format (and the variants
// that append request time, upstream status, the request id and the key),
// HAProxy's option httplog line, and custom formats from named-group
// regular expressions in the config. kubectl's --prefix and --timestamps
// prefixes are removed first.

// combined matches the Common/Combined Log Format; what follows the user
// agent is read by extras.
var combined = regexp.MustCompile(`^(\S+) \S+ (\S+) \[([^\]]+)\] "(\S+) (\S+)(?: [^"]*)?" (\d{3}) (\d+|-)(?: "((?:[^"\\]|\\.)*)" "((?:[^"\\]|\\.)*)")?(.*)$`)

// haproxyLine matches HAProxy's option httplog format, with or without the
// syslog header.
var haproxyLine = regexp.MustCompile(`(?:^|\s)(\S+):(\d+) \[([^\]]+)\] (\S+) (\S+)/(\S+) (-?\d+)/(-?\d+)/(-?\d+)/(-?\d+)/\+?(-?\d+) (-?\d+) (\d+) \S+ \S+ (\S{4}) \d+/\d+/\d+/\d+/\+?(\d+) \d+/\d+ (?:\{([^}]*)\} )?(?:\{([^}]*)\} )?"(\S+) (\S+)`)

// kubectlPrefix matches `kubectl logs --prefix` ("[pod/name/container] ")
// and `--timestamps` ("2026-11-30T10:00:00.123456789Z ") prefixes.
var kubectlPrefix = regexp.MustCompile(`^(?:\[(pod/[^\] ]+)\] )?(?:(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)) )?`)

// stripPrefix removes kubectl's prefixes and returns the labels they give.
func stripPrefix(line []byte) ([]byte, map[string]string) {
	if len(line) == 0 || (line[0] != '[' && (line[0] < '0' || line[0] > '9')) {
		return line, nil
	}
	m := kubectlPrefix.FindSubmatchIndex(line)
	if m == nil || m[1] == 0 {
		return line, nil
	}
	var labels map[string]string
	if m[2] >= 0 {
		parts := strings.Split(string(line[m[2]:m[3]]), "/")
		labels = map[string]string{"pod": parts[1]}
		if len(parts) > 2 {
			labels["container"] = parts[len(parts)-1]
		}
	}
	return line[m[1]:], labels
}

// parseText reads a text line with the built-in and configured patterns.
// It reports whether one matched.
func (p *Parser) parseText(line []byte, src trace.Source) bool {
	s := bytesToString(line)
	p.raw = s
	if p.cfg != nil {
		for _, pat := range p.cfg.patterns {
			if m := pat.re.FindStringSubmatch(s); m != nil {
				var o trace.Observation
				o.Source, o.Format, o.Tier = src, pat.name, pat.tier
				for i, name := range pat.re.SubexpNames() {
					if set, ok := mappable[name]; ok && m[i] != "" && m[i] != "-" {
						set(&o, m[i])
					}
				}
				if o.Outcome == trace.OutcomeUnknown && o.Status > 0 {
					o.Outcome = proxyOutcome(o.Status)
				}
				p.textDone(&o)
				return true
			}
		}
	}
	if m := combined.FindStringSubmatch(s); m != nil {
		p.combined(m, src)
		return true
	}
	if m := haproxyLine.FindStringSubmatch(s); m != nil {
		p.haproxy(m, src)
		return true
	}
	return false
}

func (p *Parser) textDone(o *trace.Observation) {
	p.labelTier(o, false)
	p.emit(o)
}

// combined maps a combined-format line and its appended fields.
func (p *Parser) combined(m []string, src trace.Source) {
	var o trace.Observation
	o.Source, o.Format, o.Tier = src, "combined", trace.TierProxy
	o.Client = m[1]
	o.Method = strings.ToUpper(m[4])
	o.Route = routePath(m[5])
	o.Status, _ = strconv.Atoi(m[6])
	ex := readExtras(m[10])
	o.Duration, _ = trace.ParseDuration(ex.requestTime, trace.Seconds)
	if t, ok := trace.ParseTime(m[3]); ok {
		o.Time = t.Add(-o.Duration) // $time_local is when the log was written
	}
	o.UpstreamStatus, _ = intValue(ex.upstream)
	o.RequestID, o.Key = ex.requestID, trace.NormalizeKey(ex.key)
	o.Outcome = proxyOutcome(o.Status)
	if o.Status == 499 {
		o.Detail, o.Status = "499 client closed request", 0
	}
	p.textDone(&o)
}

// extras are the fields appended after the user agent. They are read by
// name where named (rt=0.5 us=201 rid="…" key="…", as ingress setups
// write them), else by shape: the first decimal is the request time, a
// status list is the upstream status, and the quoted values are the
// request id, then the key (log_format … "$http_x_request_id"
// "$http_idempotency_key").
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
			case e.requestID == "" && len(v) == 32 && isHex(v):
				e.requestID = v // ingress-nginx's $req_id
			}
		}
	}
	for i, v := range quoted {
		switch {
		case i == 0 && e.requestID == "":
			e.requestID = v
		case i == 1 && e.key == "":
			e.key = v
		}
	}
	return e
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// isStatusList matches "201" or "504, 201".
func isStatusList(s string) bool {
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if len(part) != 3 || part[0] < '1' || part[0] > '5' || !isNumber(part) {
			return false
		}
	}
	return true
}

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

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'f') {
			return false
		}
	}
	return true
}
