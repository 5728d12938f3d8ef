package ingest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"sort"
	"sync"
	"unicode/utf8"

	"github.com/idem-cli/idem/formats"
	"github.com/idem-cli/idem/internal/pages"
	"github.com/idem-cli/idem/model"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Consumer receives what the reader makes of its inputs, a batch at a
// time. Prepare is called on the parallel workers, several batches at
// once, and may only work on the batch it is given; Consume is called on
// one goroutine, for every batch in input and line order. After Consume
// the batch is used again: keep copies, not views.
type Consumer interface {
	Prepare(*model.Batch)
	Consume(*model.Batch)
}

// RawConsumer is a Consumer that also needs each observation's record as
// read (model.Batch.Raw), such as one that rebuilds captured requests.
type RawConsumer interface {
	Consumer
	WantsRaw() bool
}

// Sizer is a Consumer that can use the inputs' total size in bytes, known
// before the first batch, to size its tables.
type Sizer interface {
	Expect(bytes int64)
}

// Options control reading.
type Options struct {
	// Workers parse batches of lines in parallel; results do not depend
	// on their number. 0 means one per CPU.
	Workers int
	// MaxLineBytes bounds one line (at most MaxMaxLineBytes); a longer one
	// is skipped and counted.
	MaxLineBytes int
	// Config holds per-source overrides, scope and effect matchers.
	Config *formats.Config
	// Tier and Format, when set, apply to every input (flags).
	Tier   model.Tier
	Format string
	// Stdin is read for the input named "-".
	Stdin io.Reader
	// MaxSkipSamples bounds how many skipped lines are kept per input to
	// show; all are counted.
	MaxSkipSamples int
	// Progress, when set, is updated as the inputs are read.
	Progress *Progress
	// KeepGoing reads on past an input that cannot be opened: it is
	// summarised with an *OpenError as its Err, and Read returns no error
	// for it. Without it Read stops there with an *InputError.
	KeepGoing bool
}

// DefaultMaxLineBytes is generous: real lines with bodies reach megabytes.
const DefaultMaxLineBytes = 16 << 20

// MaxMaxLineBytes is the largest MaxLineBytes allowed: a line is held in
// memory once or twice while it is read, and a record names its values by
// 32-bit offsets.
const MaxMaxLineBytes = 1 << 30

// InputError is an input that could not be opened or read at all.
type InputError struct {
	Path string
	Err  error
}

func (e *InputError) Error() string { return fmt.Sprintf("%s: %v", e.Path, e.Err) }
func (e *InputError) Unwrap() error { return e.Err }

// OpenError is why an input could not be opened at all, as its summary's
// Err when Options.KeepGoing reads on past it.
type OpenError struct{ Err error }

func (e *OpenError) Error() string { return "not read: " + e.Err.Error() }
func (e *OpenError) Unwrap() error { return e.Err }

// Read reads every input in order and hands what it makes of them to c,
// in input and line order. It returns the per-input summaries. An input
// that cannot be opened is an *InputError, the inputs before it
// summarised, unless opts.KeepGoing says to read on.
func Read(ctx context.Context, paths []string, opts Options, c Consumer) ([]*model.Input, error) {
	if sz, ok := c.(Sizer); ok {
		sz.Expect(totalSize(paths))
	}
	srcs := make([]Source, len(paths))
	for i, p := range paths {
		srcs[i] = fileSource{path: p, stdin: opts.Stdin}
	}
	return ReadSources(ctx, srcs, opts, c)
}

// fileSource is a named file, or standard input named "-".
type fileSource struct {
	path  string
	stdin io.Reader
}

func (f fileSource) Name() string                                { return f.path }
func (f fileSource) Open(context.Context) (io.ReadCloser, error) { return open(f.path, f.stdin) }

// withDefaults fills the options a caller left unset.
func (opts Options) withDefaults() Options {
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = DefaultMaxLineBytes
	}
	opts.MaxLineBytes = min(opts.MaxLineBytes, MaxMaxLineBytes)
	if opts.MaxSkipSamples <= 0 {
		opts.MaxSkipSamples = 5
	}
	return opts
}

// readAll reads the sources in order into c.
func readAll(ctx context.Context, srcs []Source, opts Options, c Consumer) ([]*model.Input, error) {
	opts = opts.withDefaults()
	keepRaw := false
	if rc, ok := c.(RawConsumer); ok {
		keepRaw = rc.WantsRaw()
	}
	var inputs []*model.Input
	for _, src := range srcs {
		name := src.Name()
		rule, err := opts.Config.RuleFor(name, opts.Tier, opts.Format)
		if err != nil {
			return inputs, err
		}
		in := &reading{Input: &model.Input{Path: name, Formats: map[string]int{}, Secrets: map[string]int{}},
			tiers: map[model.Tier]int{}, rule: rule, opts: opts, c: c, keepRaw: keepRaw}
		rc, err := src.Open(ctx)
		if err != nil && opts.KeepGoing {
			in.Err = &OpenError{Err: err}
			in.finish()
			inputs = append(inputs, in.Input)
			continue
		}
		if err != nil {
			return inputs, &InputError{Path: name, Err: err}
		}
		var r io.Reader = rc
		if opts.Progress != nil {
			r = countingReader{r: rc, p: opts.Progress}
		}
		err = in.read(ctx, r)
		rc.Close()
		if errors.Is(err, context.Canceled) {
			return inputs, err
		}
		if err != nil {
			in.Err = err
		}
		in.finish()
		inputs = append(inputs, in.Input)
	}
	return inputs, nil
}

// reading is one input being read.
type reading struct {
	*model.Input
	tiers   map[model.Tier]int
	rule    *formats.SourceRule
	opts    Options
	c       Consumer
	keepRaw bool
	// firstSkip is the first skipped line with its text, for
	// Input.Unrecognised.
	firstSkip *model.Skip
}

// parser makes a parser for one worker reading this input.
func (in *reading) parser() *formats.Parser {
	p := formats.NewParser(in.opts.Config, in.rule)
	p.KeepRaw = in.keepRaw
	return p
}

// totalSize adds up the sizes of the regular files among paths.
func totalSize(paths []string) int64 {
	var size int64
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			size += st.Size()
		}
	}
	return size
}

// open opens a named input, refusing what cannot be a log file.
func open(path string, stdin io.Reader) (io.ReadCloser, error) {
	if path == "-" {
		if stdin == nil {
			stdin = os.Stdin
		}
		return io.NopCloser(stdin), nil
	}
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errors.New("no such file")
		}
		if errors.Is(err, fs.ErrPermission) {
			return nil, errors.New("permission denied")
		}
		return nil, err
	}
	switch {
	case st.IsDir():
		return nil, errors.New("is a directory (name the files in it, e.g. dir/*)")
	case st.Mode()&fs.ModeNamedPipe != 0:
		return nil, errors.New("is a named pipe; pipe it to standard input and name - instead")
	case !st.Mode().IsRegular():
		return nil, fmt.Errorf("is not a regular file (%s)", st.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return nil, errors.New("permission denied")
		}
		return nil, err
	}
	return mapFile(f, st.Size()), nil
}

// read detects compression and shape, then reads lines or a document.
func (in *reading) read(ctx context.Context, r io.Reader) error {
	br := bufio.NewReaderSize(r, 1<<20)
	magic, _ := br.Peek(4)
	switch {
	case len(magic) >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		zr, err := gzip.NewReader(br)
		if err != nil {
			return fmt.Errorf("gzip: %w", err)
		}
		defer zr.Close()
		in.Compression = "gzip"
		br = bufio.NewReaderSize(zr, 1<<20)
	case len(magic) >= 4 && bytes.Equal(magic, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return fmt.Errorf("zstd: %w", err)
		}
		defer zr.Close()
		in.Compression = "zstd"
		br = bufio.NewReaderSize(zr, 1<<20)
	}
	if isDocument(br) {
		if head, _ := br.Peek(len(formats.BOM)); bytes.Equal(head, formats.BOM) {
			br.Discard(len(formats.BOM)) // the JSON decoder would stop at it
		}
		return in.readDocument(ctx, br)
	}
	return in.readLines(ctx, br, 0)
}

// headBytes is how much of an input is looked at to tell a document from
// lines.
const headBytes = 64 << 10

// isDocument tells a JSON document (a HAR file, a JSON array export,
// pretty-printed objects) from lines. A HAR is a document whatever its
// layout, even all on one line, so that it streams entry by entry. Any
// other input is a document only when its first line is not a complete
// JSON value on its own and its start parses as JSON: a text log whose
// first line opens with "[" or "{" ("[2026-11-30T11:00:00Z] server
// starting", Envoy's "[2026-…] \"POST …", kubectl's "[pod/…]", a lone "[")
// is read as lines.
func isDocument(br *bufio.Reader) bool {
	head, _ := br.Peek(headBytes)
	head = bytes.TrimPrefix(head, formats.BOM)
	trimmed := bytes.TrimLeft(head, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '[' && trimmed[0] != '{' {
		return false
	}
	if isHAR(trimmed) {
		return true
	}
	if trimmed[0] == '{' {
		first, rest := trimmed, []byte(nil)
		if i := bytes.IndexByte(trimmed, '\n'); i >= 0 {
			first, rest = trimmed[:i], trimmed[i+1:]
		} else if len(head) == headBytes {
			return false // a long first line: treat as lines, the splitter bounds it
		}
		if json.Valid(bytes.TrimSpace(first)) {
			return false
		}
		// A broken first line of JSON lines is followed by another object; a
		// document's second line continues the first value.
		if next := bytes.TrimLeft(rest, "\r\n"); len(next) == 0 || next[0] == '{' {
			return false
		}
	}
	return jsonPrefix(trimmed)
}

// jsonPrefix reports whether b, the start of an input, parses as the start
// of a stream of JSON values: as far as b goes, nothing in it is a syntax
// error.
func jsonPrefix(b []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		if _, err := dec.Token(); err != nil {
			return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		}
	}
}

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
}

// reset empties a used batch, keeping its buffers.
func (b *batch) reset() {
	b.starts, b.ends, b.nums = b.starts[:0], b.ends[:0], b.nums[:0]
	b.res.Reset()
	b.done = make(chan struct{})
	b.firstSkip, b.repairs = nil, b.repairs[:0]
}

// batchBytes is how much is read at once (a variable so that tests can
// make batches small and many): one read straight into the
// batch (bufio hands reads this large through without copying), and about
// two thousand access-log lines for one worker.
var batchBytes = 1 << 20

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
			for b := range work {
				if cap(b.res.Obs) < len(b.ends) {
					// With room for a batch of shorter lines, pages written
					// (internal/pages): made to the line, a reused batch was
					// made anew at each longer one, 400 B a line of new pages.
					b.res.Obs = pages.Written(make([]model.Observation, 0, len(b.ends)+len(b.ends)/4))
				}
				p.Into(&b.res)
				p.Context(b.header)
				for i, end := range b.ends {
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
				p.Flush()
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
	var readErr error
	for readErr == nil {
		// Room for the carried line and a full block after it: bufio passes
		// a read of at least its own size straight through, uncopied.
		size := max(batchBytes+len(carry), 2*len(carry)) // a long line grows until it fits
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
		tooLong := func() {
			b.res.Skips = append(b.res.Skips, model.Skip{Source: model.Source{File: in.Path, Line: line},
				Reason: fmt.Sprintf("line longer than %d bytes", maxLine)})
		}
		start := 0
		for start < len(data) {
			i := bytes.IndexByte(data[start:], '\n')
			if i < 0 {
				break
			}
			end := start + i + 1
			line++
			switch {
			case skipping:
				skipping = false
				tooLong()
			case end-start-1 > maxLine: // the newline does not count
				tooLong()
			default:
				b.starts = append(b.starts, start)
				b.ends = append(b.ends, end)
				b.nums = append(b.nums, line)
			}
			start = end
		}
		// A line a container runtime split in parts (CRI P) goes to the
		// next batch with the rest of it, so that one parser joins them.
		for n := len(b.ends); readErr == nil && n > 0 && b.ends[n-1] == start && formats.Continued(data[b.starts[n-1]:start]); n-- {
			start = b.starts[n-1]
			b.starts, b.ends, b.nums = b.starts[:n-1], b.ends[:n-1], b.nums[:n-1]
			line--
		}
		if rest := data[start:]; len(rest) > 0 {
			switch {
			case errors.Is(readErr, io.EOF): // the last line, without a newline
				line++
				if skipping || len(rest) > maxLine {
					tooLong()
				} else {
					b.starts = append(b.starts, start)
					b.ends = append(b.ends, len(data))
					b.nums = append(b.nums, line)
				}
			case skipping || readErr != nil: // dropped; a read error is reported
			case len(rest) > maxLine:
				skipping = true
			default:
				carry = rest
			}
		} else if skipping && errors.Is(readErr, io.EOF) {
			line++
			tooLong()
		}
		// The W3C header in force where the next batch starts: its lines
		// are read by it wherever they fall.
		b.header = header
		if h := formats.HeaderLine(data[:start]); h != nil {
			header = bytes.Clone(h)
		}
		if len(b.ends) > 0 || len(b.res.Skips) > 0 {
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

// absorb merges a batch's results into the input summary and hands its
// observations to the consumer.
func (in *reading) absorb(res *formats.Result, tb *model.Batch) {
	// Tiers are counted in runs: one map update a run, not a line.
	run, count := model.Tier(0), 0
	for i := range res.Obs {
		if t := res.Obs[i].Tier; t != run {
			if count > 0 {
				in.tiers[run] += count
			}
			run, count = t, 0
		}
		count++
	}
	if count > 0 {
		in.tiers[run] += count
	}
	in.c.Consume(tb)
	in.Observations += len(res.Obs)
	in.Ignored += res.Ignored
	in.Repaired += res.Repaired
	in.Skipped += len(res.Skips)
	sort.SliceStable(res.Skips, func(i, j int) bool { return res.Skips[i].Source.Line < res.Skips[j].Source.Line })
	for _, s := range res.Skips {
		if len(in.SkipSamples) < in.opts.MaxSkipSamples {
			in.SkipSamples = append(in.SkipSamples, s)
		}
	}
	for k, v := range res.FormatCounts() {
		in.Formats[k] += v
	}
	for k, v := range res.Secrets {
		in.Secrets[k] += v
	}
}

// repairReason says what was done to a line read after a repair.
const repairReason = "raw control bytes inside a JSON string (RFC 8259 wants them escaped); read as if escaped"

// absorbSamples keeps the first skipped line's text and the first
// repaired lines, in line order (before the batch they come from is
// absorbed).
func (in *reading) absorbSamples(first *model.Skip, repairs []model.Skip) {
	if first != nil && in.firstSkip == nil {
		in.firstSkip = first
	}
	for _, r := range repairs {
		if len(in.RepairSamples) < in.opts.MaxSkipSamples {
			in.RepairSamples = append(in.RepairSamples, r)
		}
	}
}

// excerptBytes bounds the text kept of an unrecognised line.
const excerptBytes = 160

// excerpt copies the start of a line, without its line end.
func excerpt(line []byte) string {
	line = bytes.TrimRight(line, "\r\n")
	if len(line) > excerptBytes {
		line = line[:excerptBytes]
		// Not half a word: half a secret would escape redaction.
		if i := bytes.LastIndexAny(line, " \t,;&\"'"); i >= excerptBytes/2 {
			line = line[:i]
		}
		// Not half a character.
		for i := 0; i < utf8.UTFMax-1 && len(line) > 0; i++ {
			if r, n := utf8.DecodeLastRune(line); r != utf8.RuneError || n != 1 {
				break
			}
			line = line[:len(line)-1]
		}
	}
	return string(line)
}

// finish settles the input's dominant format and tier, and whether none
// of its lines was recognised.
func (in *reading) finish() {
	if in.Observations == 0 && in.Ignored == 0 && in.Skipped > 0 && len(in.SkipSamples) > 0 {
		u := in.SkipSamples[0]
		if f := in.firstSkip; f != nil && f.Source == u.Source {
			u.Text = f.Text
		}
		in.Unrecognised = &u
	}
	type kv struct {
		k string
		v int
	}
	var fs []kv
	for k, v := range in.Formats {
		fs = append(fs, kv{k, v})
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].v > fs[j].v || fs[i].v == fs[j].v && fs[i].k < fs[j].k })
	switch {
	case len(fs) == 0:
		in.Format = "none"
	case len(fs) == 1 || fs[0].v*10 >= in.Lines*9:
		in.Format = fs[0].k
	default:
		in.Format = "mixed"
	}
	best, n := model.TierUnknown, 0
	for t, c := range in.tiers {
		if c > n || c == n && t < best {
			best, n = t, c
		}
	}
	in.Tier = best.String()
}
