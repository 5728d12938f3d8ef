package formats

import (
	"strings"
	"testing"

	"github.com/idem-cli/idem/model"
)

// unreadLines are lines no format reads, some with part of what a format
// looks for first (a bracket before a quote, a port before a bracket, a
// timestamp prefix, a quote pair), so that each format's first check
// lets them by and its full reading refuses them.
var unreadLines = []string{
	`2026-12-01T09:00:00.123Z INFO [orders-worker-3] cache miss user=u123 took=12.3ms`,
	`2026-12-01T09:00:00.124Z WARN [orders-worker-1] retry "payment" after [503] "gateway" failed`,
	`worker 10.0.0.1:8080 [busy] queue=3 "drain" pending`,
	`[pod/api-7/app] 2026-12-01T09:00:00.125Z job done id=42 took=3ms`,
	`INFO: [app] listening on :8080 ] "x" " "`,
	`method=GET but no status or controller`,
	`#comment: not a directive`,
	`http  not an ALB line`,
}

// TestRequestLinesAmongUnreadOnes: one line in twenty a text format's
// sample, the others lines no format reads: every sample is read as when
// it is alone, and nothing else is.
func TestRequestLinesAmongUnreadOnes(t *testing.T) {
	for _, f := range all() {
		if f.text == nil {
			continue
		}
		for i, s := range f.Samples {
			if s.Known != "" || strings.Contains(s.Line, "\n") {
				continue
			}
			p := NewParser(nil, nil)
			var res Result
			p.Into(&res)
			const rounds = 5
			n := 0
			for r := 0; r < rounds; r++ {
				for j := 0; j < 19; j++ {
					n++
					p.Line([]byte(unreadLines[(r*19+j)%len(unreadLines)]), model.Source{File: "mixed", Line: n})
				}
				n++
				p.Line([]byte(s.Line), model.Source{File: "mixed", Line: n})
			}
			p.Flush()
			want := max(s.Count, 1)
			if len(res.Obs) != rounds*want {
				t.Errorf("%s sample %d: %d observations among unread lines, want %d", f.Name, i+1, len(res.Obs), rounds*want)
				continue
			}
			for k := range res.Obs {
				if res.Obs[k].Source.Line%20 != 0 {
					t.Errorf("%s sample %d: line %d (not the sample) was read: %+v", f.Name, i+1, res.Obs[k].Source.Line, res.Obs[k])
				}
			}
			for _, pr := range wantFields(s.Want, res.Obs[len(res.Obs)-1]) {
				t.Errorf("%s sample %d among unread lines: %s", f.Name, i+1, pr)
			}
		}
	}
}
