package main

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestWalkFindsTheWantedMembers(t *testing.T) {
	for _, tc := range []struct {
		line     string
		members  int
		ok       bool
		rid, key string
		status   int
	}{
		{`{"http_x_request_id":"r1","http_idempotency_key":"k1","status":"201"}`, 3, true, "r1", "k1", 201},
		{`{ "status" : 499 , "http_x_request_id" : "r\"1", "ua":"say \"status\":"}`, 3, true, `r\"1`, "", 499},
		{`{"ua":"ends in a backslash \\","http_x_request_id":"r2","n":{"status":"500","a":[1,"}"]}}`, 3, true, "r2", "", 0},
		{`{"http_x_request_id":"r3","http_idempotency_key":"k`, 1, false, "r3", "", 0}, // cut short
		{`{}`, 0, true, "", "", 0},
		{`{"status":"201"} trailing`, 1, false, "", "", 201},
		{`[1,2]`, 0, false, "", "", 0},
		{``, 0, false, "", "", 0},
		{`{"status":}`, 0, false, "", "", 0},
	} {
		var f fields
		n, ok := walk([]byte(tc.line), &f)
		get := func(i int) string { return tc.line[f[i][0]:f[i][1]] }
		if n != tc.members || ok != tc.ok || get(fRID) != tc.rid || get(fKey) != tc.key || status([]byte(get(fStatus))) != tc.status {
			t.Errorf("%s: got %d members, %v, %q, %q, %d; want %d, %v, %q, %q, %d", tc.line, n, ok, get(fRID), get(fKey),
				status([]byte(get(fStatus))), tc.members, tc.ok, tc.rid, tc.key, tc.status)
		}
	}
}

func TestRunCountsLines(t *testing.T) {
	log := `{"http_x_request_id":"a","http_idempotency_key":"k","status":"201"}
{"http_x_request_id":"b","http_idempotency_key":"","status":"499"}
not json
{"http_x_request_id":"c","http_idempotency_key":"j"}`
	got, err := run(strings.NewReader(log))
	if err != nil || got.lines != 4 || got.keyed != 2 || got.bad != 1 || got.members != 8 {
		t.Fatalf("got %+v, %v; want 4 lines, 2 keyed, 1 bad, 8 members", got, err)
	}
}

// FuzzWalk checks walk against gjson on valid objects, and that it never
// panics on anything.
func FuzzWalk(f *testing.F) {
	f.Add(`{"http_x_request_id":"r1","http_idempotency_key":"k1"}`)
	f.Add(`{"a":"\\\"","status":"x\\\\","b":[{"c":"]"}]}`)
	f.Fuzz(func(t *testing.T, line string) {
		var fs fields
		n, ok := walk([]byte(line), &fs)
		for _, b := range fs {
			if b[0] < 0 || b[1] < b[0] || int(b[1]) > len(line) {
				t.Fatalf("bounds %v out of the line", b)
			}
		}
		r := gjson.Parse(line)
		if !gjson.Valid(line) || !r.IsObject() || strings.ContainsAny(line, "\n") {
			return
		}
		if !ok {
			t.Fatalf("a valid object was refused")
		}
		members := 0
		r.ForEach(func(_, _ gjson.Result) bool { members++; return true })
		if n != members {
			t.Errorf("got %d members, gjson %d", n, members)
		}
		// Compare plain, unique string members: walk keeps the raw text,
		// gjson the unescaped value and the last of repeated names.
		v := r.Get("http_x_request_id")
		if v.Type == gjson.String && !strings.Contains(v.Raw, `\`) && strings.Count(line, `"http_x_request_id"`) == 1 {
			if got := line[fs[fRID][0]:fs[fRID][1]]; got != v.Str {
				t.Errorf("request id: got %q, want %q", got, v.Str)
			}
		}
	})
}
