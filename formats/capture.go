package formats

import (
	"strings"

	"github.com/idem-cli/idem/model"
	"github.com/tidwall/gjson"
)

// Capture rebuilds the full request behind an observation from its record
// as read (Result.Raw), in the shapes HAR entries and request-logging
// middleware write, or returns nil when the record does not hold a method
// and a URL. The result owns its strings.
func Capture(raw string, o *model.Observation) *model.Captured {
	if !gjson.Valid(raw) {
		return nil
	}
	v := gjson.Parse(raw)
	if !v.IsObject() {
		return nil
	}
	var r record
	r.load(v)
	c := &model.Captured{Method: o.Method, Key: o.Key, RequestID: strings.Clone(o.RequestID), Source: o.Source}
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
		return nil
	}
	c.Own()
	return c
}

// headerList reads a header map or a HAR header array into a list,
// keeping the captured order.
func headerList(h gjson.Result) []model.Header {
	var out []model.Header
	if h.IsArray() {
		h.ForEach(func(_, e gjson.Result) bool {
			out = append(out, model.Header{Name: e.Get("name").Str, Value: e.Get("value").String()})
			return true
		})
		return out
	}
	h.ForEach(func(k, v gjson.Result) bool {
		if v.IsArray() {
			v.ForEach(func(_, x gjson.Result) bool {
				out = append(out, model.Header{Name: k.Str, Value: x.String()})
				return true
			})
		} else {
			out = append(out, model.Header{Name: k.Str, Value: v.String()})
		}
		return true
	})
	return out
}
