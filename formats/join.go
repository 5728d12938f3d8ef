package formats

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/idem-cli/idem/trace"
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
	maxCandidatePaths  = 96
	maxCandidateValues = 32
)

// sampleRecord keeps the values of a record whose observation (nil when
// the line was set aside) lacks a request id or a key.
func (p *Parser) sampleRecord(r *record, o *trace.Observation) {
	if !p.Sample || p.sampled >= maxSampledRecords {
		return
	}
	if o != nil && o.RequestID != "" && !strings.HasPrefix(o.RequestID, "trace:") && (o.Key != "" || o.KeyHash != "") {
		return
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
		vals, ok := p.out.Candidates[l.path]
		if !ok && len(p.out.Candidates) >= maxCandidatePaths {
			continue
		}
		if len(vals) >= maxCandidateValues || containsString(vals, s) {
			continue
		}
		p.out.Candidates[p.keep(l.path)] = append(vals, strings.Clone(s))
	}
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
func (k *Known) Add(o *trace.Observation) {
	if k.RequestIDs == nil {
		k.RequestIDs, k.Keys, k.ResultIDs = map[string]string{}, map[string]string{}, map[string]string{}
	}
	if o.RequestID != "" && len(k.RequestIDs) < 1<<16 {
		k.RequestIDs[o.RequestID] = o.Tier.String() + " request ids"
	}
	if o.Key != "" && len(k.Keys) < 1<<16 {
		k.Keys[o.Key] = o.Tier.String() + " keys"
	}
	if o.ResultID != "" && len(k.ResultIDs) < 1<<16 {
		k.ResultIDs[o.ResultID] = o.Tier.String() + " response bodies' ids"
	}
}

// Join is a field learned from the values it joined.
type Join struct {
	Field   string // request_id, key or result_id
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
// least a quarter of what was sampled there. For each field the path that
// joined most wins. Paths named in skip are not considered (the input's
// own reading already gives them).
func LearnJoins(candidates map[string][]string, known *Known, skip map[string]bool) []Join {
	if known == nil || len(candidates) == 0 {
		return nil
	}
	best := map[string]Join{}
	paths := make([]string, 0, len(candidates))
	for p := range candidates {
		paths = append(paths, p)
	}
	sort.Strings(paths) // the same answer whatever the map's order
	for _, path := range paths {
		if skip[path] {
			continue
		}
		vals := candidates[path]
		for _, field := range []string{"request_id", "key", "result_id"} {
			matched, of := 0, ""
			for _, v := range vals {
				if w, ok := known.lookup(field, v); ok {
					matched++
					of = w
				}
			}
			if matched < 2 || matched*4 < len(vals) {
				continue
			}
			if b, ok := best[field]; !ok || matched > b.Matched {
				best[field] = Join{Field: field, Path: path, Matched: matched, Sampled: len(vals), Of: of}
			}
		}
	}
	var out []Join
	for _, f := range []string{"request_id", "key", "result_id"} {
		if j, ok := best[f]; ok {
			out = append(out, j)
		}
	}
	return out
}

// lookup finds a sampled value among the known ids of a field.
func (k *Known) lookup(field, v string) (string, bool) {
	switch field {
	case "request_id":
		if w, ok := k.RequestIDs[v]; ok {
			return w, true
		}
		if t := traceDelivery(v); t != "" {
			w, ok := k.RequestIDs[t]
			return w, ok
		}
	case "key":
		w, ok := k.Keys[trace.NormalizeKey(v)]
		return w, ok
	case "result_id":
		w, ok := k.ResultIDs[v]
		return w, ok
	}
	return "", false
}

// Learn adds what joined as field mappings of the input at path, after
// the config's own (which still win where they name a field).
func (c *Config) Learn(path string, joins []Join) error {
	if len(joins) == 0 {
		return nil
	}
	fields := map[string]string{}
	for _, j := range joins {
		fields[j.Field] = j.Path
	}
	for _, s := range c.Sources {
		if m, _ := matchGlob(s.Path, path); m {
			for f := range s.Fields {
				delete(fields, f)
			}
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
