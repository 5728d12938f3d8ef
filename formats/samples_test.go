package formats

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/model"
)

// TestSamplesYieldTheirFields reads every format's sample lines, as lnav
// checks a format's "sample" blocks: each must be recognised as its own
// format and give every field its Want sets, with nothing skipped. A
// sample marked Known is a real line idem misreads today: its differences
// are logged, and it fails once it reads right, so that the mark is
// removed with the fix.
func TestSamplesYieldTheirFields(t *testing.T) {
	for _, f := range all() {
		if len(f.Samples) == 0 {
			t.Errorf("%s: no sample lines", f.Name)
		}
		for i, s := range f.Samples {
			problems := sampleProblems(f, i, s)
			switch {
			case s.Known == "":
				for _, pr := range problems {
					t.Errorf("%s sample %d: %s", f.Name, i+1, pr)
				}
			case len(problems) == 0:
				t.Errorf("%s sample %d is marked as a known misreading (%s) but now reads as it should: remove Known", f.Name, i+1, s.Known)
			default:
				for _, pr := range problems {
					t.Logf("%s sample %d, known misreading (%s): %s", f.Name, i+1, s.Known, pr)
				}
			}
		}
	}
}

// sampleProblems reads one sample and says how what is read differs from
// what the sample wants.
func sampleProblems(f *format, i int, s sample) []string {
	p := NewParser(nil, nil)
	var res Result
	p.Into(&res)
	// A sample of a format whose lines depend on those before it (a W3C
	// header, a container runtime's parts) is several lines.
	for j, line := range strings.Split(s.Line, "\n") {
		p.Line([]byte(line), model.Source{File: "sample", Line: j + 1})
	}
	p.Flush()
	if len(res.Skips) > 0 {
		return []string{"skipped: " + res.Skips[0].Reason}
	}
	want := max(s.Count, 1)
	if len(res.Obs) != want {
		return []string{fmt.Sprintf("%d observations, want %d", len(res.Obs), want)}
	}
	var out []string
	if _, ok := res.FormatCounts()[f.Name]; !ok && f.Kind != kindEnvelope {
		out = append(out, fmt.Sprintf("read as %v", res.FormatCounts()))
	}
	return append(out, wantFields(s.Want, res.Obs[0])...)
}

// wantFields compares every field set in want with got.
func wantFields(want, got model.Observation) []string {
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
