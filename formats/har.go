package formats

import (
	"encoding/base64"
	"strings"

	"github.com/idem-cli/idem/trace"
	"github.com/tidwall/gjson"
)

// HAR 1.2 as browsers and proxies export it: a document whose entries are
// streamed one at a time by the reader, or a whole document on one line,
// or entries on their own.
var harFormat = &Format{
	Name: "har", Kind: KindJSON, Tier: trace.TierClient,
	Doc:   "browser HAR 1.2 (Chrome, Firefox): one entry per delivery",
	match: func(r *record) bool { return r.has("log") && len(r.keys) <= 2 || isHAREntry(r) },
	expand: func(p *Parser, r *record, src trace.Source) bool {
		if !(r.has("log") && len(r.keys) <= 2) {
			return false // an entry: extracted
		}
		expandHAR(p, r, src)
		return true
	},
	extract: extractHAREntry,
}

// isHAREntry recognises one HAR entry (streamed out of a HAR document).
func isHAREntry(r *record) bool {
	return r.has("request") && r.has("response") && r.hasAny("startedDateTime", "timings")
}

func extractHAREntry(p *Parser, r *record, o *trace.Observation) bool {
	o.Time, _ = trace.ParseTime(r.str("startedDateTime"))
	o.Duration, _ = trace.ParseDuration(r.str("time"), trace.Milliseconds)
	req := r.get("request")
	o.Method = strings.ToUpper(present(req.Get("method")))
	o.Route = routePath(present(req.Get("url")))
	hs := req.Get("headers")
	o.RequestID = header(hs, "X-Request-Id")
	o.Key = trace.NormalizeKey(header(hs, "Idempotency-Key"))
	if body := req.Get("postData.text"); body.Exists() && body.Str != "" {
		o.Fingerprint = trace.Fingerprint([]byte(body.Str))
	}
	res := r.get("response")
	o.Status, _ = intValue(present(res.Get("status")))
	rh := res.Get("headers")
	if o.RequestID == "" {
		o.RequestID = header(rh, "X-Request-Id")
	}
	o.Replayed = strings.EqualFold(header(rh, "Idempotent-Replayed"), "true")
	o.RetryAfter = header(rh, "Retry-After") != ""
	// Chrome writes _error on the response or the entry; Playwright
	// _failureText on the response, with status -1; mitmproxy its own
	// words in _error.
	errText := present(res.Get("_error"))
	for _, alt := range []string{present(res.Get("_failureText")), r.str("_error"), r.str("_failureText")} {
		if errText == "" {
			errText = alt
		}
	}
	o.Detail = errText
	o.Outcome = harOutcome(o.Status, errText)
	if o.Outcome.Lost() || o.Status < 0 {
		o.Status = 0
	}
	// Only the answer to a write names what it created: a GET's body id is
	// the id of what was read.
	if isWriteMethod(o.Method) && !o.Outcome.Lost() {
		o.ResultID = resultOf(res.Get("content"))
	}
	return o.Method != ""
}

// resultOf finds a result id in a HAR response's content, decoding a
// base64 body first.
func resultOf(content gjson.Result) string {
	text := content.Get("text").Str
	if text == "" {
		return ""
	}
	if strings.EqualFold(content.Get("encoding").Str, "base64") {
		b, err := base64.StdEncoding.DecodeString(text)
		if err != nil {
			return ""
		}
		text = string(b)
	}
	if !gjson.Valid(text) {
		return ""
	}
	body := gjson.Parse(text)
	for _, k := range append([]string{"id"}, resultAliases...) {
		if s := present(body.Get(k)); s != "" {
			return strings.Clone(s)
		}
	}
	return ""
}

// isWriteMethod reports whether a method may create something.
func isWriteMethod(m string) bool {
	switch m {
	case "POST", "PUT", "PATCH", "DELETE":
		return true
	}
	return false
}

// harOutcome classifies a HAR entry: Chrome writes status 0 and an _error
// (net::ERR_…), Firefox only status 0; an _error may follow a real status
// when the body was aborted.
func harOutcome(status int, errText string) trace.Outcome {
	e := strings.TrimPrefix(errText, "net::")
	if !strings.HasPrefix(e, "ERR_") && e != "" {
		return proxyErrorOutcome(e)
	}
	switch {
	case strings.Contains(e, "TIMED_OUT"):
		return trace.OutcomeTimeout
	case strings.Contains(e, "CONNECTION_RESET"), strings.Contains(e, "EMPTY_RESPONSE"),
		strings.Contains(e, "CONNECTION_CLOSED"), strings.Contains(e, "CONNECTION_ABORTED"):
		return trace.OutcomeReset
	case strings.Contains(e, "CONNECTION_REFUSED"), strings.Contains(e, "NAME_NOT_RESOLVED"),
		strings.Contains(e, "INTERNET_DISCONNECTED"), strings.Contains(e, "ADDRESS_UNREACHABLE"):
		return trace.OutcomeNotDelivered
	case strings.Contains(e, "ABORTED"):
		return trace.OutcomeAborted
	case e != "":
		return trace.OutcomeError
	case status <= 0:
		return trace.OutcomeAborted
	}
	return trace.OutcomeOK
}

// expandHAR handles a whole HAR document written on one line.
func expandHAR(p *Parser, r *record, src trace.Source) {
	p.observeArray(r.get("log").Get("entries"), src)
}

// proxyErrorOutcome reads the error texts that are not Chrome's net::
// codes: mitmproxy's ("Connect call failed ('127.0.0.1', 8080)", "Server
// disconnected.") and Firefox's or Playwright's plain words.
func proxyErrorOutcome(e string) trace.Outcome {
	e = strings.ToLower(e)
	switch {
	case strings.Contains(e, "timed out"), strings.Contains(e, "timeout"):
		return trace.OutcomeTimeout
	case strings.Contains(e, "connect call failed"), strings.Contains(e, "refused"), strings.Contains(e, "name or service not known"),
		strings.Contains(e, "no route"), strings.Contains(e, "unreachable"), strings.Contains(e, "getaddrinfo"):
		return trace.OutcomeNotDelivered
	case strings.Contains(e, "reset"), strings.Contains(e, "disconnect"), strings.Contains(e, "closed"), strings.Contains(e, "eof"):
		return trace.OutcomeReset
	case strings.Contains(e, "abort"), strings.Contains(e, "cancel"):
		return trace.OutcomeAborted
	}
	return trace.OutcomeError
}
