package ingest

import (
	"context"
	"errors"
	"io"
	"runtime"

	"github.com/idem-cli/idem/trace"
)

// Source is an input that is not a named file: lines fetched from a log
// store, say. Its name is what file:line citations show; its lines are
// read, decompressed and recognised exactly as a file's.
type Source interface {
	Name() string
	Open(ctx context.Context) (io.ReadCloser, error)
}

// ReadSources is Read over sources instead of paths: the same readers,
// formats, batches and consumer, in source order.
func ReadSources(ctx context.Context, srcs []Source, opts Options, c Consumer) ([]*trace.Input, error) {
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
	keepRaw := false
	if rc, ok := c.(RawConsumer); ok {
		keepRaw = rc.WantsRaw()
	}
	var inputs []*trace.Input
	for _, src := range srcs {
		name := src.Name()
		rule, err := opts.Config.RuleFor(name, opts.Tier, opts.Format)
		if err != nil {
			return inputs, err
		}
		in := &reading{Input: &trace.Input{Path: name, Formats: map[string]int{}, Secrets: map[string]int{}},
			tiers: map[trace.Tier]int{}, rule: rule, opts: opts, c: c, keepRaw: keepRaw}
		rc, err := src.Open(ctx)
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
