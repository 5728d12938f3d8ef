package formats

import (
	"strconv"
	"strings"
	"time"

	"github.com/idem-cli/idem/formats/grammar"
	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/redact"
)

// A source's own format string, "log_format" in the config: the proxy's
// log_format, LogFormat, pattern, log-format or format string, compiled
// by package grammar into a reader of exactly the lines it writes. Its
// lines are read by what the format says each variable means, with no
// detection: a line it did not write is skipped, with why.

// logFormatExamples are a format string in each syntax, for 'idem help
// formats' and docs/config.md (a test compiles each, and finds each in
// the doc).
var logFormatExamples = []struct{ syntax, format, note string }{
	{"nginx", `log_format main '$remote_addr [$time_local] "$request" $status $request_time "$http_x_request_id" "$http_idempotency_key"';`, ""},
	{"nginx", `log_format j escape=json '{"t":"$msec","rid":"$http_x_request_id","key":"$http_idempotency_key","s":$status}';`, "a JSON template"},
	{"apache", `%h %t "%r" %>s %D "%{X-Request-Id}i" "%{Idempotency-Key}i" %{UNIQUE_ID}e`, ""},
	{"tomcat", `%a %t &quot;%r&quot; %s %D %{X-Request-Id}i %{Idempotency-Key}i`, "as server.xml writes it"},
	{"lighttpd", `%h %t "%r" %>s %D "%{X-Request-Id}i" "%{Idempotency-Key}i" %{begin:msec}t`, ""},
	{"varnish", `%h %t "%r" %s %D %{Varnish:hitmiss}x "%{X-Request-Id}i" "%{Idempotency-Key}i"`, "varnishncsa -F"},
	{"haproxy", `%ci [%tr] %ST %Ta %tsc %rc %hr %{+Q}r`, `with "captures": ["X-Request-Id", "Idempotency-Key"]`},
	{"envoy", `[%START_TIME%] "%REQ(:METHOD)% %REQ(:PATH)%" %RESPONSE_CODE% %RESPONSE_FLAGS% %DURATION% "%REQ(X-REQUEST-ID)%" "%REQ(IDEMPOTENCY-KEY)%"`, ""},
	{"envoy", `{"start":"%START_TIME%","code":"%RESPONSE_CODE%","flags":"%RESPONSE_FLAGS%","rid":"%REQ(X-REQUEST-ID)%","key":"%REQ(IDEMPOTENCY-KEY)%"}`, "a json_format"},
	{"squid", `logformat idem %{X-Request-Id}>h %tS %tr %>a "%rm %ru HTTP/%rv" %Ss/%03>Hs %<st "%{Idempotency-Key}>h"`, ""},
}

// logFormat is a source's compiled log_format.
type logFormat struct {
	prog *grammar.Program
	name string // what its observations are read as: "nginx log_format"
}

// compileLogFormat compiles a config's log_format, in the syntax named
// (or, when none is, the one the string shows).
func compileLogFormat(format, syntax string, captures []string) (*logFormat, error) {
	var syn grammar.Syntax
	var err error
	if syntax != "" {
		syn, err = grammar.ParseSyntax(syntax)
	} else {
		syn, err = grammar.Detect(format)
	}
	if err != nil {
		return nil, err
	}
	prog, err := grammar.Compile(syn, format, grammar.Options{Captures: captures})
	if err != nil {
		return nil, err
	}
	return &logFormat{prog: prog, name: string(syn) + " log_format"}, nil
}

// readLogFormat reads a line with the source's log_format.
func (p *Parser) readLogFormat(lf *logFormat, line string, src model.Source) {
	p.raw = line
	if err := lf.prog.Read(line, &p.values); err != nil {
		p.skip(src, err.Error())
		return
	}
	var o model.Observation
	o.Source, o.Format, o.Tier = src, lf.name, model.TierProxy
	if !p.observeValues(&o, &p.values, lf.prog.Syntax()) {
		p.out.Ignored++
		p.countFormat(lf.name)
		return
	}
	p.textDone(&o)
}

// observeValues fills o with what a compiled format read, by each
// value's meaning, and says whether the line is about a request. A
// variable the format's syntax does not know is kept in the detail as
// name=value, unless it is named like a credential: then it is counted,
// never kept.
func (p *Parser) observeValues(o *model.Observation, v *grammar.Values, syn grammar.Syntax) bool {
	get := func(f grammar.Field) string { s, _ := v.Get(f); return s }
	o.RequestID = get(grammar.RequestID)
	o.Key = model.NormalizeKey(get(grammar.Key))
	if o.RequestID == "" {
		o.RequestID = traceDelivery(get(grammar.TraceParent))
	}
	o.Method = httpMethod(get(grammar.Method))
	o.Route = routePath(get(grammar.Path))
	if line := get(grammar.RequestLine); line != "" && (o.Method == "" || o.Route == "") {
		m, path := splitRequestLine(line)
		if !methodToken(m) { // raw bytes (TLS to a plain port): no request line
			m, path = "", ""
		}
		if o.Method == "" {
			o.Method = m
		}
		if o.Route == "" {
			o.Route = path
		}
	}
	if c := get(grammar.Client); c != "" {
		o.Client, _, _ = strings.Cut(c, ",") // a forwarded-for list: the first is the client
		o.Client = strings.TrimSpace(o.Client)
	}
	if s, m := v.Get(grammar.Duration); m != nil {
		if d, ok := model.ParseDuration(s, model.Unit(m.Unit)); ok && d >= 0 {
			o.Duration = d
		}
	}
	if t, ok := valuesTime(v, grammar.Start, grammar.StartFrac); ok {
		o.Time = t
	} else if t, ok := valuesTime(v, grammar.End, grammar.EndFrac); ok {
		o.Time = t.Add(-o.Duration) // written at the end: the start is before it
	}
	o.Status, _ = intValue(get(grammar.Status))
	up := get(grammar.UpstreamStatus)
	o.UpstreamStatus, _ = intValue(up)

	var detail []string
	switch flags := get(grammar.Flags); {
	case get(grammar.Termination) != "":
		state := get(grammar.Termination)
		o.Outcome, o.Status = terminationOutcome(state, "", o.Status)
		detail = append(detail, state)
		if endedNormally(state) && o.Status > 0 && o.UpstreamStatus == 0 {
			o.UpstreamStatus = o.Status
		}
	case syn == grammar.Envoy:
		o.Outcome = envoyOutcome(o.Status, flags)
		detail = append(detail, flags, get(grammar.Reason))
	case get(grammar.OutcomeWord) != "":
		word := get(grammar.OutcomeWord)
		o.Outcome = squidOutcome(word, get(grammar.NextHop), o.Status)
		detail = append(detail, word)
	default:
		o.Outcome = proxyOutcome(o.Status)
	}
	if strings.EqualFold(get(grammar.ConnStatus), "X") && o.Outcome == model.OutcomeOK {
		// Apache's and Tomcat's %X: the connection was aborted before
		// the response completed.
		o.Outcome = model.OutcomeClientClosed
		detail = append(detail, "connection aborted (%X)")
	}
	if listsStatuses(up) {
		detail = append(detail, "upstream_status "+up)
		o.UpstreamTries = upstreamTries(up)
	}
	if o.Status == 499 {
		detail = append(detail, "499 client closed request")
		o.Status = 0
	}
	if o.Status < 0 {
		o.Status = 0
	}
	if n, _ := strconv.Atoi(strings.TrimPrefix(get(grammar.Retries), "+")); n > 0 {
		detail = append(detail, "retries "+get(grammar.Retries))
		o.UpstreamTries = haproxyTries(n, get(grammar.Termination))
	}
	if n, _ := strconv.Atoi(get(grammar.Attempts)); n > 1 {
		detail = append(detail, "upstream attempts "+strconv.Itoa(n))
		o.UpstreamTries = n
	}
	if u := get(grammar.Upstream); u != "" {
		o.Labels = "upstream=" + u
	}
	o.Replayed = strings.EqualFold(get(grammar.Replayed), "true")
	o.RetryAfter = get(grammar.RetryAfter) != ""
	o.ResultID = get(grammar.ResultID)
	if s, m := v.Get(grammar.RetryMark); m != nil {
		markRetry(o, m.Header, s)
	}
	for _, name := range v.Secrets {
		p.secret(name)
	}
	for _, d := range v.Details {
		if redact.IsSecretName(strings.TrimLeft(d.Name, "$%{[")) || redact.IsSecretName(d.Name) {
			p.secret(d.Name)
			continue
		}
		detail = append(detail, d.Name+"="+d.Value)
	}
	o.Detail = joinPresent(detail)
	if w := get(grammar.OutcomeWord); w != "" && squidNoRequest(w, get(grammar.Method), get(grammar.Path)) {
		return false
	}
	// A status or a request line logged, even "-" or raw bytes, is a
	// request the proxy saw (a client that sent nothing, 408; TLS sent to
	// a plain port, 400): read with what it has.
	_, status := v.Get(grammar.Status)
	_, line := v.Get(grammar.RequestLine)
	return o.Method != "" || o.RequestID != "" || o.Key != "" || status != nil || line != nil
}

// valuesTime is the time of field at, with its fraction and zone where
// the format writes them apart.
func valuesTime(v *grammar.Values, at, frac grammar.Field) (time.Time, bool) {
	s, m := v.Get(at)
	if m == nil {
		return time.Time{}, false
	}
	var t time.Time
	var ok bool
	zone, _ := v.Get(grammar.Zone)
	switch {
	case m.Unit != 0 && m.Unit != time.Second:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n > 1<<62/int64(m.Unit) {
			return time.Time{}, false
		}
		t, ok = time.Unix(0, n*int64(m.Unit)).UTC(), true
	case m.Layout != "" && zone != "":
		for _, zl := range []string{"-0700", "-07:00", "MST"} {
			var err error
			if t, err = time.Parse(m.Layout+" "+zl, s+" "+zone); err == nil {
				ok = true
				break
			}
		}
	case m.Layout != "":
		var err error
		t, err = time.Parse(m.Layout, s)
		ok = err == nil
	default:
		t, ok = model.ParseTime(s)
	}
	if !ok {
		return time.Time{}, false
	}
	if f, fm := v.Get(frac); fm != nil && t.Nanosecond() == 0 {
		if n, err := strconv.ParseInt(f, 10, 64); err == nil && n >= 0 && time.Duration(n)*fm.Unit < time.Second {
			t = t.Add(time.Duration(n) * fm.Unit)
		}
	}
	return t, true
}

// joinPresent joins the non-empty parts with spaces.
func joinPresent(parts []string) string {
	var b strings.Builder
	for _, s := range parts {
		if s == "" || s == "-" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	return b.String()
}
