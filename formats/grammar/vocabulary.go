package grammar

import (
	"strconv"
	"strings"

	"github.com/idem-cli/idem/redact"
)

// The vocabulary every syntax shares: what a header, an environment
// variable or a request attribute of a given name means, wherever a
// format logs it ($http_idempotency_key, %{Idempotency-Key}i,
// %REQ(IDEMPOTENCY-KEY)%, %[req.hdr(idempotency-key)]). A name not here
// is a Detail; credentials are known, so that they are never kept.

// headerName normalises a header's name as nginx, Apache and Envoy
// spell it: lower case, '_' as '-'.
func headerName(s string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "_", "-")
}

// requestHeaders are the request headers idem reads, and their ranks
// among the variables of one field.
var requestHeaders = map[string]struct {
	f    Field
	rank int8
}{
	"x-request-id":      {RequestID, 3},
	"request-id":        {RequestID, 3},
	"x-correlation-id":  {RequestID, 2},
	"idempotency-key":   {Key, 3},
	"x-idempotency-key": {Key, 2},
	"traceparent":       {TraceParent, 2},
	"x-amzn-trace-id":   {TraceParent, 1},
	"x-forwarded-for":   {Client, 3},
	// The headers by which client libraries number their sends (see
	// SendNumber).
	"x-stainless-retry-count": {RetryMark, 1},
	"amz-sdk-request":         {RetryMark, 1},
}

// RequestHeader is what a request header means to every reader, by its
// name in any case and with '_' or '-' (the one list of key, request id,
// trace and retry-mark headers: a HAR's, a JSON logger's header map, a
// W3C column, a captured header all ask it), and its rank among the
// headers of that field: the higher wins where several are logged. None
// for a header no reader uses.
func RequestHeader(name string) (Field, int8) {
	if m, ok := requestHeaders[name]; ok {
		return m.f, m.rank
	}
	if m, ok := requestHeaders[headerName(name)]; ok {
		return m.f, m.rank
	}
	return none, 0
}

// ignoredHeaders are headers whose meaning is known and of no use to
// idem: neither a field nor a Detail. Headers that carry credentials are
// never kept either; which they are is redact's one list.
var ignoredHeaders = map[string]bool{
	"user-agent": true, "referer": true, "host": true, "accept": true, "accept-encoding": true, "accept-language": true,
	"content-type": true, "content-length": true, "connection": true, "origin": true, "via": true,
}

// requestHeader is the variable that logs request header name.
func requestHeader(written, name string) *variable {
	h := headerName(name)
	if m, ok := requestHeaders[h]; ok {
		v := known(written, m.f, m.rank)
		v.m.Header = h
		return v
	}
	if redact.IsSecretHeader(h) {
		return known(written, secret, 0)
	}
	if ignoredHeaders[h] {
		return known(written, none, 0)
	}
	return unknownVar(written)
}

// responseHeaders are the response headers idem reads: how an
// Idempotency-Key server says it replayed, asks to come back, or names
// what it made.
var responseHeaders = map[string]Field{
	"idempotent-replayed": Replayed,
	"retry-after":         RetryAfter,
	"x-result-id":         ResultID,
}

// responseHeader is the variable that logs response header name.
func responseHeader(written, name string) *variable {
	h := headerName(name)
	if f, ok := responseHeaders[h]; ok {
		v := known(written, f, 1)
		v.m.Header = h
		return v
	}
	if redact.IsSecretHeader(h) {
		return known(written, secret, 0)
	}
	if ignoredHeaders[h] {
		return known(written, none, 0)
	}
	return unknownVar(written)
}

// environment is Apache's %{NAME}e: mod_unique_id's UNIQUE_ID is the
// server's own id of the request (a request id a server may pass on).
func environment(written, name string) *variable {
	if name == "UNIQUE_ID" {
		return known(written, RequestID, 1)
	}
	return unknownVar(written)
}

// RetryHeaders are the request headers by which client libraries number
// their sends, so that a server can tell a library's own retry: the
// Stainless-generated SDKs (openai, anthropic, ...) count the retries
// before this send in x-stainless-retry-count ("0" on the first); the
// AWS SDKs write amz-sdk-request: attempt=N; max=M (attempt=1 first).
var RetryHeaders = []string{"x-stainless-retry-count", "amz-sdk-request"}

// SendNumber is which send of its request a client library says value,
// logged for header, is: 1 for the first, 2 for the first retry; 0 where
// the header is not one of RetryHeaders or its value does not follow the
// header's grammar.
func SendNumber(header, value string) int {
	value = strings.TrimSpace(value)
	switch headerName(header) {
	case "x-stainless-retry-count":
		if n, err := strconv.Atoi(value); err == nil && n >= 0 && n < 1<<20 {
			return n + 1
		}
	case "amz-sdk-request":
		// A list of name=value pairs separated by ';' (the AWS SDKs'
		// retry header specification): attempt is this send's number.
		for pair := range strings.SplitSeq(value, ";") {
			name, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
			if ok && strings.EqualFold(strings.TrimSpace(name), "attempt") {
				if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n >= 1 && n < 1<<20 {
					return n
				}
				return 0
			}
		}
	}
	return 0
}
