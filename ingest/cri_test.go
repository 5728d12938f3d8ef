package ingest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/model"

	"github.com/klauspost/compress/gzip"
)

// criParts is a container runtime's file of one line split into n P
// parts then its F, a whole line before and after it. The joined line is
// a JSON line whose message is n bytes long.
func criParts(n int) []byte {
	var b bytes.Buffer
	b.Grow(n*32 + 512)
	b.WriteString(`2026-12-01T09:00:00Z stdout F {"time":"2026-12-01T09:00:00Z","msg":"before","request_id":"r-before","status":200}` + "\n")
	b.WriteString(`2026-12-01T09:00:01Z stdout P {"time":"2026-12-01T09:00:01Z","msg":"` + "\n")
	for range n - 1 {
		b.WriteString("2026-12-01T09:00:01Z stdout P x\n")
	}
	b.WriteString(`2026-12-01T09:00:01Z stdout F ","request_id":"r-joined","status":201}` + "\n")
	b.WriteString(`2026-12-01T09:00:02Z stdout F {"time":"2026-12-01T09:00:02Z","msg":"after","request_id":"r-after","status":200}` + "\n")
	return b.Bytes()
}

func gzipped(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// readFile reads data written to a file of the name, timed.
func readFile(t *testing.T, name string, data []byte, opts Options) ([]*model.Observation, *model.Input, time.Duration) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var col Collector
	start := time.Now()
	inputs, err := Read(context.Background(), []string{path}, opts, &col)
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	return col.Obs, inputs[0], took
}

// TestCRIManyPartsAreLinear reads a line split into 100,000 and then
// 1,000,000 parts, plain and gzipped: every part is counted once as
// ignored, the joined line is read, and the time grows with the input,
// not with its square (100,000 parts took 45 s when each batch carried
// all the parts before it).
func TestCRIManyPartsAreLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 30 MB of parts")
	}
	took := map[int]time.Duration{}
	for _, n := range []int{100_000, 1_000_000} {
		plain := criParts(n)
		for _, c := range []struct {
			name string
			data []byte
		}{{"pod.log", plain}, {"pod.log.gz", gzipped(t, plain)}} {
			obs, in, d := readFile(t, c.name, c.data, Options{Workers: 2})
			t.Logf("%d parts, %s (%d bytes): %v", n, c.name, len(c.data), d)
			if d > 60*time.Second {
				t.Errorf("%d parts (%s) took %v", n, c.name, d)
			}
			var ids []string
			for _, o := range obs {
				ids = append(ids, fmt.Sprintf("%s@%d", o.RequestID, o.Source.Line))
			}
			want := fmt.Sprintf("r-before@1 r-joined@2 r-after@%d", n+3)
			if strings.Join(ids, " ") != want || in.Ignored != n || in.Skipped != 0 || in.Lines != n+3 {
				t.Errorf("%d parts (%s): %q, %d ignored, %d skipped (%v) of %d lines; want %q, %d ignored, none skipped",
					n, c.name, strings.Join(ids, " "), in.Ignored, in.Skipped, in.SkipSamples, in.Lines, want, n)
			}
			if c.name == "pod.log" {
				took[n] = d
			}
		}
	}
	// Ten times the parts: linear is ten times the time; the carried
	// parts made it a hundred. Generous for a busy machine.
	if small, big := took[100_000], took[1_000_000]; big > 40*max(small, 20*time.Millisecond) {
		t.Errorf("10x the parts took %v against %v: not linear", big, small)
	}
}

// TestCRIPartsPastTheBoundAreOneSkip reads a line whose parts join past
// --max-line-bytes: it is one skipped line, cited by its first part, its
// parts are ignored once each, and the lines around it are read, however
// the batches fall.
func TestCRIPartsPastTheBoundAreOneSkip(t *testing.T) {
	defer func(b, l int) { batchBytes, maxBatchLines = b, l }(batchBytes, maxBatchLines)
	const n = 5_000
	data := criParts(n)
	for _, c := range []struct {
		name         string
		bytes, lines int
	}{{"one batch", 1 << 20, 1 << 16}, {"small batches", 4096, 1 << 16}, {"few lines a batch", 1 << 20, 7}} {
		batchBytes, maxBatchLines = c.bytes, c.lines
		obs, in, _ := readFile(t, "pod.log", data, Options{Workers: 2, MaxLineBytes: 1024})
		var ids []string
		for _, o := range obs {
			ids = append(ids, o.RequestID)
		}
		if strings.Join(ids, " ") != "r-before r-after" || in.Ignored != n || in.Skipped != 1 || in.Lines != n+3 {
			t.Errorf("%s: %v, %d ignored, %d skipped of %d lines; want the lines around, %d ignored, 1 skipped", c.name, ids, in.Ignored, in.Skipped, in.Lines, n)
			continue
		}
		if s := in.SkipSamples[0]; s.Source.Line != 2 || !strings.Contains(s.Reason, "longer than 1024 bytes") {
			t.Errorf("%s: skip %+v, want line 2, longer than 1024 bytes", c.name, s)
		}
	}
	// Under the bound, the same parts join wherever the batches end.
	for _, c := range []struct{ bytes, lines int }{{1 << 20, 1 << 16}, {4096, 1 << 16}, {1 << 20, 7}, {100, 3}} {
		batchBytes, maxBatchLines = c.bytes, c.lines
		obs, in, _ := readFile(t, "pod.log", data, Options{Workers: 3})
		if len(obs) != 3 || obs[1].RequestID != "r-joined" || obs[1].Source.Line != 2 || in.Ignored != n || in.Skipped != 0 {
			t.Errorf("batches of %d bytes, %d lines: %d observations, %d ignored, %d skipped (%v)", c.bytes, c.lines, len(obs), in.Ignored, in.Skipped, in.SkipSamples)
		}
	}
}

// TestCRIStreamsJoinApart reads stdout and stderr interleaved, as the
// runtime writes them into one file: a stderr line between a stdout
// line's parts is read, not swallowed into the stdout line, and each
// stream's parts join, wherever a batch ends.
func TestCRIStreamsJoinApart(t *testing.T) {
	data := "2026-12-01T09:00:00Z stdout P {\"time\":\"2026-12-01T09:00:00Z\",\"msg\":\"out\",\n" + // 1
		"2026-12-01T09:00:00Z stderr P {\"time\":\"2026-12-01T09:00:00Z\",\"msg\":\"err\",\n" + // 2
		"2026-12-01T09:00:00Z stderr F \"request_id\":\"r-err\",\"status\":500}\n" + // 3
		"2026-12-01T09:00:01Z stderr F {\"time\":\"2026-12-01T09:00:01Z\",\"msg\":\"whole\",\"request_id\":\"r-whole\",\"status\":502}\n" + // 4
		"2026-12-01T09:00:00Z stdout F \"request_id\":\"r-out\",\"status\":201}\n" + // 5
		"2026-12-01T09:00:02Z stdout P {\"time\":\"2026-12-01T09:00:02Z\",\"msg\":\"never ends\",\n" // 6
	defer func(b, l int) { batchBytes, maxBatchLines = b, l }(batchBytes, maxBatchLines)
	for _, c := range []struct{ bytes, lines int }{{1 << 20, 1 << 16}, {100, 1 << 16}, {1 << 20, 1}, {1 << 20, 2}} {
		batchBytes, maxBatchLines = c.bytes, c.lines
		obs, in := readString(t, "pod.log", data, Options{Workers: 2})
		var ids []string
		for _, o := range obs {
			ids = append(ids, fmt.Sprintf("%s@%d", o.RequestID, o.Source.Line))
		}
		if got, want := strings.Join(ids, " "), "r-err@2 r-whole@4 r-out@1"; got != want || in.Ignored != 3 || in.Skipped != 1 {
			t.Errorf("batches of %d bytes, %d lines: %q, %d ignored, %d skipped; want %q, 3 ignored, 1 skipped", c.bytes, c.lines, got, in.Ignored, in.Skipped, want)
			continue
		}
		if s := in.SkipSamples[0]; s.Source.Line != 6 || !strings.Contains(s.Reason, "never came") {
			t.Errorf("batches of %d bytes, %d lines: skip %+v, want line 6's end never came", c.bytes, c.lines, s)
		}
	}
}

// A part longer than --max-line-bytes is skipped as any line is, and the
// line it is a part of is cut there: never joined without it (a JSON line
// less a middle part can still read, wrongly). Wherever the batches end,
// and whether the part is its line's first or a later one.
func TestCRIPartPastTheBoundCutsItsLine(t *testing.T) {
	huge := strings.Repeat("y", 3000)
	for _, c := range []struct {
		name, data string
		ignored    int
	}{{
		name: "a middle part",
		data: "2026-12-01T09:00:00Z stdout P {\"time\":\"2026-12-01T09:00:00Z\",\"status\":201,\n" + // 1
			"2026-12-01T09:00:00Z stdout P \"msg\":\"" + huge + "\",\n" + // 2: skipped
			"2026-12-01T09:00:00Z stderr F {\"time\":\"2026-12-01T09:00:01Z\",\"request_id\":\"r-err\",\"status\":500}\n" + // 3
			"2026-12-01T09:00:00Z stdout F \"request_id\":\"r-cut\"}\n" + // 4: the cut line's end
			"2026-12-01T09:00:02Z stdout F {\"time\":\"2026-12-01T09:00:02Z\",\"request_id\":\"r-after\",\"status\":200}\n", // 5
		ignored: 1,
	}, {
		name: "the first part",
		data: "2026-12-01T09:00:00Z stdout P {\"msg\":\"" + huge + "\",\n" + // 1: skipped
			"2026-12-01T09:00:00Z stdout P \"time\":\"2026-12-01T09:00:00Z\",\"status\":201,\n" + // 2
			"2026-12-01T09:00:00Z stderr F {\"time\":\"2026-12-01T09:00:01Z\",\"request_id\":\"r-err\",\"status\":500}\n" + // 3
			"2026-12-01T09:00:00Z stdout F \"request_id\":\"r-cut\"}\n" + // 4
			"2026-12-01T09:00:02Z stdout F {\"time\":\"2026-12-01T09:00:02Z\",\"request_id\":\"r-after\",\"status\":200}\n", // 5
		ignored: 1,
	}} {
		defer func(b, l int) { batchBytes, maxBatchLines = b, l }(batchBytes, maxBatchLines)
		for _, bc := range []struct{ bytes, lines int }{{1 << 20, 1 << 16}, {1500, 1 << 16}, {200, 1 << 16}, {1 << 20, 1}, {1 << 20, 2}} {
			batchBytes, maxBatchLines = bc.bytes, bc.lines
			obs, in := readString(t, "pod.log", c.data, Options{Workers: 2, MaxLineBytes: 1024})
			var ids, skips []string
			for _, o := range obs {
				ids = append(ids, o.RequestID)
			}
			for _, s := range in.SkipSamples {
				skips = append(skips, fmt.Sprintf("%d %s", s.Source.Line, s.Reason))
			}
			if strings.Join(ids, " ") != "r-err r-after" || in.Skipped != 2 || in.Ignored != c.ignored || in.Lines != 5 {
				t.Errorf("%s, batches of %d bytes, %d lines: %v, %d skipped %v, %d ignored; want r-err r-after, 2 skipped, %d ignored",
					c.name, bc.bytes, bc.lines, ids, in.Skipped, skips, in.Ignored, c.ignored)
			}
		}
	}
}

// TestLongTraceIsLinear reads a client's trace of 100,000 and then
// 1,000,000 header lines (curl's "> "), every one of which a batch that
// ends inside it would carry to the next: the carry is bounded, so the
// time grows with the input, not with its square.
func TestLongTraceIsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 20 MB of trace")
	}
	took := map[int]time.Duration{}
	for _, n := range []int{100_000, 1_000_000} {
		var b bytes.Buffer
		b.WriteString("> POST /v1/orders HTTP/1.1\n")
		for range n {
			b.WriteString("> X-Note: v\n")
		}
		_, in, d := readFile(t, "trace.log", b.Bytes(), Options{Workers: 2})
		t.Logf("%d header lines: %v", n, d)
		if in.Lines != n+1 || d > 60*time.Second {
			t.Errorf("%d header lines: %d lines read in %v", n, in.Lines, d)
		}
		took[n] = d
	}
	if small, big := took[100_000], took[1_000_000]; big > 40*max(small, 20*time.Millisecond) {
		t.Errorf("10x the trace took %v against %v: not linear", big, small)
	}
}
