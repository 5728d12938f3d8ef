package formats

import (
	"strconv"
	"strings"

	"github.com/idem-cli/idem/model"
	"github.com/tidwall/gjson"
)

// Saying what was understood: with Parser.Explain set, each record read
// is looked at again for where each field of its observation came from.
// The field's value is found among the record's values (the path whose
// value is the request id read, the key, the status...), and the path is
// named after what says what it means: a term of the vocabulary, the
// format's own grammar, or the user's config. The counts go to
// Result.Uses, as the config lines a user can paste and correct. It costs
// a walk over every value of the record, so it is done only when asked,
// and for the lines of an input up to maxExplained (by line number, so
// that the counts do not depend on how the reading is shared out).

// maxExplained is the last line of an input explained.
const maxExplained = 50000

// Bounds of the walk over one record's values.
const (
	maxExplainLeaves = 512
	maxExplainDepth  = 8
)

// leaf is one value of a record, at its gjson path.
type leaf struct {
	path  string
	names []string // normalised, for the vocabulary
	v     gjson.Result
}

// use counts one field read from path.
func (p *Parser) use(field, path, by string) {
	if p.out.Uses == nil {
		p.out.Uses = map[model.FieldUse]int{}
	}
	if len(p.out.Uses) >= 256 {
		return
	}
	p.out.Uses[model.FieldUse{Field: field, Path: p.keep(path), By: p.keep(by)}]++
}

// explainText says what a text line gave: its format reads by position.
func (p *Parser) explainText(o *model.Observation) {
	if !p.Explain || o.Source.Line > maxExplained {
		return
	}
	by := "format " + o.Format + " (by position)"
	for _, f := range observedFields(o) {
		p.use(f, "", by)
	}
}

// observedFields names the fields o holds, in the config's names.
func observedFields(o *model.Observation) []string {
	var out []string
	add := func(ok bool, name string) {
		if ok {
			out = append(out, name)
		}
	}
	add(o.RequestID != "", "request_id")
	add(o.Key != "", "key")
	add(o.KeyHash != "", "key_hash")
	add(o.Method != "", "method")
	add(o.Route != "", "route")
	add(o.Status > 0, "status")
	add(o.Duration > 0, "duration")
	add(o.ResultID != "", "result_id")
	add(o.Fingerprint != "", "fingerprint")
	add(o.Decision != "", "decision")
	return out
}

// explainRecord says where each field of o came from in r, read by f.
func (p *Parser) explainRecord(r *record, o *model.Observation, f *Format) {
	if !p.Explain || o.Source.Line > maxExplained {
		return
	}
	leaves := recordLeaves(r)
	mapped := map[string]string{}
	if p.src != nil {
		mapped = p.src.fields
	}
	find := func(field string, match func(s string) bool) {
		if path, ok := mapped[field]; ok {
			p.use(field, path, "config")
			return
		}
		for _, l := range leaves {
			if s := present(l.v); s != "" && match(s) {
				p.use(field, l.path, whose(l.names, f))
				return
			}
		}
		p.use(field, "", "format "+f.Name)
	}
	if o.RequestID != "" {
		find("request_id", func(s string) bool {
			return s == o.RequestID || strings.HasSuffix(o.RequestID, "#"+s) || traceDelivery(s) == o.RequestID
		})
	}
	if o.Key != "" {
		find("key", func(s string) bool { return model.NormalizeKey(s) == o.Key })
	}
	if o.KeyHash != "" {
		find("key_hash", func(s string) bool { return s == o.KeyHash })
	}
	if o.Method != "" {
		find("method", func(s string) bool { return strings.EqualFold(s, o.Method) })
	}
	if o.Route != "" {
		find("route", func(s string) bool { return routePath(s) == o.Route })
	}
	if o.Status > 0 {
		find("status", func(s string) bool { n, ok := intValue(s); return ok && n == o.Status })
	}
	if o.ResultID != "" {
		find("result_id", func(s string) bool { return s == o.ResultID })
	}
	if o.Decision != "" {
		find("decision", func(s string) bool { return strings.EqualFold(s, o.Decision) })
	}
	if o.Fingerprint != "" {
		p.explainFingerprint(r, o, f, leaves, mapped)
	}
	if o.Duration > 0 {
		p.explainNamed(leaves, mDuration, "duration", f)
	}
	if !o.Time.IsZero() {
		p.explainNamed(leaves, mTime, "time", f)
	}
	if o.Effect {
		path := ""
		for _, l := range leaves {
			if present(l.v) == o.ResultID {
				path = l.path
				break
			}
		}
		p.use("effect", path, "a result id beside a message saying it was made")
	}
}

// explainFingerprint says whether the fingerprint was logged or made from
// a logged body.
func (p *Parser) explainFingerprint(r *record, o *model.Observation, f *Format, leaves []leaf, mapped map[string]string) {
	if path, ok := mapped["fingerprint"]; ok {
		p.use("fingerprint", path, "config")
		return
	}
	for _, l := range leaves {
		if present(l.v) == o.Fingerprint {
			p.use("fingerprint", l.path, whose(l.names, f))
			return
		}
	}
	for _, b := range bodyAliases {
		if r.path(b).Exists() {
			p.use("fingerprint", b, "SHA-256 of the logged body")
			return
		}
	}
	p.vocab.paths = true
	vr := p.readVocabulary(r)
	p.vocab.paths = false
	if vr != nil && vr.found[mBody].term >= 0 {
		p.use("fingerprint", vr.found[mBody].path, "SHA-256 of the logged body")
		return
	}
	p.use("fingerprint", "", "format "+f.Name)
}

// explainNamed names the first value whose name means m.
func (p *Parser) explainNamed(leaves []leaf, m meaning, field string, f *Format) {
	for _, l := range leaves {
		if ti, ok := matchTerm(l.names, nil); ok && vocabulary[ti].means == m {
			by := whose(l.names, f)
			if u := vocabulary[ti].unit; u != 0 {
				by += ", in " + unitName(u)
			} else if m == mDuration && f.durations != 0 {
				by += ", in " + unitName(f.durations)
			}
			p.use(field, l.path, by)
			return
		}
	}
	p.use(field, "", "format "+f.Name)
}

func unitName(u model.Unit) string {
	switch u {
	case model.Nanoseconds:
		return "ns"
	case model.Microseconds:
		return "µs"
	case model.Milliseconds:
		return "ms"
	}
	return "s"
}

// whose says what gives a path its meaning: a term of the vocabulary, or
// the format's own names.
func whose(names []string, f *Format) string {
	if !isAppFormat(f) {
		return "format " + f.Name
	}
	if ti, ok := matchTerm(names, nil); ok {
		return "vocabulary (" + vocabulary[ti].from + ")"
	}
	for i := range names {
		if ti, ok := matchTerm(names[:i+1], nil); ok && vocabulary[ti].means == mResBody {
			return "vocabulary (" + vocabulary[ti].from + "), the response body's id"
		}
	}
	return "format " + f.Name
}

// isAppFormat reports whether f reads its lines by the vocabulary.
func isAppFormat(f *Format) bool { return f.vocabulary }

// recordLeaves lists r's values at their gjson paths, bounded.
func recordLeaves(r *record) []leaf {
	var out []leaf
	var walk func(v gjson.Result, path string, names []string, depth int)
	walk = func(v gjson.Result, path string, names []string, depth int) {
		if len(out) >= maxExplainLeaves {
			return
		}
		if v.IsObject() && depth < maxExplainDepth {
			v.ForEach(func(k, val gjson.Result) bool {
				sub := append(names[:len(names):len(names)], nameParts(k.Str)...)
				walk(val, path+"."+gjsonName(k.Str), sub, depth+1)
				return len(out) < maxExplainLeaves
			})
			return
		}
		if v.IsArray() && depth < maxExplainDepth {
			a := v.Array()
			if len(a) != 1 || a[0].IsObject() || a[0].IsArray() {
				// Each element at its index (log4js's data, .NET's Scopes).
				for i, e := range a {
					walk(e, path+"."+strconv.Itoa(i), names, depth+1)
				}
				return
			}
		}
		if v.IsObject() || v.IsArray() && len(v.Array()) != 1 {
			return
		}
		out = append(out, leaf{path: path[1:], names: names, v: v})
	}
	for i, k := range r.keys {
		walk(r.val(i), "."+gjsonName(k), nameParts(k), 1)
	}
	return out
}

// nameParts is a member's name as the vocabulary reads it: split at dots,
// normalised.
func nameParts(k string) []string {
	parts := strings.Split(k, ".")
	for i := range parts {
		parts[i] = normName(parts[i])
	}
	return parts
}

// gjsonName escapes a member's name for a gjson path.
func gjsonName(k string) string {
	if !strings.ContainsAny(k, ".*?|#@\\") {
		return k
	}
	var b strings.Builder
	for i := 0; i < len(k); i++ {
		if strings.IndexByte(".*?|#@\\", k[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(k[i])
	}
	return b.String()
}

// FieldUseText is a use as a line of text: "request_id ← meta.req.headers.x-request-id (vocabulary (loggers); 12 lines)".
func FieldUseText(u model.FieldUse) string {
	path := u.Path
	if path == "" {
		path = "(not a named field)"
	}
	return u.Field + " ← " + path + " (" + u.By + "; " + strconv.Itoa(u.Lines) + " " + plural(u.Lines, "line", "lines") + ")"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
