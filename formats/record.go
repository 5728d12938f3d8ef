package formats

import (
	"strconv"
	"strings"
	"unsafe"

	"github.com/idem-cli/idem/formats/grammar"

	"github.com/tidwall/gjson"
)

// record is one JSON object's top-level members, read in a single pass.
// Values point into the line's buffer: copy what outlives the line.
type record struct {
	// keys are the members' names: keyBuf's, or the shape's own when the
	// line was read by its separators (never appended to then).
	keys   []string
	keyBuf []string
	// vals are the members' values as bounds in text, turned into
	// gjson.Results only when read (val): most members of a line are
	// never read, and bounds hold no pointers for the collector to follow.
	vals []member
	// loaded holds the values of a record loaded from a gjson.Result
	// (load), whose bounds are not known; nil for a scanned line.
	loaded []gjson.Result
	// shape, once known, indexes the members by name (shared by every
	// record with the same key set).
	shape *shape
	// tooDeep tells why the last scan failed: nesting past the bound.
	tooDeep bool
	// ctl says a string of the last scan held raw control bytes.
	ctl bool
	// odd names the first member read for a model field whose value was of
	// an impossible type (an object for a status, several values for a
	// key), and what was made of it; "" when none.
	odd string
	// hinted says the scan found exactly the key set of hint (see
	// scanObjectLike).
	hinted bool
	hint   *shape
	// laidOut says the scan read the line by hint's separators.
	laidOut bool
	// text is the object's JSON text as read, for the formats that need
	// nested paths across members (it points into the line buffer).
	text string
}

// shape is what is known about a key set: its format, where each member
// is, and which members may carry secrets. Computed once per key set.
type shape struct {
	format  *format
	keys    []string // the member names, in order
	index   map[string]int
	secrets []int // members named like credentials
	// plainKeys: no name repeats or holds a quote, a backslash or a
	// control byte, so a line's raw names can be compared with these.
	plainKeys bool
	headers   []int // members that hold header maps to look into
	body      string
	// resolved[pathSet.id] caches where each alias list is in this shape
	// (nil: not worked out yet).
	resolved [][]candidate
	// seps are the texts before each member's value in a line of this
	// shape (`{"a":`, `,"b": `), when its keys are plain; layouts counts
	// how many lines they were taken from, bounded for a log whose lines
	// are laid out differently.
	seps    []string
	layouts int
	// sepWords are seps as words and masks, compared without a call.
	sepWords []sepWords
	// vocab is what the key set holds for the vocabulary (vocabPlan).
	vocab *vocabPlan
}

// sepWords is a separator of up to 32 bytes as four little-endian words
// and the masks of its bytes in them; long says it is longer.
type sepWords struct {
	w, m [4]uint64
	long bool
}

// wordsOf lays sep out as sepWords.
func wordsOf(sep string) sepWords {
	var sw sepWords
	if len(sep) > 32 {
		sw.long = true
		return sw
	}
	for i := 0; i < len(sep); i++ {
		sw.w[i/8] |= uint64(sep[i]) << (8 * (i % 8))
		sw.m[i/8] |= 0xFF << (8 * (i % 8))
	}
	return sw
}

// maxLayouts bounds how many times a shape's separators are taken again.
const maxLayouts = 8

// learnLayout takes the separators of the scanned line r, of this shape,
// for the next lines to be read by (see scanObjectLike).
func (sh *shape) learnLayout(r *record) {
	if !sh.plainKeys || r.loaded != nil || len(r.vals) != len(sh.keys) || sh.layouts >= maxLayouts {
		return
	}
	sh.layouts++
	seps := make([]string, len(r.vals))
	words := make([]sepWords, len(r.vals))
	prev := uint32(0)
	for i, m := range r.vals {
		seps[i] = strings.Clone(r.text[prev:m.start])
		words[i] = wordsOf(seps[i])
		prev = m.end
	}
	sh.seps, sh.sepWords = seps, words
}

// member is one top-level value: its raw JSON in the record's text.
type member struct {
	start, end uint32 // text[start:end] is the raw value
	kind       gjson.Type
	esc        bool // a string holding escapes, decoded when read
}

// val returns member i's value.
func (r *record) val(i int) gjson.Result {
	if r.loaded != nil {
		return r.loaded[i]
	}
	m := &r.vals[i]
	v := gjson.Result{Type: m.kind, Raw: r.text[m.start:m.end]}
	switch v.Type {
	case gjson.String:
		if m.esc {
			v.Str = gjson.Parse(v.Raw).Str
		} else {
			v.Str = v.Raw[1 : len(v.Raw)-1]
		}
	case gjson.Number:
		// The scan checked the number; out of range reads as ±Inf.
		v.Num, _ = strconv.ParseFloat(v.Raw, 64)
	}
	return v
}

// valString is member i's value when it is a string, without building a
// gjson.Result for the usual one without escapes.
func (r *record) valString(i int) (string, bool) {
	if r.loaded != nil {
		v := &r.loaded[i]
		return v.Str, v.Type == gjson.String
	}
	m := &r.vals[i]
	if m.kind != gjson.String {
		return "", false
	}
	if m.esc {
		return r.unescape(m), true
	}
	return r.text[m.start+1 : m.end-1], true
}

// unescape decodes a string member holding escapes.
func (r *record) unescape(m *member) string { return gjson.Parse(r.text[m.start:m.end]).Str }

// bytesToString views b as a string without copying; the string is only
// valid while b is unchanged.
func bytesToString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// stringBytes views s as bytes without copying: a line handed on as a
// string, read again as bytes. Nothing may write to them.
func stringBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// load reads the top-level members of obj (which must be a valid JSON object).
func (r *record) load(obj gjson.Result) {
	r.odd = ""
	r.keys = r.keyBuf[:0]
	r.laidOut = false
	r.vals = r.vals[:0]
	r.loaded = r.loaded[:0]
	r.shape = nil
	r.text = obj.Raw
	obj.ForEach(func(k, v gjson.Result) bool {
		r.keys = append(r.keys, k.Str)
		r.loaded = append(r.loaded, v)
		return true
	})
	r.keyBuf = r.keys
}

// signature identifies the record's key set (in order) for the shape
// cache. It mixes each name's length and its first and last bytes, which is
// enough to tell key sets apart in practice; shapeOf then compares the
// names themselves, so a collision costs a lookup, never a wrong answer.
func (r *record) signature() uint64 {
	h := uint64(len(r.keys)) * 0x9e3779b97f4a7c15
	for _, k := range r.keys {
		v := uint64(len(k))
		if len(k) > 0 {
			v |= uint64(k[0])<<8 | uint64(k[len(k)-1])<<16 | uint64(k[len(k)/2])<<24
		}
		h = (h ^ v) * 0x100000001b3
		h ^= h >> 29
	}
	return h
}

func (r *record) has(key string) bool {
	if r.shape != nil {
		_, ok := r.shape.index[key]
		return ok
	}
	for _, k := range r.keys {
		if k == key {
			return true
		}
	}
	return false
}

// hasAny reports whether any of keys is a member.
func (r *record) hasAny(keys ...string) bool {
	for _, k := range keys {
		if r.has(k) {
			return true
		}
	}
	return false
}

// count returns how many of keys are members.
func (r *record) count(keys ...string) int {
	n := 0
	for _, k := range keys {
		if r.has(k) {
			n++
		}
	}
	return n
}

// get returns the member named key, or a result that does not exist.
func (r *record) get(key string) gjson.Result {
	if r.shape != nil {
		if i, ok := r.shape.index[key]; ok {
			return r.val(i)
		}
		return gjson.Result{}
	}
	for i, k := range r.keys {
		if k == key {
			return r.val(i)
		}
	}
	return gjson.Result{}
}

// path resolves a gjson path whose first segment is a top-level member:
// "req.headers.x-request-id" looks up "req" here, then the rest in its value.
func (r *record) path(p string) gjson.Result {
	first, rest, nested := strings.Cut(p, ".")
	if strings.Contains(first, `\`) || strings.HasPrefix(p, "[") {
		// An escaped dot belongs to the key itself, and a multipath
		// ("[a,b]") spans members: let gjson resolve it.
		return gjson.Get(r.raw(), p)
	}
	v := r.get(first)
	if !nested || !v.Exists() {
		return v
	}
	return v.Get(rest)
}

// raw is the object's JSON text, for paths that cannot be resolved
// member-wise and for formats that read nested values across members.
func (r *record) raw() string { return r.text }

// str returns the first of paths that holds a present value, as a string.
// nginx writes "" or "-" for a variable it does not have, Envoy writes "-":
// both mean absent.
func (r *record) str(paths ...string) string {
	for _, p := range paths {
		if s := present(r.path(p)); s != "" {
			return s
		}
	}
	return ""
}

// present turns a value into its string form, or "" when it is absent,
// empty, "-", null, or a container.
// presentString is present for a string value: trimmed, and "-" (nginx's
// and Apache's "no value") is nothing.
func presentString(s string) string {
	if s != "" && (s[0] <= ' ' || s[len(s)-1] <= ' ') {
		s = strings.TrimSpace(s)
	}
	if s == "-" {
		return ""
	}
	return s
}

func present(v gjson.Result) string {
	switch v.Type {
	case gjson.String:
		return presentString(v.Str)
	case gjson.Number:
		return v.Raw
	case gjson.True:
		return "true"
	case gjson.False:
		return "false"
	case gjson.JSON:
		// A one-element array of strings, as in OTel header attributes
		// and Caddy's header maps.
		if v.IsArray() {
			if a := v.Array(); len(a) > 0 {
				return present(a[0])
			}
		}
	}
	return ""
}

// intValue reads an integer written as a number or a string; for comma or
// colon lists (nginx $upstream_status "504, 201") it takes the last value,
// the response that was finally used.
func intValue(s string) (int, bool) {
	if n, ok := smallUint(s); ok {
		return n, true // the usual "201": no search, no float
	}
	if i := strings.LastIndexAny(s, ",:"); i >= 0 {
		s = s[i+1:]
	}
	s = strings.TrimSpace(s)
	if s == "" || s == "-" {
		return 0, false
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f >= -1e9 && f <= 1e9 {
		return int(f), true
	}
	return 0, false
}

// smallUint reads 1 to 9 decimal digits and nothing else.
func smallUint(s string) (int, bool) {
	if len(s) == 0 || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i] - '0'
		if c > 9 {
			return 0, false
		}
		n = n*10 + int(c)
	}
	return n, true
}

// header finds a header value in the shapes logs use for header maps: an
// object of name → string or name → [string] (pino-http, Caddy), or an array
// of {name, value} (HAR). Names compare case-insensitively.
func header(h gjson.Result, name string) string {
	var out string
	if h.IsArray() {
		h.ForEach(func(_, e gjson.Result) bool {
			if strings.EqualFold(e.Get("name").Str, name) {
				out = present(e.Get("value"))
				return false
			}
			return true
		})
		return out
	}
	h.ForEach(func(k, v gjson.Result) bool {
		if strings.EqualFold(k.Str, name) {
			out = present(v)
			return false
		}
		return true
	})
	return out
}

// requestHeader returns the value of the request header that means f in
// the grammar's one list (grammar.RequestHeader): X-Request-Id,
// Request-Id or X-Correlation-Id for a request id, Idempotency-Key or
// X-Idempotency-Key for a key; the highest-ranked where a line logs
// several. h is a header map or a HAR's [{name, value}] list.
func requestHeader(h gjson.Result, f grammar.Field) string {
	var out string
	best := int8(-1)
	consider := func(name string, v gjson.Result) {
		if g, rank := grammar.RequestHeader(name); g == f && rank > best {
			if s := present(v); s != "" {
				out, best = s, rank
			}
		}
	}
	h.ForEach(func(k, v gjson.Result) bool {
		if h.IsArray() {
			consider(v.Get("name").Str, v.Get("value"))
		} else {
			consider(k.Str, v)
		}
		return true
	})
	return out
}

// pathSet is a list of alias paths for one model field, declared once at
// package level so that each shape can resolve it once: which member holds
// each alias, and the rest of its path.
type pathSet struct {
	id    int
	paths []string
}

var pathSets []*pathSet

func newPaths(paths ...string) *pathSet {
	ps := &pathSet{id: len(pathSets), paths: paths}
	pathSets = append(pathSets, ps)
	return ps
}

// candidate is an alias present in a shape: a member, and a path in it.
type candidate struct {
	member int
	rest   string
	full   string // a path that cannot be split at dots; resolved whole
}

// strs is str for a declared path set: the first present value.
func (r *record) strs(ps *pathSet) string {
	sh := r.shape
	if sh == nil {
		return r.str(ps.paths...)
	}
	// The shape's kept answer for ps, and valString for a plain string,
	// by hand: a line asks a dozen sets, and the calls cost as much as
	// the answers.
	var cands []candidate
	if ps.id < len(sh.resolved) {
		cands = sh.resolved[ps.id]
	}
	if cands == nil {
		cands = sh.resolve(ps)
	}
	for i := range cands {
		c := &cands[i]
		if c.full == "" && c.rest == "" {
			if r.loaded == nil {
				if m := &r.vals[c.member]; m.kind == gjson.String && !m.esc {
					s := r.text[m.start+1 : m.end-1]
					if s != "" && s[0] > ' ' && s[len(s)-1] > ' ' && s != "-" {
						return s // presentString's answer, without the call
					}
					if s = presentString(s); s != "" {
						return s
					}
					continue
				}
			}
			// A top-level string, the usual case: no copy of the Result.
			if str, ok := r.valString(c.member); ok {
				if s := presentString(str); s != "" {
					return s
				}
				continue
			}
		}
		var v gjson.Result
		switch {
		case c.full != "":
			v = gjson.Get(r.raw(), c.full)
		case c.rest == "":
			v = r.val(c.member)
		default:
			v = r.val(c.member).Get(c.rest)
		}
		if v.Type == gjson.JSON {
			r.noteOdd(v, c.name(r))
		}
		if s := present(v); s != "" {
			return s
		}
	}
	return ""
}

// holdsAny reports whether the record may hold one of ps's aliases: a
// shape says so once for all its lines (without one, it may).
func (r *record) holdsAny(ps *pathSet) bool {
	sh := r.shape
	if sh == nil {
		return true
	}
	var cands []candidate
	if ps.id < len(sh.resolved) {
		cands = sh.resolved[ps.id]
	}
	if cands == nil {
		cands = sh.resolve(ps)
	}
	return len(cands) > 0
}

// name is the candidate's path in the record, for messages.
func (c *candidate) name(r *record) string {
	if c.full != "" || c.member < 0 || c.member >= len(r.keys) {
		return c.full
	}
	if c.rest == "" {
		return r.keys[c.member]
	}
	return r.keys[c.member] + "." + c.rest
}

// noteOdd remembers a member read for a model field whose value is of an
// impossible type: an object, or an array of more than one value (only
// its first is read).
func (r *record) noteOdd(v gjson.Result, name string) {
	if r.odd != "" || v.Type != gjson.JSON {
		return
	}
	switch {
	case v.IsObject():
		r.odd = "field " + name + " is an object, not a value: ignored"
	case v.IsArray():
		if n := len(v.Array()); n > 1 {
			r.odd = "field " + name + " holds " + strconv.Itoa(n) + " values: the first was read"
		} else if n == 1 && v.Array()[0].Type == gjson.JSON {
			r.odd = "field " + name + " holds a structure, not a value: ignored"
		}
	}
}

// resolve works out which aliases of ps are present in the shape, in
// order, and keeps the answer in sh.resolved.
func (sh *shape) resolve(ps *pathSet) []candidate {
	for len(sh.resolved) <= ps.id {
		sh.resolved = append(sh.resolved, nil)
	}
	cands := []candidate{} // not nil: known to be none
	for _, p := range ps.paths {
		first, rest, _ := strings.Cut(p, ".")
		if strings.Contains(first, `\`) {
			cands = append(cands, candidate{member: -1, full: p})
			continue
		}
		if i, ok := sh.index[first]; ok {
			cands = append(cands, candidate{member: i, rest: rest})
		}
	}
	sh.resolved[ps.id] = cands
	return cands
}
