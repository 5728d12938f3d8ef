package formats

import (
	"strings"
	"time"

	"github.com/idem-cli/idem/model"
	"github.com/tidwall/gjson"
)

// Reading a record by the vocabulary (vocabulary.go), at any depth. What a
// key set holds at its top level is worked out once per key set (a
// vocabPlan): the members whose dotted names are terms, and the objects
// worth entering (a wrapper, or the head of a term). A line then reads
// those members and walks those objects, bounded in depth and in the
// members it looks at, so that a hostile nested line costs little. It
// fills only what the format's own reading left empty.

// Bounds of the deep reading of one record.
const (
	maxVocabDepth = 8   // objects within objects
	maxVocabNodes = 256 // members looked at
)

// vocabPlan is what a key set holds for the vocabulary.
type vocabPlan struct {
	flat []flatTerm // top-level members named like a term, not read by the top-level aliases
	walk []int      // top-level members to enter when their value is an object
}

type flatTerm struct {
	member int
	term   int
}

// vocabFind is the preferred value found for one meaning.
type vocabFind struct {
	term int // index in vocabulary; -1 for none
	v    gjson.Result
	path string // where it was, when the parser explains
}

// vocabReader is a parser's scratch for the deep reading.
type vocabReader struct {
	found [numMeanings]vocabFind
	names []string // normalised names on the way down
	raws  []string // the same names as written
	key   []byte
	nodes int
	norms map[string]string
	paths bool // keep where each find was (explaining)
}

// plan works out (once per key set) what the record's members hold for
// the vocabulary.
func (sh *shape) vocabPlan(keys []string) *vocabPlan {
	if sh != nil && sh.vocab != nil {
		return sh.vocab
	}
	pl := &vocabPlan{}
	for i, k := range keys {
		names := strings.Split(k, ".")
		for j := range names {
			names[j] = normName(names[j])
		}
		if ti, ok := matchTerm(names, nil); ok {
			// A top-level alias without a dot is read by the path sets; a
			// dotted name is a member of its own, which they do not see.
			if t := &vocabulary[ti]; !t.top || t.path != k || strings.Contains(k, ".") {
				pl.flat = append(pl.flat, flatTerm{member: i, term: ti})
			}
		}
		if viablePath(names, nil) {
			pl.walk = append(pl.walk, i)
		}
	}
	if sh != nil {
		sh.vocab = pl
	}
	return pl
}

// leadingWrappers counts the wrapper names names starts with.
func leadingWrappers(names []string) int {
	w := 0
	for w < len(names) && wrappers[names[w]] {
		w++
	}
	return w
}

// matchTerm finds the longest term that names ends with, below nothing
// but wrappers. buf is scratch space for the joined names.
func matchTerm(names []string, buf *[]byte) (int, bool) {
	w := leadingWrappers(names)
	var b []byte
	if buf != nil {
		b = (*buf)[:0]
	}
	for l := min(len(names), maxTermNames); l >= 1 && l >= len(names)-w; l-- {
		b = joinNames(b[:0], names[len(names)-l:])
		if ti, ok := termIndex[string(b)]; ok {
			if buf != nil {
				*buf = b
			}
			return ti, true
		}
	}
	if buf != nil {
		*buf = b
	}
	return 0, false
}

// viablePath reports whether an object at names may hold a term: below
// nothing but wrappers, or on the way into a term's path.
func viablePath(names []string, buf *[]byte) bool {
	w := leadingWrappers(names)
	if w == len(names) {
		return true
	}
	var b []byte
	if buf != nil {
		b = (*buf)[:0]
	}
	b = joinNames(b, names[w:])
	ok := termPrefixes[string(b)]
	if buf != nil {
		*buf = b
	}
	return ok
}

func joinNames(b []byte, names []string) []byte {
	for i, n := range names {
		if i > 0 {
			b = append(b, '.')
		}
		b = append(b, n...)
	}
	return b
}

// readVocabulary reads r by the vocabulary into vr.found, for what the
// format's reading left empty.
func (p *Parser) readVocabulary(r *record) *vocabReader {
	pl := r.shape.vocabPlan(r.keys)
	if len(pl.flat) == 0 && len(pl.walk) == 0 {
		return nil
	}
	vr := &p.vocab
	for i := range vr.found {
		vr.found[i] = vocabFind{term: -1}
	}
	vr.nodes = 0
	for _, f := range pl.flat {
		vr.names, vr.raws = vr.names[:0], append(vr.raws[:0], r.keys[f.member])
		vr.offer(f.term, r.val(f.member))
	}
	for _, i := range pl.walk {
		v := r.val(i)
		if !v.IsObject() && !v.IsArray() {
			continue
		}
		vr.names, vr.raws = vr.names[:0], vr.raws[:0]
		vr.push(r.keys[i])
		vr.walk(v, 1)
	}
	return vr
}

// push enters a member: its name, split at dots, normalised.
func (vr *vocabReader) push(name string) {
	vr.raws = append(vr.raws, name)
	for {
		part, rest, more := strings.Cut(name, ".")
		vr.names = append(vr.names, vr.norm(part))
		if !more {
			return
		}
		name = rest
	}
}

// norm is normName, remembered for the names a log repeats.
func (vr *vocabReader) norm(s string) string {
	if n, ok := vr.norms[s]; ok {
		return n
	}
	n := normName(s)
	if n == s {
		return n
	}
	if vr.norms == nil {
		vr.norms = map[string]string{}
	}
	if len(vr.norms) < 4096 {
		vr.norms[strings.Clone(s)] = n
	}
	return n
}

// walk looks at an object's members, and into those that may hold terms;
// an array's objects are each looked at as the array's own (.NET's
// Scopes).
func (vr *vocabReader) walk(obj gjson.Result, depth int) {
	if obj.IsArray() {
		obj.ForEach(func(_, e gjson.Result) bool {
			vr.nodes++
			if e.IsObject() && vr.nodes <= maxVocabNodes {
				vr.walk(e, depth+1)
			}
			return vr.nodes <= maxVocabNodes
		})
		return
	}
	obj.ForEach(func(k, v gjson.Result) bool {
		vr.nodes++
		if vr.nodes > maxVocabNodes {
			return false
		}
		n, nr := len(vr.names), len(vr.raws)
		vr.push(k.Str)
		enter := (v.IsObject() || v.IsArray()) && depth < maxVocabDepth
		if ti, ok := matchTerm(vr.names, &vr.key); ok {
			vr.offer(ti, v)
			if m := vocabulary[ti].means; m == mBody || m == mResBody {
				enter = false // a payload's own fields are no request's
			}
		}
		if enter && viablePath(vr.names, &vr.key) {
			vr.walk(v, depth+1)
		}
		vr.names, vr.raws = vr.names[:n], vr.raws[:nr]
		return true
	})
}

// offer keeps v for the term's meaning when nothing preferred was found.
func (vr *vocabReader) offer(ti int, v gjson.Result) {
	t := &vocabulary[ti]
	f := &vr.found[t.means]
	if f.term >= 0 && f.term <= ti {
		return
	}
	switch t.means {
	case mBody, mResBody:
		if !v.IsObject() && (v.Type != gjson.String || v.Str == "") {
			return
		}
	default:
		if v.IsObject() || present(v) == "" {
			return
		}
	}
	f.term, f.v = ti, v
	if vr.paths {
		f.path = strings.Join(vr.raws, ".")
	}
}

// str is the value found for m, as a string ("" for none).
func (vr *vocabReader) str(m meaning) string {
	if f := &vr.found[m]; f.term >= 0 {
		return present(f.v)
	}
	return ""
}

// apply fills o's empty fields with what the vocabulary found.
func (vr *vocabReader) apply(r *record, o *model.Observation) {
	if o.Time.IsZero() {
		if s := vr.str(mTime); s != "" {
			o.Time, _ = model.ParseTime(s)
		}
	}
	if o.RequestID == "" {
		o.RequestID = processScoped(o.Process, vr.str(mRequestID), o.Source)
	}
	if o.Key == "" {
		o.Key = model.NormalizeKey(vr.str(mKey))
	}
	if o.KeyHash == "" {
		o.KeyHash = vr.str(mKeyHash)
	}
	if o.Method == "" {
		o.Method = httpMethod(vr.str(mMethod))
	}
	if o.Route == "" {
		o.Route = routePath(vr.str(mRoute))
	}
	if o.Status == 0 {
		if st, ok := intValue(vr.str(mStatus)); ok && st >= 100 && st < 1000 {
			o.Status = st
		}
	}
	if o.Decision == "" {
		o.Decision = strings.ToLower(vr.str(mDecision))
	}
	if o.State == "" {
		o.State = strings.ToLower(vr.str(mState))
	}
	if o.Fingerprint == "" {
		o.Fingerprint = vr.str(mFingerprint)
	}
	if o.Fingerprint == "" && vr.found[mBody].term >= 0 {
		o.Fingerprint = model.FingerprintValue(vr.found[mBody].v)
	}
	if o.ResultID == "" {
		o.ResultID = vr.str(mResultID)
	}
	if o.ResultID == "" && vr.found[mResBody].term >= 0 {
		o.ResultID = createdID(vr.found[mResBody].v)
	}
	if o.Message == "" {
		o.Message = vr.str(mMessage)
	}
	if o.Attempt == 0 {
		o.Attempt, _ = intValue(vr.str(mAttempt))
	}
	if o.Client == "" {
		o.Client = vr.str(mClient)
	}
	if o.Outcome == model.OutcomeUnknown {
		if oc := vr.str(mOutcome); oc != "" {
			o.Outcome = model.ParseOutcome(strings.ToLower(oc))
		}
	}
	if strings.EqualFold(vr.str(mReplayed), "true") {
		o.Replayed = true
	}
	if vr.str(mRetryAfter) != "" {
		o.RetryAfter = true
	}
	if o.Detail == "" {
		o.Detail = vr.str(mError)
	}
	if f := &vr.found[mRetryMark]; f.term >= 0 && o.RetryMark == "" {
		markRetry(o, retryHeaderOfTerm(vocabulary[f.term].path), present(f.v))
	}
	if o.PreviousKey == "" {
		o.PreviousKey = model.NormalizeKey(vr.str(mPrevKey))
	}
	if o.RequestID == "" && (o.Key != "" || o.Method != "") {
		o.RequestID = traceDelivery(vr.str(mTraceID))
	}
}

// duration is the duration found, in its term's unit (or unit, the
// format's, for a bare name); 0 for none.
func (vr *vocabReader) duration(unit model.Unit) time.Duration {
	f := &vr.found[mDuration]
	if f.term < 0 {
		return 0
	}
	if u := vocabulary[f.term].unit; u != 0 {
		unit = u
	}
	return durationValue(f.v, unit)
}

// createdID is the id a response body gives what the request created: its
// "id", or a result id's name among its members.
func createdID(body gjson.Result) string {
	if body.Type == gjson.String {
		body = gjson.Parse(body.Str)
	}
	if !body.IsObject() {
		return ""
	}
	if id := present(body.Get("id")); id != "" {
		return id
	}
	for _, k := range resultAliases {
		if id := present(body.Get(k)); id != "" {
			return id
		}
	}
	return ""
}
