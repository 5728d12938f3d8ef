package main

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestMembersFindsTheNamedStrings(t *testing.T) {
	for _, tc := range []struct{ line, id, key string }{
		{`{"request_id":"r1","http_idempotency_key":"k1"}`, "r1", "k1"},
		{`{"http_idempotency_key":"k1","status":"201","request_id":"r1"}`, "r1", "k1"},
		{`{"ua":"say \"request_id\":","request_id":"r\"1","http_idempotency_key":""}`, `r\"1`, ""},
		{`{"ua":"ends in a backslash \\","request_id":"r2"}`, "r2", ""},
		{`{"request_id":"r3","http_idempotency_key":"k`, "r3", ""}, // cut short
		{`{"status":201}`, "", ""},
	} {
		id, key := members([]byte(tc.line), "request_id", "http_idempotency_key")
		if string(id) != tc.id || string(key) != tc.key {
			t.Errorf("%s: got %q, %q; want %q, %q", tc.line, id, key, tc.id, tc.key)
		}
	}
}

func TestRunCountsDistinctIDs(t *testing.T) {
	log := `{"request_id":"a","http_idempotency_key":"k"}
{"request_id":"b","http_idempotency_key":"k"}
{"request_id":"c","http_idempotency_key":"j"}`
	ids, keys, lines, err := run(strings.NewReader(log), "request_id", "http_idempotency_key")
	if err != nil || ids != 3 || keys != 2 || lines != 3 {
		t.Fatalf("got %d ids, %d keys, %d lines, %v; want 3, 2, 3", ids, keys, lines, err)
	}
}

// FuzzMembers checks members against gjson on valid flat objects, and that
// it never panics on anything.
func FuzzMembers(f *testing.F) {
	f.Add(`{"request_id":"r1","http_idempotency_key":"k1"}`)
	f.Add(`{"a":"\\\"","request_id":"x\\\\"}`)
	f.Fuzz(func(t *testing.T, line string) {
		id, key := members([]byte(line), "request_id", "http_idempotency_key")
		if !gjson.Valid(line) || strings.ContainsAny(line, "{[") && strings.Count(line, "{")+strings.Count(line, "[") > 1 {
			return
		}
		r := gjson.Parse(line)
		if !r.IsObject() {
			return
		}
		want := func(name string) string {
			v := r.Get(name)
			if v.Type != gjson.String || strings.Contains(v.Raw, `\`) {
				return "-"
			}
			return v.Str
		}
		// Compare only plain, unique string members: members returns the
		// raw text, gjson the unescaped value, and the last of repeated names.
		if w := want("request_id"); w != "-" && strings.Count(line, `"request_id"`) == 1 && string(id) != w {
			t.Errorf("request_id: got %q, want %q", id, w)
		}
		if w := want("http_idempotency_key"); w != "-" && strings.Count(line, `"http_idempotency_key"`) == 1 && string(key) != w {
			t.Errorf("key: got %q, want %q", key, w)
		}
	})
}
