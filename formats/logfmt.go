package formats

import (
	"strings"
	"unicode/utf8"

	"github.com/idem-cli/idem/model"
)

// logfmt: lines made wholly of key=value pairs (Heroku's router and
// platform logs, Go kit's log.NewLogfmtLogger, logrus' TextFormatter,
// slog's TextHandler, many platforms' request logs). Their names are the
// same names JSON loggers use, so the line is laid out as the JSON object
// it says and read through the shared vocabulary: `method=GET path=/
// status=503 request_id=…` is a request, by meaning, like its JSON twin.
var logfmtFormat = &format{
	Name: "logfmt", Aliases: []string{"kv", "key-value"}, Kind: kindText, Tier: model.TierServer,
	Doc:        "key=value lines (logfmt: Heroku's router, Go kit, logrus' and slog's text handlers), and a message's key=value pairs after a logging library's default prefix (Python's logging, logback, Spring Boot, Ruby's Logger, Go's log), read by the shared vocabulary",
	vocabulary: true,
	extract:    extractApp,
	Samples: []sample{{
		Origin: "slog's TextHandler (log/slog documentation), with the request's attributes a handler logs",
		Line:   `time=2026-11-30T09:14:04.501Z level=INFO msg="order created" method=POST path=/v1/orders status=201 request_id=c9b2decb-ebc7-4a9b-99d6-69712772ef41 idempotency_key=k-1 duration_ms=2383`,
		Want: model.Observation{Tier: model.TierServer, Format: "logfmt", Method: "POST", Route: "/v1/orders", Status: 201,
			Outcome: model.OutcomeOK, RequestID: "c9b2decb-ebc7-4a9b-99d6-69712772ef41", Key: "k-1", Message: "order created",
			Time: mustTime("2026-11-30T09:14:02.118Z"), Duration: 2_383_000_000}, // written at the end: the start is 2.383 s before
	}, {
		Origin: "Heroku Dev Center, HTTP routing: a router log line (H12, request timeout), as `heroku logs` prints it",
		Line: `2026-11-30T09:14:32.000000+00:00 heroku[router]: at=error code=H12 desc="Request timeout" method=POST path="/v1/orders" ` +
			`host=shop.example.com request_id=8601b555-6a76-4ec1-8f3a-2bbf8ec6e3b5 fwd="198.51.100.23" dyno=web.1 connect=1ms service=30000ms status=503 bytes=0 protocol=https`,
		Want: model.Observation{Tier: model.TierServer, Format: "logfmt", Method: "POST", Route: "/v1/orders", Status: 503,
			RequestID: "8601b555-6a76-4ec1-8f3a-2bbf8ec6e3b5", Time: mustTime("2026-11-30T09:14:32Z"), Duration: 30_000_000_000},
	}, {
		Origin: "Ruby 3.1's Logger at its default format (fixtures/real/default-prefixes): the message's pairs after its prefix",
		Line:   `I, [2026-12-08T00:55:24.414483 #17269]  INFO -- : booking created bookingId=boo_ruby_1 orderId=ord_ruby_1 idempotency_key=k-ruby-1`,
		Want: model.Observation{Tier: model.TierServer, Format: "logfmt", Key: "k-ruby-1", ResultID: "boo_ruby_1", Effect: true,
			Message: "booking created", Process: "/17269", Time: mustTime("2026-12-08T00:55:24.414483Z")},
	}},
}

// readLogfmt reads its lines as this format: set here, since it names
// the format it reads them as.
func init() { logfmtFormat.text = readLogfmt }

// minLogfmtPairs is how many pairs make a line logfmt rather than a
// sentence that happens to hold one "a=b".
const minLogfmtPairs = 3

// readLogfmt reads a logfmt line: an optional prefix (a leading time, and
// a "source[process]:" tag as platforms print them), then only pairs. A
// line with any other word is not logfmt.
func readLogfmt(p *Parser, line string, src model.Source) bool {
	if strings.IndexByte(line, '=') < 0 {
		return false
	}
	if rest, pf, ok := peelPrefix(line); ok {
		// A logging library's default prefix (prefix.go), then a
		// message whose words end where its pairs begin.
		msg, pairs, ok := splitMessage(rest)
		if !ok {
			return false
		}
		return layLogfmt(p, pairs, pf, msg, 1, src)
	}
	rest := line
	var pf prefixed
	if tok, after, ok := strings.Cut(rest, " "); ok && !strings.Contains(tok, "=") {
		if _, ok := model.ParseTime(tok); ok {
			pf.time, rest = tok, after
		}
	}
	// A platform's "source[process]:" tag (heroku[router]:, app[web.1]:),
	// after the time or alone where a wrapper took the time off.
	if tag, after, ok := strings.Cut(rest, " "); ok && strings.HasSuffix(tag, ":") && !strings.Contains(tag, "=") {
		rest = after
	}
	return layLogfmt(p, rest, pf, "", minLogfmtPairs, src)
}

// layLogfmt lays out rest, which must be only pairs (at least min), as
// the JSON object it says, with what a prefix said where the pairs do not
// say it (its time, level, logger and pid, and the message before the
// pairs), and reads it.
func layLogfmt(p *Parser, rest string, pf prefixed, msg string, min int, src model.Source) bool {
	// Each line is laid out after the last: the observations read from
	// it keep their strings in it, so it is never written over; a full
	// buffer is left to them and a new one begun.
	room := 2*(len(rest)+len(msg)) + 256
	if cap(p.logfmtBuf)-len(p.logfmtBuf) < room {
		p.logfmtBuf = make([]byte, 0, max(32<<10, room))
	}
	b := p.logfmtBuf[len(p.logfmtBuf):]
	free := cap(b)
	b = append(b, '{')
	pairs, hasTime, hasDuration, hasMsg, hasLevel := 0, false, false, false, false
	var serviceTime string
	for {
		rest = strings.TrimLeft(rest, " \t")
		if rest == "" {
			break
		}
		key, value, after, ok := logfmtPair(rest)
		if !ok {
			return false
		}
		rest = after
		switch key {
		case "time", "ts", "timestamp", "t":
			hasTime = true
		case "duration", "latency", "elapsed", "took", "duration_ms", "latency_ms", "elapsed_ms", "response_time":
			hasDuration = true
		case "msg", "message":
			hasMsg = true
		case "level", "severity":
			hasLevel = true
		case "service":
			// Heroku's router: connect= then service=, the dyno's time
			// answering, written with its unit.
			serviceTime = value
		}
		if pairs > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, key)
		b = append(b, ':')
		b = appendLogfmtValue(b, value)
		pairs++
	}
	if pairs < min {
		return false
	}
	for _, f := range [...]struct {
		name, value string
		has         bool
	}{{"time", pf.time, hasTime}, {"msg", msg, hasMsg}, {"level", pf.level, hasLevel}, {"logger", pf.logger, false}, {"pid", pf.pid, false}} {
		if f.value != "" && !f.has {
			b = append(b, ',')
			b = appendJSONString(b, f.name)
			b = append(b, ':')
			b = appendJSONString(b, f.value)
		}
	}
	if serviceTime != "" && !hasDuration && logfmtUnit(serviceTime) {
		b = append(b, `,"duration":`...)
		b = appendJSONString(b, serviceTime)
	}
	b = append(b, '}')
	if !p.rec.scanObjectLike(b, p.last) {
		return false
	}
	if cap(b) == free {
		// Laid out within the buffer: the next line goes after it.
		p.logfmtBuf = p.logfmtBuf[:len(p.logfmtBuf)+len(b)]
	}
	p.as = logfmtFormat
	p.parseRecord(src)
	return true
}

// logfmtPair reads key=value at the start of s: a key of letters, digits
// and _ . - / @ (and not starting with a digit), then '=', then a value:
// quoted (with \" and \\ escapes), or up to the next space.
func logfmtPair(s string) (key, value, rest string, ok bool) {
	i := 0
	for i < len(s) {
		c := s[i]
		if c == '=' {
			break
		}
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '.' || c == '-' || c == '/' || c == '@' || (i > 0 && c >= '0' && c <= '9')) {
			return "", "", "", false
		}
		i++
	}
	if i == 0 || i >= len(s) {
		return "", "", "", false
	}
	key, s = s[:i], s[i+1:]
	if strings.HasPrefix(s, `"`) {
		var v strings.Builder
		for j := 1; j < len(s); j++ {
			switch c := s[j]; c {
			case '\\':
				if j+1 < len(s) {
					j++
					switch s[j] {
					case 'n':
						v.WriteByte('\n')
					case 't':
						v.WriteByte('\t')
					default:
						v.WriteByte(s[j])
					}
				}
			case '"':
				if j+1 < len(s) && s[j+1] != ' ' && s[j+1] != '\t' {
					return "", "", "", false
				}
				return key, v.String(), s[j+1:], true
			default:
				v.WriteByte(c)
			}
		}
		return "", "", "", false // an unclosed quote
	}
	end := strings.IndexAny(s, " \t")
	if end < 0 {
		end = len(s)
	}
	value = s[:end]
	if strings.ContainsRune(value, '"') {
		return "", "", "", false
	}
	return key, value, s[end:], true
}

// appendLogfmtValue writes a value as JSON: a number or a boolean as
// itself (a status read as JSON's 201), anything else as a string.
func appendLogfmtValue(b []byte, v string) []byte {
	switch {
	case v == "true" || v == "false":
		return append(b, v...)
	case jsonNumber(v):
		return append(b, v...)
	}
	return appendJSONString(b, v)
}

// appendJSONString writes s as a JSON string: quotes, backslashes and
// control characters escaped, invalid UTF-8 as U+FFFD (as range reads it).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for _, r := range s { // an invalid byte ranges as U+FFFD
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xf])
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}

// jsonNumber reports whether v is a number JSON writes as it is: an
// optional minus, digits without a leading zero, an optional fraction.
func jsonNumber(v string) bool {
	v = strings.TrimPrefix(v, "-")
	whole, frac, dot := strings.Cut(v, ".")
	if whole == "" || len(whole) > 1 && whole[0] == '0' || dot && frac == "" {
		return false
	}
	for _, part := range []string{whole, frac} {
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return false
			}
		}
	}
	return true
}

// logfmtUnit reports whether a duration is written with its unit (30000ms,
// 1.5s), as Heroku's router writes service=.
func logfmtUnit(v string) bool {
	_, ok := model.ParseDuration(v, 0)
	return ok && strings.TrimLeft(v, "0123456789.") != ""
}
