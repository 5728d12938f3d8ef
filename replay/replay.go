// Package replay resends a captured request with its Idempotency-Key (and
// a new request id) to a live server, and checks the replay contract: the
// same status and result id, a replay marker where the profile has one,
// and no new effect. Probes check the rest of the verification procedure:
// a changed payload under the key, concurrent deliveries, a lost response,
// a missing key, a delivery during a slow first one.
//
// Replay can create a second order or charge on a broken server. Nothing is
// sent without an explicit target; the command asks before sending; probes
// that may create effects use fresh keys derived from the captured one.
package replay

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/idem-cli/idem/contract"
	"github.com/idem-cli/idem/internal/iostreams"
	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/redact"
	"github.com/tidwall/gjson"
)

// Probe names, in the order they run.
const (
	ProbeMismatch     = "mismatch"
	ProbeConcurrent   = "concurrent"
	ProbeLostResponse = "lost-response"
	ProbeMissingKey   = "missing-key"
	ProbeInProgress   = "in-progress"
)

// ProbeNames lists the probes in their order.
func ProbeNames() []string {
	return []string{ProbeMismatch, ProbeConcurrent, ProbeLostResponse, ProbeMissingKey, ProbeInProgress}
}

// Options configure a replay.
type Options struct {
	Target          *url.URL
	Profile         contract.Profile
	RequestIDHeader string
	KeepAuth        bool
	Headers         []model.Header // added or overriding, in order
	ResultPath      string         // gjson path of the result id in the response body
	EffectsURL      string         // GET it before and after to count effects
	EffectsPath     string         // gjson path to a count or a list in that response
	Probes          []string
	Concurrency     int
	Timeout         time.Duration
	Insecure        bool
	// Settle is how long the lost-response probe waits for the server to
	// finish after the connection is dropped.
	Settle time.Duration
	// RequireMarker makes an absent replay marker a failure; otherwise it
	// is reported as information (the IETF draft defines no marker, and
	// many servers send none).
	RequireMarker bool
	// NewID makes request ids and key suffixes; tests fix it.
	NewID func() string
}

// Original is the first answer to the key: the captured response, or
// what the logs say.
type Original struct {
	Status   int    `json:"status"`
	ResultID string `json:"result_id"`
	Source   string `json:"source"`
	// ResultPath is where the body holds the result id ("" when unknown).
	ResultPath string `json:"-"`
	// Body is the captured response body, compared with the replay's when
	// it holds no result id.
	Body []byte `json:"-"`
}

// Request is one request to send.
type Request struct {
	Method string
	URL    string
	Header http.Header
	Body   []byte
	// Key is the Idempotency-Key it carries ("" for none).
	Key string
	// Dropped names the captured credentials not resent: headers, and
	// query parameters as "?name".
	Dropped []string
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

// Build rebuilds a captured request for the target: scheme, host and port
// replaced, path and query kept, the same key and body, a new request id,
// no credentials unless KeepAuth, then the user's headers.
func Build(c *model.Captured, key string, opts Options) (*Request, error) {
	if opts.Target == nil || opts.Target.Host == "" || (opts.Target.Scheme != "http" && opts.Target.Scheme != "https") {
		return nil, ErrTarget
	}
	u, err := url.Parse(c.URL)
	if err != nil {
		return nil, fmt.Errorf("the captured URL %q cannot be read: %w", redact.String(c.URL), err)
	}
	var dropped []string
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
		case redact.IsSecretHeader(name) && !opts.KeepAuth:
			if !slices.Contains(dropped, name) {
				dropped = append(dropped, name)
			}
		default:
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
	if c.HasBody && h.Get("Content-Type") == "" && json.Valid(c.Body) {
		h.Set("Content-Type", "application/json")
	}
	for _, hd := range opts.Headers {
		h.Set(hd.Name, hd.Value)
		// A credential given on the command line is not a dropped one.
		dropped = slices.DeleteFunc(dropped, func(d string) bool { return strings.EqualFold(d, hd.Name) })
	}
	method := c.Method
	if method == "" {
		method = http.MethodPost
	}
	return &Request{Method: method, URL: out.String(), Header: h, Body: c.Body, Key: key, Dropped: dropped}, nil
}

// ErrTarget is a target that is not an http or https URL with a host.
var ErrTarget = errors.New("the target must be an http or https URL with a host, e.g. http://127.0.0.1:8080")

// stripQuery removes the parameters that carry credentials (api_key,
// token, code, sig, X-Amz-Signature…) from a raw query, keeping the
// others as they were written, and names the removed ones.
func stripQuery(raw string) (string, []string) {
	if raw == "" {
		return "", nil
	}
	var kept, dropped []string
	for _, part := range strings.Split(raw, "&") {
		name, _, _ := strings.Cut(part, "=")
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		if redact.IsSecretParam(name) {
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
func (r *Request) clone(opts Options, key string, body []byte) *Request {
	c := &Request{Method: r.Method, URL: r.URL, Header: r.Header.Clone(), Body: body, Key: key}
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

// Curl writes the request as an equivalent curl command for bash or any
// POSIX shell. Values are redacted first and quoted after, so a mask
// never eats a closing quote; a value that holds a control character or
// invalid UTF-8 is written in ANSI-C quoting ($'…'), so the command is
// printable as it is and runs as it reads.
func (r *Request) Curl() string {
	var b strings.Builder
	method := r.Method
	if strings.Trim(method, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" || method == "" {
		method = ShellQuote(method)
	}
	fmt.Fprintf(&b, "curl -sS -X %s %s", method, ShellQuote(redact.String(r.URL)))
	for _, name := range sortedNames(r.Header) {
		for _, v := range r.Header[name] {
			fmt.Fprintf(&b, " \\\n  -H %s", ShellQuote(name+": "+ShowHeader(name, v)))
		}
	}
	if len(r.Body) > 0 {
		fmt.Fprintf(&b, " \\\n  --data-binary %s", ShellQuote(redact.String(string(r.Body))))
	}
	return b.String()
}

// ShowHeader is a header value fit to print: credentials masked.
func ShowHeader(name, value string) string {
	if redact.IsSecretHeader(name) {
		return redact.Mask
	}
	return redact.String(value)
}

func sortedNames(h http.Header) []string {
	var names []string
	for n := range h {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ShellQuote quotes s as one shell word: in single quotes when every
// character prints as itself, else in ANSI-C quotes with escapes.
func ShellQuote(s string) string {
	if printable(s) {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case unsafeRune(r):
			if r < 0x100 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
		i += size
	}
	b.WriteString("'")
	return b.String()
}

// printable reports whether s is valid UTF-8 without a control, C1 or
// bidi-override character: text a terminal shows as it is.
func printable(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || unsafeRune(r) {
			return false
		}
		i += size
	}
	return true
}

// unsafeRune is what a shell word must not hold as it is: what a
// terminal acts on, and the line separators and BOM that hide in a
// pasted command.
func unsafeRune(r rune) bool {
	return r < 0x20 || iostreams.TerminalActive(r) || r == 0x2028 || r == 0x2029 || r == 0xfeff
}

// mutate changes one significant field of a JSON body: the first number
// (by key order) grows by one, else the first string gets a suffix, else a
// field is added. A non-JSON body gets a suffix.
func mutate(body []byte) ([]byte, string) {
	if !gjson.ValidBytes(body) || !gjson.ParseBytes(body).IsObject() {
		return append(append([]byte{}, body...), []byte(" (idem probe)")...), "the body, with a suffix"
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return append(append([]byte{}, body...), ' '), "the body"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	changed := ""
	for _, k := range keys {
		if n, ok := m[k].(json.Number); ok {
			if i, err := n.Int64(); err == nil {
				m[k] = i + 1
			} else if f, err := n.Float64(); err == nil {
				m[k] = f + 1
			}
			changed = k
			break
		}
	}
	if changed == "" {
		for _, k := range keys {
			if s, ok := m[k].(string); ok {
				m[k] = s + "-idem-probe"
				changed = k
				break
			}
		}
	}
	if changed == "" {
		m["idem_probe"] = true
		changed = "idem_probe (added)"
	}
	out, _ := json.Marshal(m)
	return out, "field " + changed
}

// resultPathIn finds where a captured response body holds the result id.
func resultPathIn(body []byte, resultID string) string {
	if resultID == "" || !gjson.ValidBytes(body) {
		return ""
	}
	found := ""
	var walk func(prefix string, v gjson.Result, depth int)
	walk = func(prefix string, v gjson.Result, depth int) {
		if found != "" || depth > 4 {
			return
		}
		v.ForEach(func(k, x gjson.Result) bool {
			p := k.String()
			if prefix != "" {
				p = prefix + "." + p
			}
			if (x.Type == gjson.String || x.Type == gjson.Number) && x.String() == resultID {
				found = p
				return false
			}
			if x.IsObject() {
				walk(p, x, depth+1)
			}
			return found == ""
		})
	}
	walk("", gjson.ParseBytes(body), 0)
	return found
}

// resultID reads the result id from a response body: at path when one is
// known, else where ResultIDIn finds one.
func resultID(body []byte, path, rawURL string, exclude ...string) string {
	if !gjson.ValidBytes(body) {
		return ""
	}
	if path != "" {
		return gjson.GetBytes(body, path).String()
	}
	_, id := ResultIDIn(body, rawURL, exclude...)
	return id
}
