package formats

import (
	"regexp"
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
func (p *Parser) explainRecord(r *record, o *model.Observation, f *format) {
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
func (p *Parser) explainFingerprint(r *record, o *model.Observation, f *format, leaves []leaf, mapped map[string]string) {
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
func (p *Parser) explainNamed(leaves []leaf, m meaning, field string, f *format) {
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
func whose(names []string, f *format) string {
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
func isAppFormat(f *format) bool { return f.vocabulary }

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

// Lines no format read that look like HTTP requests: a method, a
// request target and a three-digit status on one line. Such a file must
// not be passed off as saying nothing about a request: they are counted
// (Result.RequestLines), and the first is laid out as a config pattern
// (docs/config.md) naming the position of each field found, for the
// user to paste and correct. The pattern holds no value of the line:
// each field is matched by its kind, a key=value pair by its name.

// unreadRequestReason is why such a line is skipped.
const unreadRequestReason = "looks like an HTTP request (a method, a path, a status) but no format reads it: see the --config to start from"

// unreadRequest counts s, a line no format read, when it looks like a
// request, and reports whether it does; the first such line of the batch
// that lays out as a pattern gives it.
func (p *Parser) unreadRequest(s string, src model.Source) bool {
	if _, ok := findRequest(s); !ok || !hasStatus(s) {
		return false
	}
	p.out.RequestLines++
	if p.out.RequestPattern == "" {
		if pat, ok := requestPattern(s); ok {
			p.out.RequestFirst, p.out.RequestPattern = src, pat
		}
	}
	return true
}

// hasStatus reports whether a token of s is a three-digit status.
func hasStatus(s string) bool {
	for _, f := range shapeFields(s) {
		if f.kind == ' ' {
			if _, ok := statusToken(f.text); ok {
				return true
			}
		}
	}
	return false
}

// shapeField is one field of a line: a run of non-spaces (kind ' '), a
// quoted string ('"', its quotes off) or a bracketed one ('[').
type shapeField struct {
	kind byte
	text string
}

// maxShapeFields bounds the fields looked at in one line.
const maxShapeFields = 64

// shapeFields splits s at spaces and tabs, keeping quoted and bracketed
// fields whole.
func shapeFields(s string) []shapeField {
	var out []shapeField
	for i := 0; i < len(s) && len(out) < maxShapeFields; {
		if s[i] == ' ' || s[i] == '\t' {
			i++
			continue
		}
		switch s[i] {
		case '"':
			j := i + 1
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			out = append(out, shapeField{'"', s[i+1 : min(j, len(s))]})
			i = j + 1
		case '[':
			j := strings.IndexByte(s[i:], ']')
			if j < 0 {
				j = len(s) - i
			}
			out = append(out, shapeField{'[', s[i+1 : i+j]})
			i += j + 1
		default:
			j := i
			for j < len(s) && s[j] != ' ' && s[j] != '\t' {
				j++
			}
			out = append(out, shapeField{' ', s[i:j]})
			i = j
		}
	}
	return out
}

// requestPattern lays out a line that looks like an HTTP request as a
// config pattern's regular expression: the time, method, route, status,
// duration (where written with its unit) and any id-shaped or named id
// field as named groups, every other field by its kind, up to the last
// field named. It reports false where the line holds no request line
// and status.
func requestPattern(s string) (string, bool) {
	fs := shapeFields(s)
	var b strings.Builder
	b.WriteString("^")
	named := map[string]bool{}
	end := 0 // the pattern's length after the last named field
	sep := ""
	add := func(re string, names ...string) {
		b.WriteString(sep + re)
		sep = `\s+`
		for _, n := range names {
			named[n] = true
		}
		if len(names) > 0 {
			end = b.Len()
		}
	}
	for i := 0; i < len(fs); i++ {
		f := fs[i]
		switch f.kind {
		case '[':
			if t, ok := model.ParseTime(f.text); ok && !named["time"] && !t.IsZero() && strings.ContainsAny(f.text, "/-:") {
				add(`\[(?P<time>[^\]]*)\]`, "time")
			} else {
				add(`\[[^\]]*\]`)
			}
			continue
		case '"':
			if quotedRequest(f.text) && !named["method"] {
				add(`"(?P<method>[A-Z]+) (?P<route>[^ "]+)[^"]*"`, "method", "route")
				continue
			}
			if generatedID(f.text) {
				if id := nextID(named); id != "" {
					add(`"(?P<`+id+`>[^"]*)"`, id)
					continue
				}
			}
			add(`"(?:[^"\\]|\\.)*"`)
			continue
		}
		t := f.text
		switch {
		case !named["time"] && timeToken(t) && i+1 < len(fs) && fs[i+1].kind == ' ' && clockToken(fs[i+1].text):
			if _, ok := model.ParseTime(t + " " + fs[i+1].text); ok {
				add(`(?P<time>\S+\s+\S+)`, "time")
				i++
				continue
			}
		case !named["time"] && timeToken(t):
			if _, ok := model.ParseTime(t); ok {
				add(`(?P<time>\S+)`, "time")
				continue
			}
		case !named["method"] && isMethod(t) && i+1 < len(fs) && fs[i+1].kind == ' ' && targetToken(fs[i+1].text):
			add(`(?P<method>[A-Z]+)\s+(?P<route>\S+)`, "method", "route")
			i++
			continue
		}
		if _, ok := statusToken(t); ok && !named["status"] {
			add(`(?P<status>\d{3})`, "status")
			continue
		}
		if _, ok := durationToken(t); ok && !named["duration_ms"] && t[0] >= '0' && t[0] <= '9' {
			add(`(?P<duration_ms>[0-9.]+[a-zµμ]+)`, "duration_ms")
			continue
		}
		if k, v, ok := strings.Cut(t, "="); ok && v != "" && plainName(k) {
			if id := namedID(k); id != "" && !named[id] {
				add(regexp.QuoteMeta(k)+`=(?P<`+id+`>\S+)`, id)
				continue
			}
		}
		if generatedID(t) {
			if id := nextID(named); id != "" {
				add(`(?P<`+id+`>\S+)`, id)
				continue
			}
		}
		add(`\S+`)
	}
	if !named["method"] || !named["status"] {
		return "", false
	}
	return b.String()[:end], true
}

// quotedRequest reports whether s is a request line: "METHOD target[ HTTP/x]".
func quotedRequest(s string) bool {
	m, rest, ok := strings.Cut(s, " ")
	target, _, _ := strings.Cut(rest, " ")
	return ok && isMethod(m) && targetToken(target)
}

func isMethod(t string) bool {
	for _, m := range httpMethods {
		if t == m {
			return true
		}
	}
	return false
}

// targetToken: a path or an absolute URL.
func targetToken(t string) bool {
	return strings.HasPrefix(t, "/") || strings.HasPrefix(t, "http://") || strings.HasPrefix(t, "https://")
}

// timeToken: a date or date and time as logs begin with (a digit, and a
// date's or clock's separator); a bare number is never taken for one.
func timeToken(t string) bool {
	return t != "" && t[0] >= '0' && t[0] <= '9' && strings.ContainsAny(t, "-/") && !strings.Contains(t, "//")
}

func clockToken(t string) bool {
	return len(t) >= 5 && t[0] >= '0' && t[0] <= '9' && t[2] == ':'
}

// plainName: a field's name that may stand in a pattern as it is.
func plainName(k string) bool {
	if k == "" || len(k) > 40 {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// namedID is the field a key=value pair's name says it is.
func namedID(k string) string {
	switch normName(k) {
	case "requestid", "reqid", "xrequestid", "correlationid", "xcorrelationid":
		return "request_id"
	case "idempotencykey", "xidempotencykey", "idemkey":
		return "key"
	}
	return ""
}

// nextID is the group an unnamed id-shaped value gets: the first is
// taken for the request id, the second for the key, for the user to
// correct.
func nextID(named map[string]bool) string {
	switch {
	case !named["request_id"]:
		return "request_id"
	case !named["key"]:
		return "key"
	}
	return ""
}
