package trace

import (
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/model"
)

// TestStartOrEndLearnedFromTheJoins reads two combined logs of the same
// kind of trips, one written at the end (nginx) and one at the start
// (Apache), each beside the server's lines of its trips: the reader took
// the end for both; the joins put each at the proxy's true start. A
// format that says which it wrote is never read again, and a file whose
// trips no server line joins is left as read.
func TestStartOrEndLearnedFromTheJoins(t *testing.T) {
	at := time.Date(2026, 12, 8, 10, 0, 0, 0, time.UTC)
	const took = 3 * time.Second
	// proxy is a proxy's line of a trip that began at start+ms and took
	// 3 s, as the combined reader gives it: the time written less the
	// duration, marked where the layout does not say which it wrote.
	proxy := func(file, format, rid string, ms int, writesEnd, marked bool) model.Observation {
		start := at.Add(time.Duration(ms) * time.Millisecond)
		written := start
		if writesEnd {
			written = start.Add(took)
		}
		return model.Observation{Tier: model.TierProxy, Format: format, RequestID: rid, Key: "k-" + rid, Method: "POST", Route: "/v1/pay",
			Status: 201, Time: written.Add(-took).UTC(), Duration: took, EndOrStart: marked, Source: model.Source{File: file, Line: ms/1000 + 1}}
	}
	server := func(rid string, ms int) model.Observation {
		return model.Observation{Tier: model.TierServer, Format: "slog", RequestID: rid, Key: "k-" + rid, Method: "POST", Route: "/v1/pay",
			Status: 201, Time: at.Add(time.Duration(ms+12) * time.Millisecond), Duration: 2 * time.Second, Source: model.Source{File: "app.jsonl", Line: ms/1000 + 1}}
	}
	var obs []model.Observation
	for i, ms := range []int{0, 5000, 10000} {
		n := string(rune('1' + i))
		obs = append(obs,
			proxy("nginx.log", "combined", "n"+n, ms, true, true), server("n"+n, ms),
			proxy("apache.log", "combined", "a"+n, ms, false, true), server("a"+n, ms),
			// Apache's own format says %t is the start: read as such,
			// never marked.
			proxy("declared.log", "apache", "d"+n, ms, false, false), server("d"+n, ms),
			// Marked, but no server line joins its trips.
			proxy("alone.log", "combined", "s"+n, ms, false, true))
	}
	// Where the reader listed no time (it reads it by position), the
	// reading is said in an entry of its own.
	c := NewCorrelator(nil)
	for i := range obs {
		c.Add(&obs[i])
	}
	byPosition := []*model.Input{{Path: "apache.log", Fields: []model.FieldUse{{Field: "route", By: "format combined (by position)"}}}}
	c.Set(byPosition)
	if f := byPosition[0].Fields; len(f) != 2 || f[1].Field != "time" || f[1].Lines != 3 || !strings.Contains(f[1].By, "the request's start (as Apache's %t)") {
		t.Errorf("the position-read time is explained as %+v", f)
	}

	c = NewCorrelator(nil)
	c.Build = Build{All: true}
	for i := range obs {
		c.Add(&obs[i])
	}
	explained := func(path string) *model.Input {
		return &model.Input{Path: path, Fields: []model.FieldUse{{Field: "time", Path: "$time_local", By: "the combined layout"}}}
	}
	inputs := []*model.Input{explained("nginx.log"), explained("apache.log"), explained("declared.log"), explained("alone.log")}
	s := c.Set(inputs)
	for _, tc := range []struct {
		rid  string
		want time.Time // the proxy line's start after the joins
	}{
		{"n1", at}, {"n3", at.Add(10 * time.Second)}, // the end less the duration: as read
		{"a1", at}, {"a2", at.Add(5 * time.Second)}, // the start: moved by the duration
		{"d1", at.Add(-took)}, // a declared start is never read again (here: as it was handed in)
		{"s1", at.Add(-took)}, // nothing to learn from
	} {
		ins := s.FindIntent("k-" + tc.rid)
		if len(ins) != 1 {
			t.Fatalf("%s: %d intents", tc.rid, len(ins))
		}
		var got time.Time
		for _, d := range ins[0].Deliveries {
			for _, o := range d.Observations {
				if o.Tier == model.TierProxy {
					got = o.Time
				}
			}
		}
		if !got.Equal(tc.want) {
			t.Errorf("%s: the proxy line starts at %s, want %s", tc.rid, got.Format(time.TimeOnly), tc.want.Format(time.TimeOnly))
		}
	}
	for _, tc := range []struct{ path, says string }{
		{"nginx.log", "the request's end (as nginx's $time_local), less its duration: 3 of 3 trips"},
		{"apache.log", "the request's start (as Apache's %t), not its end: 3 of 3 trips"},
		{"declared.log", ""},
		{"alone.log", ""},
	} {
		for _, in := range inputs {
			if in.Path == tc.path && len(in.Fields) != 1 {
				t.Errorf("%s: %d fields explained, want the time's alone", tc.path, len(in.Fields))
			}
		}
		by := inputs[0].Fields[0].By
		for _, in := range inputs {
			if in.Path == tc.path {
				by = in.Fields[0].By
			}
		}
		if tc.says == "" && by != "the combined layout" || tc.says != "" && !strings.Contains(by, tc.says) {
			t.Errorf("%s: the time is explained as %q, want it to say %q", tc.path, by, tc.says)
		}
	}
}
