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
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/idem-cli/idem/contract"
	"github.com/idem-cli/idem/redact"
	"github.com/idem-cli/idem/trace"
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
	Headers         []trace.Header // added or overriding, in order
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
	// NewID makes request ids and key suffixes; tests fix it.
	NewID func() string
}

// Original is what the logs say the first answer was.
type Original struct {
	Status   int    `json:"status"`
	ResultID string `json:"result_id"`
	Source   string `json:"source"`
}

// Request is one request to send.
type Request struct {
	Method string
	URL    string
	Header http.Header
	Body   []byte
	// Key is the Idempotency-Key it carries ("" for none).
	Key string
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
func Build(c *trace.Captured, key string, opts Options) (*Request, error) {
	if opts.Target == nil || opts.Target.Host == "" || (opts.Target.Scheme != "http" && opts.Target.Scheme != "https") {
		return nil, fmt.Errorf("--target must be an http or https URL with a host, e.g. http://127.0.0.1:8080")
	}
	u, err := url.Parse(c.URL)
	if err != nil {
		return nil, fmt.Errorf("the captured URL %q cannot be read: %w", redact.String(c.URL), err)
	}
	out := *opts.Target
	out.Path = u.Path
	out.RawPath = u.RawPath
	out.RawQuery = u.RawQuery
	out.Fragment = ""
	if opts.Target.Path != "" && opts.Target.Path != "/" {
		out.Path = strings.TrimRight(opts.Target.Path, "/") + u.Path
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
	}
	method := c.Method
	if method == "" {
		method = http.MethodPost
	}
	return &Request{Method: method, URL: out.String(), Header: h, Body: c.Body, Key: key}, nil
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

// Curl writes the request as an equivalent curl command, secrets redacted.
func (r *Request) Curl() string {
	var b strings.Builder
	fmt.Fprintf(&b, "curl -sS -X %s %s", r.Method, shellQuote(redact.String(r.URL)))
	for _, name := range sortedNames(r.Header) {
		for _, v := range r.Header[name] {
			fmt.Fprintf(&b, " \\\n  -H %s", shellQuote(name+": "+ShowHeader(name, v)))
		}
	}
	if len(r.Body) > 0 {
		fmt.Fprintf(&b, " \\\n  --data-binary %s", shellQuote(redact.String(string(r.Body))))
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

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
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
			if x.Type == gjson.String && x.Str == resultID {
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

// defaultResultPaths are tried when nothing else says where the id is.
var defaultResultPaths = []string{"id", "result_id", "resultId", "receipt", "data.id"}

// resultID reads the result id from a response body.
func resultID(body []byte, path string) string {
	if !gjson.ValidBytes(body) {
		return ""
	}
	if path != "" {
		return gjson.GetBytes(body, path).String()
	}
	for _, p := range defaultResultPaths {
		if v := gjson.GetBytes(body, p); v.Exists() && v.String() != "" {
			return v.String()
		}
	}
	return ""
}
