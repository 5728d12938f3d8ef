// Package load reads inputs and correlates what they say into a
// model.Set: the reader (ingest) handing its batches to the correlator
// (trace), and to a capturer beside it when one is given. Every
// command that reads logs goes through it. It decides nothing about what
// is built: the caller says (idem diagnose asks what its rules need, see
// diagnose.Options.Build).
package load

import (
	"context"

	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/trace"
)

// Options say how to read and what to build.
type Options struct {
	// Read are the reader's options; the scope of its config (see
	// formats.Config.Scope) scopes the keys.
	Read ingest.Options
	// Build is what the correlator builds besides the intents and
	// deliveries worth a look on their own; the zero Build builds only
	// those, and FindIntent builds the rest when asked.
	Build trace.Build
	// Capture, when not nil, is handed every batch too (see ingest.Tee).
	Capture ingest.Consumer
	// Released, when not nil, is called once the set has let go of the
	// correlator's store (see model.Set.LookupsDone and
	// trace.Correlator.Released).
	Released func()
	// ReadDone, when not nil, is called once every input is read, before
	// the deliveries are grouped into intents.
	ReadDone func()
}

// Files reads the files at paths ("-" for standard input) and
// correlates them, after learning the fields whose values join the
// certain tiers' ids (joins.go).
func Files(ctx context.Context, paths []string, opts Options) (*model.Set, error) {
	read, learned, err := LearnJoins(ctx, paths, opts.Read)
	if err != nil {
		return nil, err
	}
	opts.Read = read
	c, consumer := correlator(opts)
	inputs, err := ingest.Read(ctx, paths, opts.Read, consumer)
	if err != nil {
		return nil, err
	}
	NoteJoins(inputs, learned)
	return set(c, inputs, opts), nil
}

// Sources is Files over sources that are not files (a log store's
// answer).
func Sources(ctx context.Context, srcs []ingest.Source, opts Options) (*model.Set, error) {
	c, consumer := correlator(opts)
	inputs, err := ingest.ReadSources(ctx, srcs, opts.Read, consumer)
	if err != nil {
		return nil, err
	}
	return set(c, inputs, opts), nil
}

// set tells opts that reading is over, then groups what was read.
func set(c *trace.Correlator, inputs []*model.Input, opts Options) *model.Set {
	if opts.ReadDone != nil {
		opts.ReadDone()
	}
	return c.Set(inputs)
}

// correlator makes the correlator opts ask for, and the consumer the
// reader hands batches to.
func correlator(opts Options) (*trace.Correlator, ingest.Consumer) {
	var scope []string
	if opts.Read.Config != nil {
		scope = opts.Read.Config.Scope
	}
	c := trace.NewCorrelator(scope)
	c.Build, c.Released = opts.Build, opts.Released
	if opts.Capture != nil {
		return c, ingest.Tee(c, opts.Capture)
	}
	return c, c
}
