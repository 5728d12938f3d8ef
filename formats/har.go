package formats

import (
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
	errText := present(res.Get("_error"))
	if errText == "" {
		errText = r.str("_error")
	}
	o.Detail = errText
	o.Outcome = harOutcome(o.Status, errText)
	if o.Outcome.Lost() {
		o.Status = 0
	}
	if c := res.Get("content.text"); c.Str != "" && gjson.Valid(c.Str) {
		body := gjson.Parse(c.Str)
		for _, k := range append([]string{"id"}, resultAliases...) {
			if s := present(body.Get(k)); s != "" {
				o.ResultID = s
				break
			}
		}
	}
	return o.Method != ""
}

// harOutcome classifies a HAR entry: Chrome writes status 0 and an _error
// (net::ERR_…), Firefox only status 0; an _error may follow a real status
// when the body was aborted.
func harOutcome(status int, errText string) trace.Outcome {
	e := strings.TrimPrefix(errText, "net::")
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
