package replay

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/redact"
)

// request is one request to send.
type request struct {
	Method string
	URL    string
	Header http.Header
	Body   []byte
	// Key is the Idempotency-Key it carries ("" for none).
	Key string
	// Dropped names the captured credentials not resent: headers, and
	// query parameters as "?name".
	Dropped []string
	// Resent names the captured credentials resent (--keep-auth), the
	// same way; Withheld the other captured headers not resent (routing
	// and trust headers, a Content-Encoding over a body not encoded).
	Resent, Withheld []string
	// CapturedHost is the host the request was captured for ("" when
	// the capture names none, as a log line of a route).
	CapturedHost string
}

// newID returns 16 random bytes in hex.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// hopHeaders are not resent: the transport sets them for the new request.
var hopHeaders = map[string]bool{"Host": true, "Content-Length": true, "Connection": true, "Keep-Alive": true,
	"Transfer-Encoding": true, "Te": true, "Trailer": true, "Upgrade": true, "Proxy-Connection": true,
	"Accept-Encoding": true, "Expect": true}

// routingHeaders say where a request came from or which route it takes
// behind a proxy: resent from a log, they would claim the original
// client's address or reach another route (X-Original-URL). They are
// resent only when named with KeepHeaders.
var routingHeaders = map[string]bool{"X-Forwarded-For": true, "X-Forwarded-Host": true, "X-Forwarded-Proto": true,
	"X-Forwarded-Port": true, "X-Forwarded-Prefix": true, "X-Forwarded-Server": true, "Forwarded": true, "X-Real-Ip": true,
	"X-Client-Ip": true, "True-Client-Ip": true, "Cf-Connecting-Ip": true, "X-Original-Url": true, "X-Rewrite-Url": true,
	"X-Original-Host": true, "X-Original-Forwarded-For": true}

// RoutingHeaders lists the headers not resent unless named (sorted).
func RoutingHeaders() []string {
	var out []string
	for h := range routingHeaders {
		out = append(out, h)
	}
	slices.Sort(out)
	return out
}

// encodedAs reports whether body is plausibly encoded as the outermost of
// the content codings ce names: by its magic bytes where the coding has
// them; a coding without (br) is taken as applied unless the body is JSON.
func encodedAs(body []byte, ce string) bool {
	codings := strings.Split(ce, ",")
	switch c := strings.ToLower(strings.TrimSpace(codings[len(codings)-1])); c {
	case "", "identity":
		return true
	case "gzip", "x-gzip":
		return len(body) >= 2 && body[0] == 0x1f && body[1] == 0x8b
	case "deflate": // zlib: a header whose two bytes are a multiple of 31
		return len(body) >= 2 && body[0]&0x0f == 8 && (int(body[0])<<8|int(body[1]))%31 == 0
	case "zstd":
		return len(body) >= 4 && string(body[:4]) == "\x28\xb5\x2f\xfd"
	default:
		return len(body) > 0 && !json.Valid(body)
	}
}

// build rebuilds a captured request for the target: scheme, host and port
// replaced, path and query kept, the same key and body, a new request id,
// no credentials unless KeepAuth, then the user's headers.
func build(c *model.Captured, key string, opts Options) (*request, error) {
	if opts.Target == nil || opts.Target.Host == "" || (opts.Target.Scheme != "http" && opts.Target.Scheme != "https") {
		return nil, ErrTarget
	}
	u, err := url.Parse(c.URL)
	if err != nil {
		return nil, fmt.Errorf("the captured URL %q cannot be read: %w", redact.String(c.URL), err)
	}
	var dropped, resent, withheld []string
	out := *opts.Target
	out.Path = u.Path
	out.RawPath = u.RawPath
	out.RawQuery = u.RawQuery
	out.Fragment = ""
	if opts.Target.Path != "" && opts.Target.Path != "/" {
		out.Path = strings.TrimRight(opts.Target.Path, "/") + u.Path
		out.RawPath = ""
	}
	if !opts.KeepAuth {
		out.RawQuery, dropped = stripQuery(u.RawQuery)
	} else {
		_, resent = stripQuery(u.RawQuery)
	}
	h := http.Header{}
	ridHeader := opts.RequestIDHeader
	if ridHeader == "" {
		ridHeader = "X-Request-Id"
	}
	for _, hd := range c.Headers {
		name := http.CanonicalHeaderKey(hd.Name)
		switch {
		case name == "" || strings.HasPrefix(name, ":") || hopHeaders[name]:
		case strings.EqualFold(name, ridHeader), name == "Idempotency-Key":
		case !opts.KeepAuth && secretHeader(name, hd.Value):
			if !slices.Contains(dropped, name) {
				dropped = append(dropped, name)
			}
		case routingHeaders[name] && !slices.ContainsFunc(opts.KeepHeaders, func(k string) bool { return strings.EqualFold(k, name) }):
			if !slices.Contains(withheld, name) {
				withheld = append(withheld, name)
			}
		default:
			if opts.KeepAuth && secretHeader(name, hd.Value) && !slices.Contains(resent, name) {
				resent = append(resent, name)
			}
			h.Add(name, hd.Value)
		}
	}
	if key != "" {
		h.Set("Idempotency-Key", key)
	}
	id := opts.NewID
	if id == nil {
		id = newID
	}
	h.Set(ridHeader, "idem-replay-"+id())
	// A log holds a body as text: a Content-Encoding over it would make
	// the server decode what is not encoded.
	if ce := h.Get("Content-Encoding"); ce != "" && !encodedAs(c.Body, ce) {
		h.Del("Content-Encoding")
		withheld = append(withheld, "Content-Encoding")
	}
	if c.HasBody && h.Get("Content-Type") == "" && json.Valid(c.Body) {
		h.Set("Content-Type", "application/json")
	}
	for _, hd := range opts.Headers {
		h.Set(hd.Name, hd.Value)
		// A credential given on the command line is not a dropped one.
		dropped = slices.DeleteFunc(dropped, func(d string) bool { return strings.EqualFold(d, hd.Name) })
		withheld = slices.DeleteFunc(withheld, func(d string) bool { return strings.EqualFold(d, hd.Name) })
		resent = slices.DeleteFunc(resent, func(d string) bool { return strings.EqualFold(d, hd.Name) })
	}
	method := c.Method
	if method == "" {
		method = http.MethodPost
	}
	// A log line logs a path: the host it was sent to is its Host header,
	// where it kept one.
	capturedHost := u.Host
	for _, hd := range c.Headers {
		if capturedHost == "" && (strings.EqualFold(hd.Name, "Host") || hd.Name == ":authority") {
			capturedHost = hd.Value
		}
	}
	return &request{Method: method, URL: out.String(), Header: h, Body: c.Body, Key: key, Dropped: dropped,
		Resent: resent, Withheld: withheld, CapturedHost: capturedHost}, nil
}

// ErrTarget is a target that is not an http or https URL with a host.
var ErrTarget = errors.New("the target must be an http or https URL with a host, e.g. http://127.0.0.1:8080")

// One rule says what is not resent without --keep-auth: a header or a
// query parameter that idem would redact in its own output, by its name
// or by its value. What idem would not print, it does not send either.

// secretHeader reports whether a captured header carries a credential:
// its name is a credential's (Authorization, X-Otp, Dpop…), or idem would
// mask its value (a JWT in X-User, a bearer token, a URL with a password
// or a token parameter in Referer…).
func secretHeader(name, value string) bool {
	return redact.IsSecretHeader(name) || redact.String(value) != value || redact.String(name+": "+value) != name+": "+value
}

// secretParam reports the same of a query parameter, given as written
// (name=value, escaped) and unescaped.
func secretParam(part, name, value string) bool {
	return redact.IsSecretParam(name) || redact.String(value) != value || redact.String("?"+part) != "?"+part
}

// stripQuery removes the parameters that carry credentials (api_key,
// token, code, sig, X-Amz-Signature, state, ticket, a JWT…) from a raw
// query, keeping the others as they were written, and names the removed
// ones.
func stripQuery(raw string) (string, []string) {
	if raw == "" {
		return "", nil
	}
	var kept, dropped []string
	for _, part := range strings.Split(raw, "&") {
		name, value, _ := strings.Cut(part, "=")
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		if v, err := url.QueryUnescape(value); err == nil {
			value = v
		}
		if secretParam(part, name, value) {
			if d := "?" + name; !slices.Contains(dropped, d) {
				dropped = append(dropped, d)
			}
			continue
		}
		kept = append(kept, part)
	}
	return strings.Join(kept, "&"), dropped
}

// clone copies a request with a new request id, another key, or no key.
func (r *request) clone(opts Options, key string, body []byte) *request {
	c := &request{Method: r.Method, URL: r.URL, Header: r.Header.Clone(), Body: body, Key: key}
	if key == "" {
		c.Header.Del("Idempotency-Key")
	} else {
		c.Header.Set("Idempotency-Key", key)
	}
	id := opts.NewID
	if id == nil {
		id = newID
	}
	ridHeader := opts.RequestIDHeader
	if ridHeader == "" {
		ridHeader = "X-Request-Id"
	}
	c.Header.Set(ridHeader, "idem-replay-"+id())
	return c
}
