package ingest

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/idem-cli/idem/model"
)

// roomCounter keeps the largest observation array a batch was handed in.
type roomCounter struct {
	obs, room int
}

func (c *roomCounter) Prepare(*model.Batch) {}
func (c *roomCounter) Consume(b *model.Batch) {
	c.obs += len(b.Obs)
	c.room = max(c.room, cap(b.Obs))
}

// TestBatchRoomFollowsObservations: a batch's observation array follows
// what its lines make, not how many lines it has. Lines that make nothing
// (empty, unreadable, an empty object) get no more room than a worker's
// first batch, however many there are.
func TestBatchRoomFollowsObservations(t *testing.T) {
	for _, line := range []string{"", "x", "{}", "   "} {
		for _, n := range []int{100_000, 400_000} {
			var c roomCounter
			data := strings.Repeat(line+"\n", n)
			in, err := Read(context.Background(), []string{"-"}, Options{Stdin: strings.NewReader(data), Workers: 2}, &c)
			if err != nil {
				t.Fatal(err)
			}
			if c.obs != 0 || in[0].Lines != n {
				t.Fatalf("%q×%d: %d observations from %d lines", line, n, c.obs, in[0].Lines)
			}
			if c.room > firstObs+firstObs/4 {
				t.Errorf("%q×%d: a batch had room for %d observations, none made", line, n, c.room)
			}
		}
	}
}

// TestNewlineBombAllocatesLittle: the bytes allocated to read a file of
// newlines do not grow with its length (a 16 KB gzip of 16 MB of them
// took 4 GB when every line had room for an observation).
func TestNewlineBombAllocatesLittle(t *testing.T) {
	alloc := func(n int) uint64 {
		data := strings.Repeat("\n", n)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		var c roomCounter
		in, err := Read(context.Background(), []string{"-"}, Options{Stdin: strings.NewReader(data), Workers: 2}, &c)
		runtime.ReadMemStats(&after)
		if err != nil || in[0].Lines != n {
			t.Fatalf("%d newlines: %v, %d lines", n, err, in[0].Lines)
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	small, big := alloc(1<<20), alloc(16<<20)
	// Blocks of a megabyte are reused: what is allocated is a few of them,
	// whatever the length.
	if big > 32<<20 {
		t.Errorf("16 M newlines allocated %d MB (1 M: %d MB)", big>>20, small>>20)
	}
}

// TestShortLinesAllocateByTheBlock: a million one-byte lines that no
// format reads allocate what their skips need, not room per line for
// observations never made.
func TestShortLinesAllocateByTheBlock(t *testing.T) {
	data := strings.Repeat("x\n", 1<<20)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var c roomCounter
	in, err := Read(context.Background(), []string{"-"}, Options{Stdin: strings.NewReader(data), Workers: 2}, &c)
	runtime.ReadMemStats(&after)
	if err != nil || in[0].Skipped != 1<<20 {
		t.Fatalf("%v; %d skipped", err, in[0].Skipped)
	}
	// A skip is 56 bytes and a line's offsets 24, each perhaps twice
	// while a new batch's arrays grow; room for an observation per line
	// was 450 more (and each format's refusal made a MismatchError).
	if got := after.TotalAlloc - before.TotalAlloc; got > 256<<20 {
		t.Errorf("1 M one-byte lines allocated %d MB", got>>20)
	}
}

// TestBatchesHoldBoundedLines: a batch is cut at maxBatchLines, and every
// line is still handed on once, in order, with its number, across the
// cuts: empty lines counted but not handed on, too long ones skipped, a
// container runtime's parts kept with the line they end.
func TestBatchesHoldBoundedLines(t *testing.T) {
	defer func(n, b int) { maxBatchLines, batchBytes = n, b }(maxBatchLines, batchBytes)
	maxBatchLines, batchBytes = 7, 64
	var in strings.Builder
	var want []string
	for i := 1; i <= 500; i++ {
		var line string
		switch {
		case i%13 == 0: // empty
		case i%29 == 0:
			line = strings.Repeat("L", 90) // too long
			want = append(want, fmt.Sprintf("%d: skipped", i))
		case i%31 == 0:
			line = "2026-12-01T09:00:00.000000000Z stdout P part" + fmt.Sprint(i)
			want = append(want, fmt.Sprintf("%d: %s", i, line))
		default:
			line = fmt.Sprint("l", i)
			want = append(want, fmt.Sprintf("%d: %s", i, line))
		}
		in.WriteString(line + "\n")
	}
	for _, chunk := range []int{1, 5, 1 << 20} {
		var got []string
		info := &model.Input{Path: "cut"}
		err := split(context.Background(), chunkReader{strings.NewReader(in.String()), chunk}, info, 0, 80, nil, func(b *batch) {
			if len(b.ends)+len(b.res.Skips) > maxBatchLines {
				t.Fatalf("a batch of %d lines and %d skips", len(b.ends), len(b.res.Skips))
			}
			for _, s := range b.res.Skips {
				got = append(got, fmt.Sprintf("%d: skipped", s.Source.Line))
			}
			for i := range b.ends {
				got = append(got, fmt.Sprintf("%d: %s", b.nums[i], strings.TrimSuffix(string(b.data[b.starts[i]:b.ends[i]]), "\n")))
			}
			for i := 1; i < len(b.nums); i++ {
				if b.nums[i] <= b.nums[i-1] {
					t.Fatalf("lines %d then %d", b.nums[i-1], b.nums[i])
				}
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		sortByLine(got)
		if strings.Join(got, "\n") != strings.Join(want, "\n") || info.Lines != 500 {
			t.Errorf("reads of %d: %d lines counted\ngot\n%s\nwant\n%s", chunk, info.Lines, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

func sortByLine(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && cmpLineNo(s[j]) < cmpLineNo(s[j-1]); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
