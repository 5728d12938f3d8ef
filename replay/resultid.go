package replay

import (
	"bytes"
	"encoding/json"
	"net/url"
	"path"
	"strings"

	"github.com/tidwall/gjson"
)

// Where a response body holds its result id, and how two bodies compare
// when it holds none.

// resultIDIn finds the result id in a response body, in the shapes real
// APIs use: id, data.id, the route's own <resource>_id or <resource>Id,
// then any *_id or *Id field (requestId, orderId…), at the top level or
// under data. Values that are the Idempotency-Key or the delivery's
// request id (an echo, not a result) are skipped. It returns the gjson
// path and the id, or "" when the body holds none.
func resultIDIn(body []byte, rawURL string, exclude ...string) (string, string) {
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
	_, id := resultIDIn(body, rawURL, exclude...)
	return id
}
