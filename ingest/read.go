// Package ingest reads inputs: it opens files and standard input (or any
// Source, such as a log store's answer), refuses what cannot be a log,
// decompresses gzip and zstd by their magic bytes, and tells a JSON
// document (a HAR, an export's array) from lines. Lines are split into
// batches read by formats.Parser on every core (big files through windows
// of a mapping); a document is streamed element by element. What is read
// goes to a Consumer: Prepare on the workers, Consume in input and line
// order, so that the same inputs always give the same result. Each input
// ends as a model.Input: what was read, recognised, ignored and skipped,
// with file:line for every line set aside.
//
// The reader knows nothing of what consumes it: package load wires it to
// the correlator.
package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/idem-cli/idem/formats"
	"github.com/idem-cli/idem/model"
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

// rawConsumer is a Consumer that also needs each observation's record as
// read (model.Batch.Raw), such as one that rebuilds captured requests.
type rawConsumer interface {
	Consumer
	WantsRaw() bool
}

// sizer is a Consumer that can use the inputs' total size in bytes, known
// before the first batch, to size its tables.
type sizer interface {
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
	// ExplainFields says, in each input's Fields, where its lines gave
	// each field (formats.Parser.Explain).
	ExplainFields bool
	// SampleBytes, when set, reads at most that many bytes of each input
	// (a sample: the last line may be cut).
	SampleBytes int64
	// SampleFields keeps, in each input's Candidates, the values of the
	// records whose request id or key no reading named
	// (formats.Parser.Sample), for the fields their values join.
	SampleFields bool
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
	if sz, ok := c.(sizer); ok {
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
	if rc, ok := c.(rawConsumer); ok {
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
		if opts.SampleBytes > 0 {
			r = io.LimitReader(r, opts.SampleBytes)
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
	assumed [model.TierProvider + 1]int // by tier, the observations Result.Assumed counts
	callers formats.Callers             // whose lines they are, in line order
	rule    *formats.SourceRule
	opts    Options
	c       Consumer
	keepRaw bool
	// firstSkip is the first skipped line with its text, for
	// Input.Unrecognised.
	firstSkip *model.Skip
	// uses counts where fields were read from (ExplainFields).
	uses map[model.FieldUse]int
}

// parser makes a parser for one worker reading this input.
func (in *reading) parser() *formats.Parser {
	p := formats.NewParser(in.opts.Config, in.rule)
	p.KeepRaw = in.keepRaw
	p.Explain = in.opts.ExplainFields
	p.Sample = in.opts.SampleFields
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
