// Lines: an input split into batches of whole lines, each read by a
// worker's parser and handed on in order.

package ingest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/idem-cli/idem/formats"
	"github.com/idem-cli/idem/internal/pages"
	"github.com/idem-cli/idem/model"
)

// batch is a run of lines handed to one worker.
type batch struct {
	file   string
	data   []byte
	starts []int // where each line begins in data
	ends   []int // where each line ends in data (after its newline)
	nums   []int // line number of each line (too long lines are left out)
	res    formats.Result
	tb     model.Batch // res's observations, as the consumer sees them
	done   chan struct{}
	// firstSkip is the batch's first line skipped by the parser, with its
	// text; repairs are the first lines read after a repair.
	firstSkip *model.Skip
	repairs   []model.Skip
	// header is the W3C #Fields line in force where the batch starts
	// (formats.HeaderLine), nil where none is.
	header []byte
	// cri are a container runtime's split lines open where the batch
	// starts; last says the input ends with the batch, so that its parser
	// says which never ended.
	cri  formats.CRIRuns
	last bool
	// cuts are the container runtime's parts skipped for their length,
	// where they fell among the lines: their lines are cut there.
	cuts []formats.CRICut
}

// reset empties a used batch, keeping its buffers.
func (b *batch) reset() {
	b.starts, b.ends, b.nums = b.starts[:0], b.ends[:0], b.nums[:0]
	b.res.Reset()
	b.done = make(chan struct{})
	b.firstSkip, b.repairs = nil, b.repairs[:0]
	b.cri, b.last, b.cuts = formats.CRIRuns{}, false, b.cuts[:0]
}

// batchBytes is how much is read at once (a variable so that tests can
// make batches small and many): one read straight into the
// batch (bufio hands reads this large through without copying), and about
// two thousand access-log lines for one worker.
var batchBytes = 1 << 20

// maxBatchLines bounds the lines of one batch (a variable for tests):
// what a batch holds per line (its offsets, its skipped lines) then stays
// a few megabytes however short the lines are, as in a file of one-byte
// lines. A megabyte of access-log lines is two thousand.
var maxBatchLines = 1 << 16

// firstObs is the room for observations a worker's first batch is given;
// a batch that makes more grows its array.
const firstObs = 512

// readLines splits the input into batches of lines, parses them on
// opts.Workers goroutines, and consumes the results in order. The first
// line read is numbered after, the lines of the input before br.
func (in *reading) readLines(ctx context.Context, br *bufio.Reader, after int) error {
	opts := in.opts
	// Batches in flight are bounded by the CPUs, not the workers: more
	// workers than CPUs only wait, and each batch is a megabyte or two.
	depth := min(opts.Workers, runtime.GOMAXPROCS(0)+1)
	work := make(chan *batch, depth)
	order := make(chan *batch, depth*2)
	var wg sync.WaitGroup
	for i := 0; i < opts.Workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := in.parser()
			made := firstObs // observations the worker's last batch made
			for b := range work {
				// Room for what the last batch made and a quarter more,
				// never more than a line each, pages written
				// (internal/pages); append grows it past that. Sized by
				// the lines, a batch of a million empty or unreadable
				// lines held half a gigabyte of observations never made.
				if want := min(len(b.ends), made+made/4); cap(b.res.Obs) < want {
					b.res.Obs = pages.Written(make([]model.Observation, 0, want))
				}
				p.Into(&b.res)
				p.Context(b.header)
				p.Resume(b.cri)
				cuts := b.cuts
				for i, end := range b.ends {
					for len(cuts) > 0 && cuts[0].At <= i {
						p.Cut(cuts[0])
						cuts = cuts[1:]
					}
					skips, repaired := len(b.res.Skips), b.res.Repaired
					line := b.data[b.starts[i]:end]
					p.Line(line, model.Source{File: b.file, Line: b.nums[i]})
					// Rarely true: the comparisons cost nothing next to a parse.
					if len(b.res.Skips) > skips && b.firstSkip == nil {
						b.firstSkip = &model.Skip{Source: b.res.Skips[skips].Source, Reason: b.res.Skips[skips].Reason, Text: excerpt(line)}
					}
					if b.res.Repaired > repaired && len(b.repairs) < opts.MaxSkipSamples {
						reason := repairReason
						if b.res.LastRepair != "" {
							reason, b.res.LastRepair = b.res.LastRepair, ""
						}
						b.repairs = append(b.repairs, model.Skip{Source: model.Source{File: b.file, Line: b.nums[i]}, Reason: reason})
					}
				}
				for _, c := range cuts {
					p.Cut(c)
				}
				if b.last {
					p.Flush()
				}
				made = max(firstObs, len(b.res.Obs))
				b.tb.Obs, b.tb.Raw = b.res.Obs, b.res.Raw
				in.c.Prepare(&b.tb)
				close(b.done)
			}
		}()
	}

	// Batches are used again once absorbed: everything kept of a line has
	// been copied out by then, and reuse spares the collector a gigabyte
	// of garbage on a gigabyte of input.
	free := make(chan *batch, depth*3+2)
	var readErr error
	go func() {
		defer close(work)
		defer close(order)
		readErr = split(ctx, br, in.Input, after, opts.MaxLineBytes, free, func(b *batch) {
			order <- b
			work <- b
		})
	}()

	for b := range order {
		<-b.done
		in.absorbSamples(b.firstSkip, b.repairs)
		in.absorb(&b.res, &b.tb)
		if opts.Progress != nil {
			opts.Progress.Lines.Add(int64(len(b.ends) + len(b.res.Skips)))
		}
		select {
		case free <- b:
		default:
		}
	}
	wg.Wait()
	return readErr
}

// split cuts the stream into batches: it reads a block, hands on the
// complete lines in it and carries the unfinished last one over to the
// next block. A line longer than maxLine is skipped while it streams past,
// never held in memory whole. Lines are numbered from after+1.
func split(ctx context.Context, r io.Reader, in *model.Input, after, maxLine int, free chan *batch, send func(*batch)) error {
	line := after
	var carry []byte  // the unfinished line at the end of the last block
	var header []byte // the W3C #Fields line in force (formats.HeaderLine)
	skipping := false // inside a line longer than maxLine: drop bytes up to its newline
	full := false     // the last batch held maxBatchLines: carry holds whole lines too
	// A line a container runtime split in parts (CRI P) may span batches:
	// each batch's parser starts with the runs open where it begins.
	runs := formats.NewCRIRuns(maxLine)
	skipStream := -1 // the stream of the CRI part being skipped, or -1
	var readErr error
	for readErr == nil || full {
		// Room for the carried line and a full block after it: bufio passes
		// a read of at least its own size straight through, uncopied.
		size := max(batchBytes+len(carry), 2*len(carry)) // a long line grows until it fits
		if full {
			// Lines left over: the block is filled up to its size, not
			// grown, so that what is carried stays within a block.
			size = max(batchBytes, len(carry))
		}
		var b *batch
		select {
		case b = <-free:
			b.reset()
		default:
			b = &batch{file: in.Path, done: make(chan struct{})}
		}
		if cap(b.data) < size {
			b.data = make([]byte, max(size, batchBytes+64<<10))
		}
		buf := b.data[:size]
		n := copy(buf, carry)
		carry = nil
		for n < len(buf) && readErr == nil {
			var m int
			m, readErr = r.Read(buf[n:])
			n += m
		}
		data := buf[:n]
		b.data = data
		// tooLong skips a line; a container runtime's part (stream, else
		// -1) cuts the line it belongs to there.
		tooLong := func(stream int) {
			src := model.Source{File: in.Path, Line: line}
			b.res.Skips = append(b.res.Skips, model.Skip{Source: src, Reason: fmt.Sprintf("line longer than %d bytes", maxLine)})
			if stream >= 0 {
				b.cuts = append(b.cuts, formats.CRICut{At: len(b.ends), Stream: stream, Src: src})
			}
		}
		start := 0
		full = false
		for start < len(data) {
			if len(b.ends)+len(b.res.Skips) >= maxBatchLines {
				full = true
				break
			}
			i := bytes.IndexByte(data[start:], '\n')
			if i < 0 {
				break
			}
			end := start + i + 1
			line++
			switch {
			case skipping:
				skipping = false
				tooLong(skipStream)
			case end-start-1 > maxLine: // the newline does not count
				tooLong(criPart(data[start:end]))
			case i == 0 || i == 1 && data[start] == '\r':
				// An empty line says nothing (the parser passes over it):
				// only its number is kept, in the count.
			default:
				b.starts = append(b.starts, start)
				b.ends = append(b.ends, end)
				b.nums = append(b.nums, line)
			}
			start = end
		}
		tail := len(data) - start // the unfinished last line
		// A client's request trace (formats.TraceContinues) that the batch
		// ends inside goes to the next batch with the rest of it, so that
		// one parser reads it whole: at most formats.MaxTraceCarry bytes,
		// so that nothing is carried without end (a batch of nothing but
		// trace keeps its last line).
		join := (readErr == nil || full) && (full || tail <= maxLine && !skipping)
		for n := len(b.ends); join && n > 0 && (!full || n > 1) && b.ends[n-1] == start &&
			len(data)-b.starts[n-1] <= formats.MaxTraceCarry && formats.TraceContinues(data[b.starts[n-1]:start]); n-- {
			start = b.starts[n-1]
			b.starts, b.ends, b.nums = b.starts[:n-1], b.ends[:n-1], b.nums[:n-1]
			line--
		}
		if rest := data[start:]; full {
			carry = rest
		} else if len(rest) > 0 {
			switch {
			case errors.Is(readErr, io.EOF): // the last line, without a newline
				line++
				if skipping {
					tooLong(skipStream)
				} else if len(rest) > maxLine {
					tooLong(criPart(rest))
				} else {
					b.starts = append(b.starts, start)
					b.ends = append(b.ends, len(data))
					b.nums = append(b.nums, line)
				}
			case skipping || readErr != nil: // dropped; a read error is reported
			case tail > maxLine:
				skipping, skipStream = true, criPart(rest)
			default:
				carry = rest
			}
		} else if skipping && errors.Is(readErr, io.EOF) {
			line++
			tooLong(skipStream)
		}
		// The W3C header in force where the next batch starts: its lines
		// are read by it wherever they fall.
		b.header = header
		if h := formats.HeaderLine(data[:start]); h != nil {
			header = bytes.Clone(h)
		}
		b.cri = runs.Snapshot()
		runs.Follow(in.Path, data, b.starts, b.ends, b.nums, b.cuts)
		b.last = readErr != nil && !full
		if len(b.ends) > 0 || len(b.res.Skips) > 0 || b.last && b.cri.Open() {
			send(b)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	in.Lines = line
	if errors.Is(readErr, io.EOF) {
		return nil
	}
	return fmt.Errorf("read stopped after line %d: %w", line, readErr)
}

// criPart is the stream of a container runtime's part (CRI P) that line
// begins, or -1 when it begins none.
func criPart(line []byte) int {
	if stream, ok := formats.CRIPartStream(line); ok {
		return stream
	}
	return -1
}

// absorb merges a batch's results into the input summary and hands its
