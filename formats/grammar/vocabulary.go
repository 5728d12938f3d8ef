package grammar

import "strings"

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
}

// ignoredHeaders are headers whose meaning is known and of no use to
// idem, or which carry credentials: neither a field nor a Detail.
var ignoredHeaders = map[string]bool{
	"user-agent": true, "referer": true, "host": true, "accept": true, "accept-encoding": true, "accept-language": true,
	"content-type": true, "content-length": true, "connection": true, "origin": true, "via": true,
	"authorization": true, "proxy-authorization": true, "cookie": true, "set-cookie": true, "x-api-key": true,
}

// requestHeader is the variable that logs request header name.
func requestHeader(written, name string) *variable {
	h := headerName(name)
	if m, ok := requestHeaders[h]; ok {
		return known(written, m.f, m.rank)
	}
	if ignoredHeaders[h] {
		return known(written, None, 0)
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
		return known(written, f, 1)
	}
	if ignoredHeaders[h] {
		return known(written, None, 0)
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
