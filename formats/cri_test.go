package formats

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/idem-cli/idem/model"
)

// criRead reads lines as the reader does, in two batches cut before line
// cut: the second batch's parser resumes the runs the first left open.
// It says what was read, ignored and skipped, and where.
func criRead(lines [][]byte, cut, max int) string {
	runs := NewCRIRuns(max)
	var res Result
	var data []byte
	var starts, ends, nums []int
	for i, l := range lines {
		starts = append(starts, len(data))
		data = append(append(data, l...), '\n')
		ends = append(ends, len(data))
		nums = append(nums, i+1)
	}
	for n, b := range [][2]int{{0, cut}, {cut, len(lines)}} {
		p := NewParser(nil, nil)
		p.Into(&res)
		p.Resume(runs.Snapshot())
		for i := b[0]; i < b[1]; i++ {
			p.Line(data[starts[i]:ends[i]], model.Source{File: "f", Line: nums[i]})
		}
		runs.Follow("f", data, starts[b[0]:b[1]], ends[b[0]:b[1]], nums[b[0]:b[1]], nil)
		if n == 1 { // the input ends
			p.Flush()
		}
	}
	var b bytes.Buffer
	for _, o := range res.Obs {
		fmt.Fprintf(&b, "%s@%d ", o.RequestID, o.Source.Line)
	}
	for _, s := range res.Skips {
		fmt.Fprintf(&b, "skip@%d %s; ", s.Source.Line, s.Reason)
	}
	fmt.Fprintf(&b, "ignored %d", res.Ignored)
	return b.String()
}

var criCases = []struct {
	name, lines, want string
}{{
	name: "a line in parts joins, cited by its first",
	lines: "2026-12-01T09:00:00Z stdout P {\"request_id\":\"r-1\",\n" +
		"2026-12-01T09:00:00Z stdout P \"status\":\n" +
		"2026-12-01T09:00:00Z stdout F 201}",
	want: "r-1@1 ignored 2",
}, {
	name: "a stderr line between a stdout line's parts is its own",
	lines: "2026-12-01T09:00:00Z stdout P {\"request_id\":\"r-out\",\n" +
		"2026-12-01T09:00:00Z stderr F {\"request_id\":\"r-err\",\"status\":500}\n" +
		"2026-12-01T09:00:00Z stdout F \"status\":201}",
	want: "r-err@2 r-out@1 ignored 1",
}, {
	name: "parts past the bound are one skipped line at its end",
	lines: "2026-12-01T09:00:00Z stdout P {\"request_id\":\"r-long\",\"msg\":\"xxxxxxxxxxxxxxxxxxxxxxx\n" +
		"2026-12-01T09:00:00Z stdout P xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n" +
		"2026-12-01T09:00:00Z stdout F \",\"status\":201}\n" +
		"2026-12-01T09:00:01Z stdout F {\"request_id\":\"r-after\",\"status\":200}",
	want: "r-after@4 skip@1 a line the container runtime split (CRI P parts) longer than 64 bytes; ignored 2",
}, {
	name:  "a part whose end never came is said once",
	lines: "2026-12-01T09:00:00Z stdout P {\"request_id\":\"r-1\",\n2026-12-01T09:00:00Z stdout P \"status\":",
	want:  "skip@1 a line the container runtime split (CRI P) whose end (F) never came; ignored 2",
}}

// TestCRIRuns reads each case at every place a batch could end: the
// result is the same as in one batch, and as the case wants.
func TestCRIRuns(t *testing.T) {
	for _, c := range criCases {
		lines := bytes.Split([]byte(c.lines), []byte("\n"))
		for cut := range len(lines) + 1 {
			if got := criRead(lines, cut, 64); got != c.want {
				t.Errorf("%s, batch cut before line %d:\n got %s\nwant %s", c.name, cut+1, got, c.want)
			}
		}
	}
}

// FuzzCRI reads any lines as a container runtime's, in two batches cut
// anywhere: it must not panic, and where the batch ends must change
// nothing of what is read, ignored or skipped.
func FuzzCRI(f *testing.F) {
	for _, c := range criCases {
		f.Add([]byte(c.lines), 1)
	}
	f.Add([]byte("2026-12-01T09:00:00Z stdout P  \r\n\xef\xbb\xbf2026-12-01T09:00:00Z stderr P x \n2026-12-01T09:00:00Z stdout F"), 2)
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		lines := bytes.Split(data, []byte("\n"))
		if len(lines) > 200 {
			return
		}
		cut = max(0, min(len(lines), cut))
		if one, two := criRead(lines, 0, 64), criRead(lines, cut, 64); one != two {
			t.Fatalf("cut before line %d:\n%s\nin one batch:\n%s", cut+1, two, one)
		}
	})
}
