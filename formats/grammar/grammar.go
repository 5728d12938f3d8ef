// Package grammar compiles a proxy's own access-log format string (nginx's
// log_format, Apache's LogFormat, Tomcat's AccessLogValve pattern,
// lighttpd's accesslog.format, varnishncsa's -F, HAProxy's log-format,
// Envoy's format strings and json_format, squid's logformat) into a Program that reads the
// lines that format writes.
//
// The model: a format string is literal text and variables. Each syntax
// (one file each: nginx.go, apache.go, tomcat.go, haproxy.go, envoy.go,
// squid.go)
// knows its variables and what each means: which Field it gives (the
// request id, the key, the status, when the request started or ended, how
// long it took and in which unit), and what its values look like where
// its grammar says so (an integer, a bracketed date). A variable a syntax
// does not know is kept as a Detail under its own name: its meaning is
// never guessed from its value.
//
// A Program reads a line in one pass, left to right, without
// backtracking: each variable's value runs to the next literal of the
// format (past the spaces its grammar says it holds, and past escaped
// quotes). A line the format did not write is a *MismatchError naming
// the column; a format string that does not parse is a *syntaxError
// naming the column and what was expected.
package grammar

import (
	"fmt"
	"strings"
	"time"
)

// Syntax names a proxy's format-string language.
type Syntax string

// The syntaxes a format string may be written in.
const (
	Nginx    Syntax = "nginx"    // log_format: $variable, ${variable}
	Apache   Syntax = "apache"   // LogFormat: %h %t %>s %D %{Header}i
	Tomcat   Syntax = "tomcat"   // AccessLogValve pattern (Tomcat 10 and later: %D in microseconds)
	tomcat9  Syntax = "tomcat9"  // AccessLogValve pattern of Tomcat 9 and earlier (%D in milliseconds)
	lighttpd Syntax = "lighttpd" // accesslog.format: Apache's directives, %t the end of the request
	varnish  Syntax = "varnish"  // varnishncsa -F: Apache's directives and %{…}x
	haproxy  Syntax = "haproxy"  // log-format: %ci %tr %ST %{+Q}r %[sample]
	Envoy    Syntax = "envoy"    // %REQ(X-REQUEST-ID)% %START_TIME%, and json_format objects
	Squid    Syntax = "squid"    // logformat: %ts.%03tu %6tr %>a %Ss/%03>Hs %{Idempotency-Key}>h
)

// syntaxes lists every syntax, for messages and documentation.
func syntaxes() []Syntax {
	return []Syntax{Nginx, Apache, Tomcat, tomcat9, lighttpd, varnish, haproxy, Envoy, Squid}
}

// ParseSyntax reads a syntax's name.
func ParseSyntax(s string) (Syntax, error) {
	name := Syntax(strings.ToLower(strings.TrimSpace(s)))
	for _, k := range syntaxes() {
		if k == name {
			return k, nil
		}
	}
	names := make([]string, 0, 9)
	for _, k := range syntaxes() {
		names = append(names, string(k))
	}
	return "", fmt.Errorf("unknown log_format_syntax %q (known: %s)", s, strings.Join(names, ", "))
}

// Detect names the syntax of a format string where the string itself
// says it unambiguously: nginx writes variables with '$', Envoy's
// operators are upper-case names between two '%', squid's codes its own
// (%>Hs, %Ss, %{Name}>h), HAProxy's are its two-letter variables (%ci,
// %tr, %ST) or %[sample]. Apache, Tomcat,
// lighttpd and Varnish share one language whose meanings differ (%t is
// the start in Apache, the end in lighttpd; Tomcat 9's %D is in
// milliseconds): for those it returns an error asking for the syntax.
func Detect(format string) (Syntax, error) {
	s := strings.TrimSpace(format)
	switch {
	case strings.HasPrefix(s, "log_format"):
		return Nginx, nil
	case strings.HasPrefix(s, "log-format"):
		return haproxy, nil
	case strings.HasPrefix(s, "LogFormat"), strings.HasPrefix(s, "CustomLog"):
		return Apache, nil
	case strings.HasPrefix(s, "logformat "):
		return Squid, nil
	}
	dollar, percent := strings.Contains(s, "$"), strings.Contains(s, "%")
	if dollar && !percent {
		return Nginx, nil
	}
	if envoyLooking(s) {
		return Envoy, nil
	}
	if squidLooking(s) {
		return Squid, nil
	}
	if haproxyLooking(s) {
		return haproxy, nil
	}
	if dollar {
		return Nginx, nil
	}
	return "", &ambiguousError{}
}

// ambiguousError is a format string whose syntax cannot be told from it.
type ambiguousError struct{}

func (e *ambiguousError) Error() string {
	return "log_format: its syntax cannot be told from the string (Apache, Tomcat, lighttpd and Varnish share one " +
		"language whose meanings differ): name it in log_format_syntax (nginx, apache, tomcat, tomcat9, lighttpd, varnish, haproxy, envoy, squid)"
}

// Options are what a format string alone does not say.
type Options struct {
	// Captures names, in order, the request headers HAProxy captures
	// ("capture request header NAME" or "http-request capture"): its %hr
	// and %[capture.req.hdr(N)] write them by position, unnamed.
	Captures []string
}

// Compile parses format, written in syntax, into a Program.
func Compile(syntax Syntax, format string, opt Options) (*Program, error) {
	var (
		p   *Program
		err error
	)
	switch syntax {
	case Nginx:
		p, err = compileNginx(format)
	case Apache, lighttpd, varnish:
		p, err = compileApache(syntax, format)
	case Tomcat, tomcat9:
		p, err = compileTomcat(syntax, format)
	case haproxy:
		p, err = compileHAProxy(format, opt)
	case Envoy:
		p, err = compileEnvoy(format)
	case Squid:
		p, err = compileSquid(format)
	default:
		_, err = ParseSyntax(string(syntax))
	}
	if err != nil {
		return nil, err
	}
	p.syntax = syntax
	for _, o := range p.ops {
		if len(o.lit) > len(p.key) {
			p.key = o.lit
		}
	}
	return p, nil
}

// syntaxError is a format string that does not parse.
type syntaxError struct {
	Syntax Syntax
	Column int // 1-based, in the string as given
	Want   string
	Found  string
}

func (e *syntaxError) Error() string {
	found := "the end of the string"
	if e.Found != "" {
		found = fmt.Sprintf("%q", e.Found)
	}
	return fmt.Sprintf("%s log_format, column %d: expected %s, found %s", e.Syntax, e.Column, e.Want, found)
}

// syntaxErrorAt is a syntaxError at s[i:].
func syntaxErrorAt(syn Syntax, s string, i int, want string) *syntaxError {
	found := ""
	if i < len(s) {
		found = s[i:min(len(s), i+12)]
	}
	return &syntaxError{Syntax: syn, Column: i + 1, Want: want, Found: found}
}

// mismatchError is a line the compiled format did not write.
type mismatchError struct {
	Column int    // 1-based, in the line
	Want   string // what the format has there
	Found  string // what the line has there (cut short)
}

func (e *mismatchError) Error() string {
	found := "the end of the line"
	if e.Found != "" {
		found = fmt.Sprintf("%q", e.Found)
	}
	return fmt.Sprintf("does not match the log_format: column %d: expected %s, found %s", e.Column, e.Want, found)
}

func mismatch(line string, i int, want string) *mismatchError {
	found := ""
	if i < len(line) {
		found = line[i:min(len(line), i+16)]
	}
	return &mismatchError{Column: i + 1, Want: want, Found: found}
}

// Field is what a variable's value means in idem's model.
type Field uint8

// The fields a variable may give.
const (
	none           Field = iota // known, but nothing idem reads (a user agent, a byte count)
	RequestID                   // the id of one delivery
	Key                         // the Idempotency-Key
	TraceParent                 // a W3C traceparent or trace id
	Method                      // the HTTP method
	Path                        // the request's path, perhaps with its query
	RequestLine                 // "POST /v1/orders HTTP/1.1"
	Status                      // the status sent to the client
	UpstreamStatus              // what the upstream answered the proxy (a list where it retried)
	Client                      // who sent it: an address, or a forwarded-for list
	Start                       // when the request started (arrived)
	End                         // when it ended (the log was written)
	StartFrac                   // the sub-second part of Start, written apart
	EndFrac                     // the sub-second part of End, written apart
	Zone                        // the zone of Start or End, written apart
	Duration                    // how long the request took, start to end
	Flags                       // Envoy's response flags ("UT", "DC,UF")
	Reason                      // Envoy's response code details, connection termination details
	Termination                 // HAProxy's termination state ("CH--")
	Upstream                    // the upstream the proxy routed to, by name (ingress-nginx's $proxy_upstream_name)
	OutcomeWord                 // squid's word for how the transaction went (TCP_MISS, TCP_MISS_ABORTED, NONE_NONE)
	NextHop                     // how the proxy reached the next hop (squid's HIER_DIRECT, FIRSTUP_PARENT; HIER_NONE: none)
	Retries                     // HAProxy's retries (%rc)
	Attempts                    // Envoy's upstream attempt count
	ConnStatus                  // Apache's and Tomcat's %X: "X" when the client went away
	Replayed                    // the response's Idempotent-Replayed header
	RetryAfter                  // the response's Retry-After header
	ResultID                    // the response's X-Result-Id header
	RetryMark                   // a client library's number of this send (x-stainless-retry-count, amz-sdk-request)
	secret                      // a credential (Authorization, a cookie, a token header): counted, never kept
	numFields
)

var fieldNames = [numFields]string{"none", "request_id", "key", "traceparent", "method", "path", "request_line", "status",
	"upstream_status", "client", "start", "end", "start_frac", "end_frac", "zone", "duration", "flags", "reason", "termination",
	"upstream", "outcome_word", "next_hop", "retries", "attempts", "connection_status", "replayed", "retry_after", "result_id", "retry_mark", "secret"}

func (f Field) String() string {
	if f < numFields {
		return fieldNames[f]
	}
	return fmt.Sprintf("field(%d)", f)
}

// meaning is what one variable of a format says.
type meaning struct {
	Field Field
	// Unit is the unit of a number: a Duration's, an epoch time's (Start
	// or End written as a number), a fraction's; 0 for a date.
	Unit time.Duration
	// Layout is the Go layout a Start or End date is written in; empty
	// when it is one of the forms every format shares (RFC 3339, the
	// Common Log Format, epoch numbers).
	Layout string
	// Rank orders variables of one Field in one format: the higher wins
	// (the client's X-Request-Id over the proxy's own id, microseconds
	// over seconds).
	Rank int8
	// Name is the variable as the format writes it ($msec, %D).
	Name string
	// Header is the header the variable logs, lower case with '-'
	// ("amz-sdk-request" for $http_amz_sdk_request), where it logs one.
	Header string
}

// detail is a variable idem does not know, with its value in a line.
type detail struct {
	Name, Value string
}

// Values are what a line says, by Field; unknown variables are Details.
// Secrets names the variables that logged a credential in this line: the
// values are never kept, so that secret-in-logs can count them and no
// output can show them.
type Values struct {
	vals    [numFields]string
	meaning [numFields]*meaning
	Details []detail
	Secrets []string
	// unwritten counts the bare values (no quote or bracket around them)
	// the line left empty.
	unwritten int
}

// Unwritten is how many values the line left empty where no quote or
// bracket encloses them: a proxy writes "-" for a value it does not have,
// so a line of its stock format has none.
func (v *Values) Unwritten() int { return v.unwritten }

// reset empties v, keeping its buffers.
func (v *Values) reset() {
	*v = Values{Details: v.Details[:0], Secrets: v.Secrets[:0]}
}

// Get returns the value of f and the variable that gave it; "" and nil
// when the line does not say.
func (v *Values) Get(f Field) (string, *meaning) {
	return v.vals[f], v.meaning[f]
}

// set keeps value under m's field unless a variable of its rank or
// higher gave one. "-" and "" are every syntax's "not logged".
func (v *Values) set(m *meaning, value string) {
	if value == "" || value == "-" {
		return
	}
	switch m.Field {
	case none:
		return
	case secret:
		v.Secrets = append(v.Secrets, m.Name)
		return
	}
	if prev := v.meaning[m.Field]; prev != nil && prev.Rank >= m.Rank {
		if m.Field == Reason && prev.Rank == m.Rank {
			// Envoy's details, termination details and transport
			// failure reason each say part of why: all are kept.
			v.vals[Reason] += " " + value
		}
		return
	}
	v.vals[m.Field], v.meaning[m.Field] = value, m
}

func (v *Values) detail(name, value string) {
	if value == "" || value == "-" {
		return
	}
	v.Details = append(v.Details, detail{Name: name, Value: value})
}
