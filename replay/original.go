package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/redact"
	"github.com/tidwall/gjson"
)

// ErrNoCapture is returned by PickCapture when no input captured the
// request with its method and route.
var ErrNoCapture = errors.New("no HAR entry or log line with its method and route carried it")

// PickCapture chooses the request to replay: the one with the asked
// request id, else the most complete capture (a body, an absolute URL).
func PickCapture(list []*model.Captured, requestID string) (*model.Captured, error) {
	if len(list) == 0 {
		return nil, ErrNoCapture
	}
	if requestID != "" {
		for _, c := range list {
			if c.RequestID == requestID {
				return c, nil
			}
		}
		return nil, fmt.Errorf("none had the request id %s", redact.String(requestID))
	}
	best := list[0]
	score := func(c *model.Captured) int {
		s := 0
		if c.HasBody {
			s += 2
		}
		if strings.Contains(c.URL, "://") {
			s++
		}
		return s
	}
	for _, c := range list[1:] {
		if score(c) > score(best) {
			best = c
		}
	}
	return best, nil
}

// OriginalOf finds the first answer to the key: a 2xx response captured
// with the request (a HAR entry holds status and body, and is what the
// client saw), else the delivery that made the effect in the logs, else
// the first 2xx any tier logged, else whatever status the capture had.
func OriginalOf(set *model.Set, key string, captures []*model.Captured) Original {
	logged := loggedOriginal(set, key)
	for _, c := range captures {
		if c.Status < 200 || c.Status > 299 {
			continue
		}
		o := Original{Status: c.Status, Source: c.Source.String(), Body: c.ResponseBody}
		o.ResultPath, o.ResultID = ResultIDIn(c.ResponseBody, c.URL, key, c.RequestID)
		if o.ResultID == "" && logged.ResultID != "" {
			if p := resultPathIn(c.ResponseBody, logged.ResultID); p != "" || len(c.ResponseBody) == 0 {
				o.ResultPath, o.ResultID = p, logged.ResultID
			}
		}
		return o
	}
	if logged.Status > 0 {
		return logged
	}
	for _, c := range captures {
		if c.Status > 0 {
			return Original{Status: c.Status, Source: c.Source.String()}
		}
	}
	return Original{}
}

// loggedOriginal is the original answer as the logs tell it.
func loggedOriginal(set *model.Set, key string) Original {
	if set == nil || key == "" {
		return Original{}
	}
	for _, in := range set.FindIntent(key) {
		for _, d := range in.Deliveries {
			for _, o := range d.Observations {
				if o.Effect && o.Tier != model.TierProvider {
					status, _ := d.ServerStatus()
					return Original{Status: status, ResultID: o.ResultID, Source: o.Source.String()}
				}
			}
		}
	}
	// Without an effect line, the first answer any tier saw for the key.
	for _, in := range set.FindIntent(key) {
		for _, d := range in.Deliveries {
			if status, o := d.ServerStatus(); status >= 200 && status < 300 {
				return Original{Status: status, ResultID: d.ResultID(), Source: o.Source.String()}
			}
			if e := d.Edge(); e != nil && e.Status >= 200 && e.Status < 300 {
				return Original{Status: e.Status, ResultID: d.ResultID(), Source: e.Source.String()}
			}
		}
	}
	return Original{}
}

// ResultIDIn finds the result id in a response body, in the shapes real
// APIs use: id, data.id, the route's own <resource>_id or <resource>Id,
// then any *_id or *Id field (requestId, orderId…), at the top level or
// under data. Values that are the Idempotency-Key or the delivery's
// request id (an echo, not a result) are skipped. It returns the gjson
// path and the id, or "" when the body holds none.
func ResultIDIn(body []byte, rawURL string, exclude ...string) (string, string) {
	if !gjson.ValidBytes(body) {
		return "", ""
	}
	doc := gjson.ParseBytes(body)
	if !doc.IsObject() {
		return "", ""
	}
	skip := func(v gjson.Result) bool {
		if v.Type != gjson.String && v.Type != gjson.Number {
			return true
		}
		s := v.String()
		if s == "" {
			return true
		}
		for _, x := range exclude {
			if x != "" && s == x {
				return true
			}
		}
		return false
	}
	try := func(p string) (string, string, bool) {
		if v := doc.Get(p); v.Exists() && !skip(v) {
			return p, v.String(), true
		}
		return "", "", false
	}
	preferred := []string{"id", "data.id"}
	if r := resource(rawURL); r != "" {
		preferred = append(preferred, r+"_id", r+"Id", "data."+r+"_id", "data."+r+"Id")
	}
	preferred = append(preferred, "result_id", "resultId", "receipt")
	for _, p := range preferred {
		if p, id, ok := try(p); ok {
			return p, id
		}
	}
	for _, prefix := range []string{"", "data."} {
		obj := doc
		if prefix != "" {
			obj = doc.Get(strings.TrimSuffix(prefix, "."))
		}
		found, foundID := "", ""
		obj.ForEach(func(k, v gjson.Result) bool {
			name := k.String()
			if (strings.HasSuffix(name, "_id") || (strings.HasSuffix(name, "Id") && len(name) > 2)) &&
				!strings.Contains(strings.ToLower(name), "idempotency") && !skip(v) && plainName(name) {
				found, foundID = prefix+name, v.String()
				return false
			}
			return true
		})
		if found != "" {
			return found, foundID
		}
	}
	return "", ""
}

// resource is the singular resource name of a route: /v1/orders → order.
func resource(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	seg := path.Base(strings.TrimRight(u.Path, "/"))
	if seg == "." || seg == "/" || seg == "" {
		return ""
	}
	seg = strings.ReplaceAll(seg, "-", "_")
	switch {
	case strings.HasSuffix(seg, "ies"):
		return strings.TrimSuffix(seg, "ies") + "y"
	case strings.HasSuffix(seg, "s"):
		return strings.TrimSuffix(seg, "s")
	}
	return seg
}

// canonicalJSON is a JSON body with its keys sorted and no insignificant
// space, so that two answers compare by content; ok is false for a body
// that is not JSON.
func canonicalJSON(body []byte) (string, bool) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil || dec.More() {
		return "", false
	}
	out, err := json.Marshal(v) // maps marshal with sorted keys
	if err != nil {
		return "", false
	}
	return string(out), true
}

// plainName reports whether a member name can stand in a gjson path as it
// is: letters, digits, '_' and '-' (no '.', '*', '?', '#', '@', '|', '[',
// '{', '\\' or '!', which the path syntax reads).
func plainName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return name != ""
}
