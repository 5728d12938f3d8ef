package formats

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/idem-cli/idem/trace"
)

// TestSamplesYieldTheirFields reads every format's sample lines, as lnav
// checks a format's "sample" blocks: each must be recognised as its own
// format and give every field its Want sets, with nothing skipped.
func TestSamplesYieldTheirFields(t *testing.T) {
	for _, f := range All() {
		if len(f.Samples) == 0 {
			t.Errorf("%s: no sample lines", f.Name)
		}
		for i, s := range f.Samples {
			p := NewParser(nil, nil)
			var res Result
			p.Into(&res)
			p.Line([]byte(s.Line), trace.Source{File: "sample", Line: i + 1})
			if len(res.Skips) > 0 {
				t.Errorf("%s sample %d skipped: %s", f.Name, i+1, res.Skips[0].Reason)
				continue
			}
			want := max(s.Count, 1)
			if len(res.Obs) != want {
				t.Errorf("%s sample %d: %d observations, want %d", f.Name, i+1, len(res.Obs), want)
				continue
			}
			got := res.Obs[0]
			if _, ok := res.Formats[f.Name]; !ok && f.Kind != KindEnvelope {
				t.Errorf("%s sample %d read as %v", f.Name, i+1, res.Formats)
			}
			for _, diff := range wantFields(s.Want, got) {
				t.Errorf("%s sample %d: %s", f.Name, i+1, diff)
			}
		}
	}
}

// wantFields compares every field set in want with got.
func wantFields(want, got trace.Observation) []string {
	var out []string
	wv, gv := reflect.ValueOf(want), reflect.ValueOf(got)
	for i := range wv.NumField() {
		name := wv.Type().Field(i).Name
		w, g := wv.Field(i), gv.Field(i)
		if w.IsZero() || name == "Source" {
			continue
		}
		if wt, ok := w.Interface().(time.Time); ok {
			if gt := g.Interface().(time.Time); !gt.Equal(wt) {
				out = append(out, name+": got "+gt.Format(time.RFC3339Nano)+", want "+wt.Format(time.RFC3339Nano))
			}
			continue
		}
		if !reflect.DeepEqual(w.Interface(), g.Interface()) {
			out = append(out, fmt.Sprintf("%s: got %#v, want %#v", name, g.Interface(), w.Interface()))
		}
	}
	return out
}
