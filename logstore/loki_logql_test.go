package logstore

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// intRange's expression matches exactly the integers of its range.
func TestIntRange(t *testing.T) {
	for _, r := range [][2]int{{500, 599}, {0, 9}, {0, 99}, {7, 7}, {408, 499}, {95, 1203}, {1, 0}} {
		re := regexp.MustCompile("^(?:" + intRange(r[0], r[1]) + ")$")
		for n := 0; n <= 1300; n++ {
			if want := n >= r[0] && n <= r[1]; re.MatchString(strconv.Itoa(n)) != want {
				t.Errorf("intRange(%d, %d) = %s: %d matched %v, want %v", r[0], r[1], intRange(r[0], r[1]), n, !want, want)
			}
		}
	}
}

// A filter's negation is pushed down to its leaves, and what selects
// everything or nothing is folded away.
func TestLogQLConditions(t *testing.T) {
	tests := []struct {
		f    Filter
		want string
	}{
		{Set{"status"}, `f_status!=""`},
		{Not{Set{"status"}}, `f_status=""`},
		{In{"status", []string{"409", "5.x"}}, `f_status=~"409|5\\.x"`},
		{Not{In{"status", []string{"409"}}}, `f_status!="409"`},
		{Range{"status", 500, 599}, `f_status=~"5[0-9][0-9]"`},
		{Not{And{Set{"a"}, Eq{"idem.file", "x"}}}, `(f_a="" or f_idem_file!="x")`},
		{Not{Or{Set{"a"}, Not{Set{"b"}}}}, `(f_a="" and f_b!="")`},
		{And{All{}, Set{"a"}}, `f_a!=""`},
		{Or{All{}, Set{"a"}}, "ALWAYS"},
		{And{In{"a", nil}, Set{"b"}}, "NEVER"},
		{Not{In{"a", nil}}, "ALWAYS"},
		{Set{"Idempotency-Key"}, `f_Idempotency_Key!=""`},
	}
	for _, tt := range tests {
		c := newLogQL("{a=\"b\"}", "json").cond(tt.f, false)
		got := c.expr
		if c.always {
			got = "ALWAYS"
		} else if c.never {
			got = "NEVER"
		}
		if got != tt.want {
			t.Errorf("%#v: %s, want %s", tt.f, got, tt.want)
		}
	}
	l := newLogQL(`{app="x"}`, "json")
	l.name("idem.file")
	l.name("http.request_id")
	l.name("Idempotency-Key")
	l.name("idem_file")
	if got, want := l.stage(), ` | json f_Idempotency_Key="[\"Idempotency-Key\"]", f_http_request_id="http.request_id", f_idem_file="[\"idem.file\"]", f_idem_file_2="idem_file"`; got != want {
		t.Errorf("stage %s\nwant  %s", got, want)
	}
}

// The LogQL a diagnosis sends for representative questions: phase 1's
// groupings of an export's fields, the lost writes, a held key's other
// lines counted first, and a failure's client's next writes.
func TestLogQLGolden(t *testing.T) {
	st, err := Open("loki://127.0.0.1:1", Options{Selector: `{service="api"}`})
	if err != nil {
		t.Fatal(err)
	}
	k := st.(*lokiStore)
	sf := &storeFields{keys: []string{"idempotency_key", "key_hash"}, rids: []string{"request_id"}, status: []string{"status"},
		outcome: []string{"outcome"}, decision: []string{"decision"}, clients: []string{"client"}, fps: []string{"fingerprint"},
		methods: []string{"method"}, routes: []string{"route"}, rawKeys: []string{"idempotency_key"}, secret: true, retried: true}
	var b strings.Builder
	for _, g := range sf.groups() {
		fmt.Fprintf(&b, "# group by %v\n%s\n\n", g.By, strings.ReplaceAll(k.Show(g), "; ", "\n"))
	}
	q, _ := sf.lostWrites()
	fmt.Fprintf(&b, "# lost writes\n%s\n\n", k.Show(q))
	p := newPlanner(k)
	p.methods = sf.methods
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	sel := Selection{Values: map[string][]string{"idempotency_key": {"k1", "k2"}, "request_id": {"r1"}},
		At: map[string]time.Time{"request_id\x00r1": t0}, Last: map[string]time.Time{"request_id\x00r1": t0.Add(time.Second)},
		Have: map[string][]Held{"idempotency_key\x00k2": {{}}},
		Near: []Near{{Field: "client", Value: "10.0.0.1", Time: t0, Also: map[string]string{"method": "POST"}, Not: map[string]string{"idempotency_key": "k1"}}}}
	for _, f := range p.fetches(sel, Window{Start: t0.Add(-time.Hour), End: t0.Add(time.Hour)}) {
		fmt.Fprintf(&b, "# fetch %s to %s\n%s\n\n", f.w.Start.Format(time.RFC3339), f.w.End.Format(time.RFC3339), k.Show(f.q))
	}
	goldenFile(t, "logql/show", b.String())
}
