package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"sort"

	"github.com/tidwall/gjson"
)

// mismatchStep sends the key again with a changed payload.
func mismatchStep(base *request, opts Options, key string) *step {
	body, what := mutate(base.Body)
	return &step{Probe: probeMismatch, Note: "the same key with " + what + " changed: expect a conflict and no new effect",
		Requests: []*request{base.clone(opts, key, body)}, run: runMismatch}
}

// runMismatch expects the profile's conflict status and no new effect.
func runMismatch(ctx context.Context, r *runner, s *step) ([]Assertion, error) {
	return r.refused(ctx, s, "conflict status", r.opts.Profile.Conflict)
}

// mutate changes one significant field of a JSON body: the first number
// (by key order) grows by one, else the first string gets a suffix, else a
// field is added. A non-JSON body gets a suffix.
func mutate(body []byte) ([]byte, string) {
	if !gjson.ValidBytes(body) || !gjson.ParseBytes(body).IsObject() {
		return append(append([]byte{}, body...), []byte(" (idem probe)")...), "the body, with a suffix"
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return append(append([]byte{}, body...), ' '), "the body"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	changed := ""
	for _, k := range keys {
		if n, ok := m[k].(json.Number); ok {
			if i, err := n.Int64(); err == nil {
				m[k] = i + 1
			} else if f, err := n.Float64(); err == nil {
				m[k] = f + 1
			}
			changed = k
			break
		}
	}
	if changed == "" {
		for _, k := range keys {
			if s, ok := m[k].(string); ok {
				m[k] = s + "-idem-probe"
				changed = k
				break
			}
		}
	}
	if changed == "" {
		m["idem_probe"] = true
		changed = "idem_probe (added)"
	}
	out, _ := json.Marshal(m)
	return out, "field " + changed
}
