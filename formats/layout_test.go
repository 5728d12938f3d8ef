package formats

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/idem-cli/idem/model"
)

// TestLinesReadAloneOrInARow checks that what a parser keeps of the lines
// before (the last key set, a shape's separators) changes nothing: each
// line of a log yields what it yields to a parser that never saw another,
// including lines laid out differently from the ones before them, lines
// with a member more or less, and lines that stop halfway.
func TestLinesReadAloneOrInARow(t *testing.T) {
	const a = `{"time_iso8601":"2026-11-30T00:00:00+00:00","msec":"1795996800.148","request_id":"r1","http_idempotency_key":"k1","request_method":"POST","request_uri":"/v1/x","status":"201"}`
	lines := []string{
		a, a, // the second by the first's separators
		`{"time_iso8601":"2026-11-30T00:00:01+00:00","msec":"1795996801.148","request_id":"r2","http_idempotency_key":"k2","request_method":"POST","request_uri":"/v1/x","status":"500"}`,
		`{"time_iso8601": "2026-11-30T00:00:02+00:00", "msec": "1795996802.148", "request_id": "r3", "http_idempotency_key": "k3", "request_method": "POST", "request_uri": "/v1/x", "status": "201"}`,
		a,
		`{"time_iso8601":"2026-11-30T00:00:03+00:00","msec":"1795996803.148","request_id":"r4","http_idempotency_key":"k4","request_method":"POST","request_uri":"/v1/x","status":  "201"}`,
		`{"time_iso8601":"2026-11-30T00:00:04+00:00","msec":"1795996804.148","request_id":"r5","http_idempotency_key":"k5","request_method":"POST","request_uri":"/v1/x","status":"201","extra":"e"}`,
		`{"time_iso8601":"2026-11-30T00:00:05+00:00","msec":"1795996805.148","request_id":"r6","http_idempotency_key":"k6","request_method":"POST","request_uri":"/v1/x"}`,
		`{"time_iso8601":"2026-11-30T00:00:06+00:00","msec":"1795996806.148","request_id":"r7","http_idempotency_key":"k7","request_method":"POST","request_uri":"/v1/x","status":"201"} junk`,
		`{"time_iso8601":"2026-11-30T00:00:07+00:00","msec":"1795996807.148","request_id":"r8","http_idempotency_key":"k8","request_method":"POST","request_uri":"/v1/x","status":"20`,
		`{"time_iso8601":"2026-11-30T00:00:08+00:00","msec":"1795996808.148","request_id":"r\u0039","http_idempotency_key":"k\"9","request_method":"POST","request_uri":"/v1/x","status":"201"}`,
		"{\"time_iso8601\":\"2026-11-30T00:00:09+00:00\",\"msec\":\"1795996809.148\",\"request_id\":\"r\x0110\",\"http_idempotency_key\":\"k10\",\"request_method\":\"POST\",\"request_uri\":\"/v1/x\",\"status\":\"201\"}",
		`{"time_iso8601":"2026-11-30T00:00:10+00:00","msec":"1795996810.148","request_id":"r11","http_idempotency_key":"k11","request_method":"POST","request_uri":"/v1/x","status":201}`,
		`{"time_iso8601":"2026-11-30T00:00:11+00:00","msec":"1795996811.148","request_id":"r12","http_idempotency_key":"k12","request_method":"POST","request_uri":"/v1/x","status":{"code":201}}`,
		`{"time_iso8601":"2026-11-30T00:00:12+00:00","msec":"1795996812.148","request_id":"r13","http_idempotency_key":"k13","request_method":"POST","request_uri":"/v1/x","status":"201"}`,
		`{"msec":"1795996813.148","time_iso8601":"2026-11-30T00:00:13+00:00","request_id":"r14","http_idempotency_key":"k14","request_method":"POST","request_uri":"/v1/x","status":"201"}`,
	}
	// And every line of the bundled fixtures, in their order.
	paths, _ := filepath.Glob("../fixtures/*/*.jsonl")
	more, _ := filepath.Glob("../fixtures/*/*/*.jsonl")
	for _, p := range append(paths, more...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range bytes.Split(b, []byte("\n")) {
			lines = append(lines, string(l))
		}
	}
	for _, pr := range aloneOrInARow(lines) {
		t.Error(pr)
	}
}

// aloneOrInARow reads lines with one parser, one after another, and each
// with a parser of its own, and says where the two differ.
func aloneOrInARow(lines []string) []string {
	var problems []string
	inARow := NewParser(nil, nil)
	for i, l := range lines {
		src := model.Source{File: "f", Line: i + 1}
		alone := NewParser(nil, nil)
		var want Result
		alone.Into(&want)
		alone.Line([]byte(l), src)

		var row Result
		inARow.Into(&row)
		inARow.Line([]byte(l), src)
		if !reflect.DeepEqual(row, want) {
			problems = append(problems, fmt.Sprintf("line %d %.80q read after the others:\n got %+v\nwant %+v", i+1, l, row, want))
		}
	}
	return problems
}

// FuzzLinesInARow checks that a line reads the same after the lines
// before it as on its own, whatever the two are: the previous line's key
// set and its shape's layout only ever save work.
func FuzzLinesInARow(f *testing.F) {
	const a = `{"time_iso8601":"2026-11-30T00:00:00+00:00","msec":"1795996800.148","request_id":"r1","request_method":"POST","request_uri":"/v1/x","status":"201"}`
	f.Add(a, a, a)
	f.Add(a, a, `{"time_iso8601": "x","msec":"1795996800.148","request_id":"r1","request_method":"POST","request_uri":"/v1/x","status":"201"}`)
	f.Add(a, a, `{"time_iso8601":"2026-11-30T00:00:00+00:00","msec":"1795996800.148","request_id":"r\"1","request_method":"POST","request_uri":"/v1/x","status":201}`)
	f.Add(`{"level":"info","msg":"a","request_id":"r"}`, `{"level":"info","msg":"a","request_id":"r"}`, `{"level":"info","msg":"a\n","request_id":{"a":1}}`)
	f.Fuzz(func(t *testing.T, a, b, c string) {
		for _, pr := range aloneOrInARow([]string{a, b, c, a, c}) {
			t.Error(pr)
		}
	})
}
