package formats

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/idem-cli/idem/model"
)

// renamed rewrites a JSON line with every member's name prefixed, so that
// no name of any vocabulary or format is left in it.
func renamed(t *testing.T, line string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(line), &v); err != nil {
		t.Fatal(err)
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			out := map[string]any{}
			for k, e := range x {
				out["zq"+k] = walk(e)
			}
			return out
		case []any:
			for i := range x {
				x[i] = walk(x[i])
			}
		}
		return v
	}
	b, err := json.Marshal(walk(v))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func readLines(t *testing.T, p *Parser, file string, lines []string) *Result {
	t.Helper()
	var res Result
	p.Into(&res)
	for i, l := range lines {
		p.Line([]byte(l), model.Source{File: file, Line: i + 1})
	}
	return &res
}

func fileLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// TestValuesThatJoinNameTheFields renames every field of a real capture's
// server log, so that nothing of it is known by name, and learns its
// request id and key fields from the values nginx logged.
func TestValuesThatJoinNameTheFields(t *testing.T) {
	for _, lib := range []string{"winston", "restify", "flask", "monolog", "rails", "logback"} {
		dir := "../fixtures/real/nginx-" + lib
		var known Known
		for _, o := range readLines(t, NewParser(nil, nil), "nginx.jsonl", fileLines(t, dir+"/nginx.jsonl")).Obs {
			known.Add(&o)
		}
		var app []string
		for _, l := range fileLines(t, dir+"/app.jsonl") {
			app = append(app, renamed(t, l))
		}
		p := NewParser(nil, nil)
		p.Sample = true
		res := readLines(t, p, "app.jsonl", app)
		joins := learnJoins(res.Candidates, &known, nil)
		got := map[string]Join{}
		for _, j := range joins {
			got[j.Field] = j
		}
		rid, key := got["request_id"], got["key"]
		if !strings.HasPrefix(rid.Path, "zq") || !strings.HasPrefix(key.Path, "zq") {
			t.Errorf("%s: learned %+v, want a request id and a key field", lib, joins)
			continue
		}
		if rid.Of != "proxy request ids" || key.Of != "proxy keys" {
			t.Errorf("%s: joined to %q and %q", lib, rid.Of, key.Of)
		}
		// Read again with what was learned: every line that holds a
		// request id nginx logged is now read with it, and its key.
		cfg := &Config{}
		if err := cfg.Learn("logs/app.jsonl", joins); err != nil {
			t.Fatal(err)
		}
		rule, err := cfg.RuleFor("logs/app.jsonl", model.TierUnknown, "")
		if err != nil {
			t.Fatal(err)
		}
		again := readLines(t, NewParser(cfg, rule), "app.jsonl", app)
		ids, keys := 0, 0
		for _, o := range again.Obs {
			if _, ok := known.RequestIDs[o.RequestID]; ok {
				ids++
			}
			if _, ok := known.Keys[o.Key]; ok {
				keys++
			}
		}
		if ids < len(known.RequestIDs) || keys == 0 {
			t.Errorf("%s: %d lines read with a request id nginx logged (it logged %d), %d with its keys", lib, ids, len(known.RequestIDs), keys)
		}
	}
}

// TestNothingJoinsOnWhatJoinedNothing: values that are no id a certain
// tier logged, or only one of them, or too few of what was sampled, name
// no field.
func TestNothingJoinsOnWhatJoinedNothing(t *testing.T) {
	known := &Known{RequestIDs: map[string]string{"r-1": "proxy request ids", "r-2": "proxy request ids", "r-3": "proxy request ids"},
		Keys: map[string]string{"k-1": "proxy keys"}}
	for name, c := range map[string]map[string][]string{
		"no value joins":        {"request_id\thost": {"api-1", "api-2"}, "request_id\tuser": {"alice", "bob"}},
		"a single value joins":  {"request_id\tmaybe": {"r-1", "x-9"}},
		"a quarter is too few":  {"request_id\tnoisy": {"r-1", "r-2", "a1", "a2", "a3", "a4", "a5", "a6", "a7"}},
		"a key joined only one": {"key\tk": {"k-1", "k-2"}},
		"ids of lines that had their request id teach no request id": {"key\trid": {"r-1", "r-2", "r-3"}},
	} {
		if j := learnJoins(c, known, nil); len(j) != 0 {
			t.Errorf("%s: learned %+v", name, j)
		}
	}
	c := map[string][]string{"request_id\ta": {"r-1", "r-2"}, "request_id\tb": {"r-1", "r-2", "r-3"}}
	j := learnJoins(c, known, nil)
	if len(j) != 2 || j[0].Path != "b" || j[0].Matched != 3 || j[1].Path != "a" {
		t.Errorf("every path that joined, the one that joined most first: %+v", j)
	}
	cfg := &Config{}
	if err := cfg.Learn("x/app.jsonl", j); err != nil || cfg.Sources[0].Fields["request_id"] != "[b,a]" || cfg.Sources[0].Path != "x/app.jsonl" {
		t.Errorf("learned as %+v (%v), want request_id [b,a] for x/app.jsonl", cfg.Sources, err)
	}
	// The user's own mapping wins.
	cfg = &Config{Sources: []SourceConfig{{Path: "*app.jsonl", Fields: map[string]string{"request_id": "rid"}}}}
	if err := cfg.Learn("x/app.jsonl", j); err != nil || len(cfg.Sources) != 1 {
		t.Errorf("a field the config maps was learned again: %+v (%v)", cfg.Sources, err)
	}
	// A trace id joins the deliveries the proxy named after their trace.
	tr := &Known{RequestIDs: map[string]string{"trace:4bf92f3577b34da6a3ce929d0e0e4736": "proxy request ids",
		"trace:5bf92f3577b34da6a3ce929d0e0e4736": "proxy request ids"}}
	j = learnJoins(map[string][]string{"trace_id\ttid": {"4bf92f3577b34da6a3ce929d0e0e4736", "5bf92f3577b34da6a3ce929d0e0e4736"}}, tr, nil)
	if len(j) != 1 || j[0].Field != "trace_id" {
		t.Errorf("trace ids learned as %+v, want trace_id", j)
	}
	if j := learnJoins(c, known, map[string]bool{"b": true, "a": true}); len(j) != 0 {
		t.Errorf("skipped paths learned: %+v", j)
	}
}

// TestJoinable: a number names no request (a status, a byte count, a
// duration), but a snowflake id's sixteen digits or more may.
func TestJoinable(t *testing.T) {
	for v, want := range map[string]bool{
		"201": false, "1000000001": false, "0.123": false, "-1": false, "-": false, "1796029200.100": false,
		"req-0001": true, "1234567890123456789": true, "c9b2decb-ebc7-4a9b-99d6-69712772ef41": true,
	} {
		if got := joinable(v); got != want {
			t.Errorf("joinable(%q) = %v; want %v", v, got, want)
		}
	}
}

// TestKnownOncePerTrip: a request id named by two trips (a proxy's two
// lines, two inputs of one tier, two processes) joins nothing; one trip's
// lines across tiers, and a key many trips share, do.
func TestKnownOncePerTrip(t *testing.T) {
	obs := func(file string, tier model.Tier, id, key, process string) *model.Observation {
		return &model.Observation{Source: model.Source{File: file, Line: 1}, Tier: tier, RequestID: id, Key: key, Process: process}
	}
	var k Known
	k.Add(obs("nginx.log", model.TierProxy, "r-1", "k-1", ""))
	k.Add(obs("app.log", model.TierServer, "r-1", "k-1", ""))    // the same trip at the server
	k.Add(obs("nginx.log", model.TierProxy, "r-2", "k-1", ""))   // a retry under the key
	k.Add(obs("nginx.log", model.TierProxy, "r-2", "k-1", ""))   // r-2 again: a second trip
	k.Add(obs("app-a.log", model.TierServer, "r-3", "", ""))     //
	k.Add(obs("app-b.log", model.TierServer, "r-3", "", ""))     // another replica's r-3
	k.Add(obs("app.log", model.TierServer, "r-4", "", "host/1")) //
	k.Add(obs("app.log", model.TierServer, "r-4", "", "host/2")) // another process's r-4
	k.Add(obs("app.log", model.TierServer, "r-5", "", "host/1")) // one trip's two lines
	k.Add(obs("app.log", model.TierServer, "r-5", "", "host/1")) //
	for _, tc := range []struct {
		self, field, v string
		want           bool
	}{
		{"other.log", "request_id", "r-1", true},
		{"nginx.log", "request_id", "r-1", true}, // the server named it too
		{"other.log", "request_id", "r-2", false},
		{"other.log", "request_id", "r-3", false},
		{"other.log", "request_id", "r-4", false},
		{"other.log", "request_id", "r-5", true},
		{"app.log", "request_id", "r-5", false}, // only its own naming
		{"other.log", "key", "k-1", true},
	} {
		if _, got := k.lookup(tc.self, tc.field, tc.v); got != tc.want {
			t.Errorf("%s's %s %s known: %v; want %v", tc.self, tc.field, tc.v, got, tc.want)
		}
	}
}

// FuzzLearnedPositions: a text line read with positions learned and its
// fields sampled never crashes, and a learned position sets only what
// the line's reading left empty.
func FuzzLearnedPositions(f *testing.F) {
	f.Add(`127.0.0.1 - - [30/Nov/2026:09:00:00 +0000] "POST /v1/orders HTTP/1.1" 201 57 "-" "curl/8.5.0" 100123 "req-0001" "key-0001"`)
	f.Add(`INFO:     127.0.0.1:54321 - "POST /v1/orders HTTP/1.1" 201 Created req-0001`)
	f.Add(`"GET / HTTP/1.1" 200 [ "`)
	cfg := &Config{Sources: []SourceConfig{{Path: "*", Fields: map[string]string{"request_id": "$11", "key": "$12", "result_id": "$999"}}}}
	if err := cfg.Compile(); err != nil {
		f.Fatal(err)
	}
	rule, err := cfg.RuleFor("x.log", model.TierUnknown, "")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line string) {
		p := NewParser(cfg, rule)
		p.Sample = true
		plain := readLines(t, NewParser(nil, nil), "x.log", []string{line})
		res := readLines(t, p, "x.log", []string{line})
		if len(res.Obs) != len(plain.Obs) {
			t.Fatalf("%d observations with positions learned, %d without", len(res.Obs), len(plain.Obs))
		}
		for i := range plain.Obs {
			if a, b := plain.Obs[i].RequestID, res.Obs[i].RequestID; a != "" && !strings.HasPrefix(a, "trace:") && a != b {
				t.Fatalf("the line's own request id %q became %q", a, b)
			}
		}
	})
}
