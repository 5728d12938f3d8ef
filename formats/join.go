package formats

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/idem-cli/idem/model"
)

// Fields found by the values they join. Where no vocabulary or format
// names a line's request id or key, another input does: the ids any
// tier's lines name (a proxy's request ids, a server's, a browser's keys
// and response bodies' ids) are known, and a field of another input whose
// values are those same ids is that input's request id (or key, or result
// id) field. Learning goes both ways: a server's unnamed JSON field
// learned from the ids a proxy names, and a proxy's unnamed positional
// field (an Apache or nginx line with the ids appended after combined)
// learned from the ids the server's JSON names. A parser with Sample set
// keeps, for the records and text lines it could not fully name, a
// bounded sample of their values by path (a JSON path, or $N for a text
// line's Nth field; Result.Candidates); LearnJoinsFor checks them against
// the ids other inputs named; Config.Learn makes what joined the input's
// field mappings for the reading that follows. Nothing joins on a field
// that joined nothing, nor on a request id two trips named (per-process
// counters, a reused id): a join must be unique to one trip. A number
// (a status, a byte count, a duration) never joins: it names no request.

// Bounds of the sample one parser keeps.
const (
	maxSampledRecords  = 2000
	maxCandidatePaths  = 256 // 64 paths for each field lines lacked
	maxCandidateValues = 32
)

// sampleRecord keeps the values of a record whose observation (nil when
// the line was set aside) lacks a request id or a key, under each field
// it lacks: a path is learned for a field only from the lines that
// lacked it, so that what a line's own reading gives is never learned
// again.
func (p *Parser) sampleRecord(r *record, o *model.Observation) {
	if !p.Sample || p.sampled >= maxSampledRecords {
		return
	}
	needs, n := sampleNeeds(o)
	if n == 0 {
		return
	}
	p.sampled++
	if p.out.Candidates == nil {
		p.out.Candidates = map[string][]string{}
	}
	for _, l := range recordLeaves(r) {
		s := present(l.v)
		if !joinable(s) {
			continue
		}
		for _, need := range needs[:n] {
			p.candidate(need, l.path, s)
		}
	}
}

// sampleNeeds are the fields o (nil for a line set aside) lacks, that
// its values may be sampled for.
func sampleNeeds(o *model.Observation) (needs [4]string, n int) {
	if o == nil || o.RequestID == "" || strings.HasPrefix(o.RequestID, "trace:") {
		needs[n] = needRequestID
		n++
	}
	if o == nil || o.RequestID == "" {
		needs[n] = needTraceID
		n++
	}
	if o == nil || o.Key == "" && o.KeyHash == "" {
		needs[n] = needKeyField
		n++
	}
	if n == 0 {
		return needs, 0
	}
	if o == nil || o.ResultID == "" {
		needs[n] = needResultID
		n++
	}
	return needs, n
}

// joinable reports whether a value may name one request: long enough
// to, short enough to keep, and not a number (a status, a byte count, a
// duration that happens to equal another log's id is no join); a number
// of 16 digits or more (a snowflake id) may.
func joinable(s string) bool {
	if len(s) < 4 || len(s) > 256 || s == "-" {
		return false
	}
	digits := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' || c == '-' && i == 0:
		default:
			return true
		}
	}
	return digits >= 16 && digits == len(s)
}

// textLine applies what was learned of a text input's positional fields
// to the observations its line s gave (from first on), and samples its
// fields where they lack an id. Only the outermost line is read so (a
// prefix unwrapped is part of the positions).
func (p *Parser) textLine(s string, first int) {
	learned := false
	if p.src != nil {
		for _, path := range p.src.fields {
			learned = learned || isPositional(path)
		}
	}
	if !learned && !p.Sample {
		return
	}
	fs := shapeFields(s)
	for i := first; i < len(p.out.Obs); i++ {
		o := &p.out.Obs[i]
		if learned {
			for name, path := range p.src.fields {
				if n, ok := fieldIndex(path); ok && n <= len(fs) && lacksField(o, name) {
					if v := fs[n-1].text; v != "" && v != "-" && len(v) <= MaxField {
						mappable[name](o, v)
						if p.Explain && o.Source.Line <= maxExplained {
							p.use(name, path, "config") // NoteJoins says what it joined
						}
					}
				}
			}
		}
		if p.Sample && p.sampled < maxSampledRecords {
			needs, n := sampleNeeds(o)
			if n == 0 {
				continue
			}
			p.sampled++
			if p.out.Candidates == nil {
				p.out.Candidates = map[string][]string{}
			}
			for j, f := range fs {
				if joinable(f.text) {
					for _, need := range needs[:n] {
						p.candidate(need, "$"+strconv.Itoa(j+1), f.text)
					}
				}
			}
		}
	}
}

// fieldIndex reads a text line's positional path, $N (from 1).
func fieldIndex(path string) (int, bool) {
	if len(path) < 2 || path[0] != '$' || !allDigits(path[1:]) || len(path) > 4 {
		return 0, false
	}
	n, _ := strconv.Atoi(path[1:])
	return n, n >= 1
}

// lacksField reports whether o lacks the learned field name, which a learned
// mapping may then set: never over what the line's own reading gave.
func lacksField(o *model.Observation, name string) bool {
	switch name {
	case "request_id", "trace_id":
		return o.RequestID == "" || strings.HasPrefix(o.RequestID, "trace:") && name == "request_id"
	case "key":
		return o.Key == "" && o.KeyHash == ""
	case "result_id":
		return o.ResultID == ""
	}
	return false
}

// What a sampled line lacked, before the path in Result.Candidates' keys.
const (
	needRequestID = "request_id\t"
	needTraceID   = "trace_id\t"
	needKeyField  = "key\t"
	needResultID  = "result_id\t"
)

// candidate keeps one sampled value, bounded.
func (p *Parser) candidate(need, path, s string) {
	k := need + path
	vals, ok := p.out.Candidates[k]
	if !ok && len(p.out.Candidates) >= maxCandidatePaths {
		return
	}
	if len(vals) >= maxCandidateValues || slices.Contains(vals, s) {
		return
	}
	if !ok {
		k = strings.Clone(k)
	}
	p.out.Candidates[k] = append(vals, strings.Clone(s))
}

// Known are the ids the inputs' lines named, each with what logged it
// ("proxy request ids"), and where (from): a value is learned from
// another input's naming it, never from its own.
type Known struct {
	RequestIDs map[string]string
	Keys       map[string]string
	ResultIDs  map[string]string
	from       map[knownKey]*knownFrom
}

type knownKey struct {
	field byte // 'r' request id, 'k' key, 'x' result id
	v     string
}

// knownFrom is where a known value was named: the first input, whether
// another input named it too, and whether two trips did.
type knownFrom struct {
	file, process string
	tier          model.Tier
	others        bool // another input named it too
	trips         bool // two trips named it: no join
}

// Add records what an observation names.
func (k *Known) Add(o *model.Observation) {
	if k.RequestIDs == nil {
		k.RequestIDs, k.Keys, k.ResultIDs = map[string]string{}, map[string]string{}, map[string]string{}
	}
	if k.from == nil {
		k.from = map[knownKey]*knownFrom{}
	}
	// Copies: an observation's strings view its batch's buffer.
	if o.RequestID != "" && len(k.RequestIDs) < 1<<16 {
		k.note('r', k.RequestIDs, o.RequestID, o, " request ids")
	}
	if o.Key != "" && len(k.Keys) < 1<<16 {
		k.note('k', k.Keys, o.Key, o, " keys")
	}
	if o.ResultID != "" && len(k.ResultIDs) < 1<<16 {
		k.note('x', k.ResultIDs, o.ResultID, o, " response bodies' ids")
	}
}

// note records v, named by o, and where.
func (k *Known) note(field byte, m map[string]string, v string, o *model.Observation, what string) {
	f := k.from[knownKey{field, v}]
	if f == nil {
		v = strings.Clone(v)
		m[v] = o.Tier.String() + what
		k.from[knownKey{field, v}] = &knownFrom{file: strings.Clone(o.Source.File), process: strings.Clone(o.Process), tier: o.Tier}
		return
	}
	if o.Source.File != f.file {
		f.others = true
	}
	if field != 'r' || f.trips {
		return // a key, a result id: many trips may name one
	}
	// A request id two trips named joins neither: another input of the
	// same tier is another process (another replica's counter); in one
	// input, a client's or a proxy's second line is a second trip, and a
	// server's line of another process is another trip (trace/process.go).
	switch {
	case o.Tier != f.tier:
	case o.Source.File != f.file:
		f.trips = true
	case o.Tier == model.TierClient || o.Tier == model.TierProxy:
		f.trips = true
	case o.Process != f.process:
		f.trips = true
	}
}

// Join is a field learned from the values it joined.
type Join struct {
	Field   string // request_id, trace_id, key or result_id
	Path    string // the gjson path in the input's lines
	Matched int    // distinct sampled values found in Of
	Sampled int    // distinct values sampled at the path
	Of      string // what logged them: "proxy request ids"
}

// By says what a learned field rests on, for what idem explains.
func (j Join) By() string {
	return fmt.Sprintf("joined %d of %d sampled values to %s", j.Matched, j.Sampled, j.Of)
}

// learnJoins finds, in an input's sampled values by path, the paths whose
// values are ids the certain tiers logged: at least two of them, and at
// least a quarter of what was sampled there. Each field may be learned at
// several paths (an access line and an effect line name the request id
// differently), those that joined most first. Paths named in skip are not
// considered (the input's own reading already gives them).
func learnJoins(candidates map[string][]string, known *Known, skip map[string]bool) []Join {
	return LearnJoinsFor("", candidates, known, skip)
}

// LearnJoinsFor is learnJoins for the input at self: only what other
// inputs named joins its values.
func LearnJoinsFor(self string, candidates map[string][]string, known *Known, skip map[string]bool) []Join {
	if known == nil || len(candidates) == 0 {
		return nil
	}
	keys := make([]string, 0, len(candidates))
	for k := range candidates {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the same answer whatever the map's order
	var out []Join
	for _, field := range []string{"request_id", "trace_id", "key", "result_id"} {
		var found []Join
		for _, k := range keys {
			need, path, ok := strings.Cut(k, "\t")
			if !ok || skip[path] || !sampledFor(field, need) || joinedAt(found, path) {
				continue
			}
			vals := candidates[k]
			matched, of := 0, ""
			for _, v := range vals {
				if w, ok := known.lookup(self, field, v); ok {
					matched++
					of = w
				}
			}
			if matched >= 2 && matched*4 >= len(vals) {
				found = append(found, Join{Field: field, Path: path, Matched: matched, Sampled: len(vals), Of: of})
			}
		}
		sort.SliceStable(found, func(i, j int) bool { return found[i].Matched > found[j].Matched })
		out = append(out, found...)
	}
	return out
}

// sampledFor reports whether values sampled from lines that lacked need
// may teach field: only those that lacked it.
func sampledFor(field, need string) bool { return field == need }

// joinedAt reports whether path was already learned for the field.
func joinedAt(found []Join, path string) bool {
	for _, j := range found {
		if j.Path == path {
			return true
		}
	}
	return false
}

// lookup finds a sampled value of the input self among the ids of a
// field other inputs named, once each trip.
func (k *Known) lookup(self, field, v string) (string, bool) {
	var m map[string]string
	var kk knownKey
	switch field {
	case "request_id":
		m, kk = k.RequestIDs, knownKey{'r', v}
	case "trace_id":
		// A delivery named after its trace ("trace:<id>") joins a field
		// holding the trace id or a traceparent.
		t := traceDelivery(v)
		if t == "" {
			return "", false
		}
		m, kk = k.RequestIDs, knownKey{'r', t}
	case "key":
		v = model.NormalizeKey(v)
		m, kk = k.Keys, knownKey{'k', v}
	case "result_id":
		m, kk = k.ResultIDs, knownKey{'x', v}
	default:
		return "", false
	}
	w, ok := m[kk.v]
	if !ok {
		return "", false
	}
	if f := k.from[kk]; f != nil && (f.trips || f.file == self && !f.others) {
		return "", false
	}
	return w, true
}

// Learn adds what joined as field mappings of the input at path, after
// the config's own (which still win where they name a field). A field
// learned at several paths is mapped to a gjson multipath, "[a,b]": the
// first of them a line holds.
func (c *Config) Learn(path string, joins []Join) error {
	byField := map[string][]string{}
	var order []string
	for _, j := range joins {
		if _, ok := byField[j.Field]; !ok {
			order = append(order, j.Field)
		}
		byField[j.Field] = append(byField[j.Field], j.Path)
	}
	for _, s := range c.Sources {
		if m, _ := matchGlob(s.Path, path); m {
			for f := range s.Fields {
				delete(byField, f)
			}
		}
	}
	fields := map[string]string{}
	for _, f := range order {
		switch paths := byField[f]; {
		case len(paths) == 0:
		case len(paths) == 1, isPositional(paths[0]):
			// A text line's field is one position: the one that joined most.
			fields[f] = paths[0]
		default:
			fields[f] = "[" + strings.Join(paths, ",") + "]"
		}
	}
	if len(fields) == 0 {
		return nil
	}
	c.Sources = append([]SourceConfig{{Path: quoteGlob(path), Fields: fields}}, c.Sources...)
	return c.Compile()
}

// isPositional reports whether path names a text line's field ($N).
func isPositional(path string) bool { _, ok := fieldIndex(path); return ok }

// matchGlob is how a source's path pattern matches an input (see
// RuleFor): the whole path, or its base name.
func matchGlob(glob, path string) (bool, error) {
	if m, err := filepath.Match(glob, path); m || err != nil {
		return m, err
	}
	return filepath.Match(glob, filepath.Base(path))
}

// quoteGlob escapes the characters a glob gives meaning to, so that the
// pattern matches path alone.
func quoteGlob(path string) string {
	var b strings.Builder
	for _, c := range path {
		if strings.ContainsRune(`*?[\`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}
