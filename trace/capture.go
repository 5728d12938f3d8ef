package trace

import (
	"strings"

	"github.com/tidwall/gjson"
)

// Captured is a request as an input recorded it, complete enough to send
// again: a HAR entry, or a log line that logged method, route, headers and
// body. Header values are as captured; redact before showing them.
type Captured struct {
	Method    string
	URL       string // absolute (HAR) or a path (logs)
	Headers   []Header
	Body      []byte
	HasBody   bool
	Key       string
	RequestID string
	Source    Source
	// What the capture says came back, when it does (HAR).
	Status          int
	ResponseHeaders []Header
	ResponseBody    []byte
}

// Header is one captured header line.
type Header struct {
	Name, Value string
}

// capture builds a Captured from a record whose observation carries the
// wanted key, in the shapes HAR and request-logging middleware write.
func (p *parser) capture(r *record, o *Observation) {
	byKey := p.captureKey != "" && (o.Key == p.captureKey || o.KeyHash != "" && o.KeyHash == HashKey(p.captureKey))
	byID := p.captureID != "" && o.RequestID == p.captureID
	if !byKey && !byID {
		return
	}
	c := &Captured{Method: o.Method, Key: o.Key, RequestID: strings.Clone(o.RequestID), Source: o.Source}
	if c.Key == "" && byKey {
		c.Key = p.captureKey // the line logged only the key's hash
	}
	if req := r.get("request"); req.IsObject() && r.has("response") {
		// A HAR entry.
		c.URL = req.Get("url").Str
		c.Headers = headerList(req.Get("headers"))
		if pd := req.Get("postData.text"); pd.Exists() {
			c.Body, c.HasBody = []byte(pd.Str), true
		}
		res := r.get("response")
		c.Status = int(res.Get("status").Int())
		c.ResponseHeaders = headerList(res.Get("headers"))
		if t := res.Get("content.text"); t.Exists() {
			c.ResponseBody = []byte(t.Str)
		}
	} else {
		c.URL = r.str("url", "uri", "request_uri", "path", "route", "req.url", "request.uri")
		for _, h := range []string{"headers", "req.headers", "request.headers", "http.request.headers"} {
			if v := r.path(h); v.IsObject() || v.IsArray() {
				c.Headers = headerList(v)
				break
			}
		}
		for _, b := range bodyAliases {
			if v := r.path(b); v.Exists() {
				c.HasBody = true
				if v.Type == gjson.String {
					c.Body = []byte(v.Str)
				} else {
					c.Body = []byte(v.Raw)
				}
				break
			}
		}
		c.Status = o.Status
	}
	if c.Method == "" || c.URL == "" {
		return
	}
	c.own()
	p.out.captured = append(p.out.captured, c)
}

// own copies the strings that still view the line, whose buffer is used
// again for later lines.
func (c *Captured) own() {
	c.Method, c.URL, c.Key = strings.Clone(c.Method), strings.Clone(c.URL), strings.Clone(c.Key)
	for _, hs := range [][]Header{c.Headers, c.ResponseHeaders} {
		for i := range hs {
			hs[i].Name, hs[i].Value = strings.Clone(hs[i].Name), strings.Clone(hs[i].Value)
		}
	}
}

// headerList reads a header map or a HAR header array into a list,
// keeping the captured order.
func headerList(h gjson.Result) []Header {
	var out []Header
	if h.IsArray() {
		h.ForEach(func(_, e gjson.Result) bool {
			out = append(out, Header{Name: e.Get("name").Str, Value: e.Get("value").String()})
			return true
		})
		return out
	}
	h.ForEach(func(k, v gjson.Result) bool {
		if v.IsArray() {
			v.ForEach(func(_, x gjson.Result) bool {
				out = append(out, Header{Name: k.Str, Value: x.String()})
				return true
			})
		} else {
			out = append(out, Header{Name: k.Str, Value: v.String()})
		}
		return true
	})
	return out
}
