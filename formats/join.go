package formats

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/idem-cli/idem/model"
)

// Fields found by the values they join. Where no vocabulary names a
// line's request id or key, the other tiers do: the proxy's lines (and
// the browser's) give request ids, keys and trace ids with certainty, so
// a field of another input whose values are those same ids is that
// input's request id (or key) field; a field whose values are the ids a
// browser saw in response bodies is its result id. A parser with Sample
// set keeps, for the records it could not fully name, a bounded sample of
// their values by path (Result.Candidates); LearnJoins checks them against
// the ids the certain tiers logged; Config.Learn makes what joined the
// input's field mappings for the reading that follows. Nothing joins on a
// field that joined nothing.

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
	var needs [4]string
	n := 0
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
		return
	}
	if o == nil || o.ResultID == "" {
		needs[n] = needResultID
		n++
	}
	p.sampled++
	if p.out.Candidates == nil {
		p.out.Candidates = map[string][]string{}
	}
	for _, l := range recordLeaves(r) {
		s := present(l.v)
		if len(s) < 4 || len(s) > 256 {
			continue // too short to name one request, or too long to keep
		}
		for _, need := range needs[:n] {
			p.candidate(need, l.path, s)
		}
	}
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
	if len(vals) >= maxCandidateValues || containsString(vals, s) {
		return
	}
	if !ok {
		k = strings.Clone(k)
	}
	p.out.Candidates[k] = append(vals, strings.Clone(s))
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Known are the ids the tiers read with certainty logged, each with what
// logged it ("proxy request ids").
type Known struct {
	RequestIDs map[string]string
	Keys       map[string]string
	ResultIDs  map[string]string
}

// Add records what a certain tier's observation names.
func (k *Known) Add(o *model.Observation) {
	if k.RequestIDs == nil {
		k.RequestIDs, k.Keys, k.ResultIDs = map[string]string{}, map[string]string{}, map[string]string{}
	}
	// Copies: an observation's strings view its batch's buffer.
	if o.RequestID != "" && len(k.RequestIDs) < 1<<16 {
		k.RequestIDs[strings.Clone(o.RequestID)] = o.Tier.String() + " request ids"
	}
	if o.Key != "" && len(k.Keys) < 1<<16 {
		k.Keys[strings.Clone(o.Key)] = o.Tier.String() + " keys"
	}
	if o.ResultID != "" && len(k.ResultIDs) < 1<<16 {
		k.ResultIDs[strings.Clone(o.ResultID)] = o.Tier.String() + " response bodies' ids"
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

// LearnJoins finds, in an input's sampled values by path, the paths whose
// values are ids the certain tiers logged: at least two of them, and at
// least a quarter of what was sampled there. Each field may be learned at
// several paths (an access line and an effect line name the request id
// differently), those that joined most first. Paths named in skip are not
// considered (the input's own reading already gives them).
func LearnJoins(candidates map[string][]string, known *Known, skip map[string]bool) []Join {
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
				if w, ok := known.lookup(field, v); ok {
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

// lookup finds a sampled value among the known ids of a field.
func (k *Known) lookup(field, v string) (string, bool) {
	switch field {
	case "request_id":
		w, ok := k.RequestIDs[v]
		return w, ok
	case "trace_id":
		// A delivery named after its trace ("trace:<id>") joins a field
		// holding the trace id or a traceparent.
		if t := traceDelivery(v); t != "" {
			w, ok := k.RequestIDs[t]
			return w, ok
		}
	case "key":
		w, ok := k.Keys[model.NormalizeKey(v)]
		return w, ok
	case "result_id":
		w, ok := k.ResultIDs[v]
		return w, ok
	}
	return "", false
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
		switch paths := byField[f]; len(paths) {
		case 0:
		case 1:
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
