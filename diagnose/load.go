package diagnose

import (
	stdcontext "context"

	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/trace"
)

// Load reads the inputs and correlates them into the set the rules, with
// their default options, look at; when capture is not nil, the reader
// hands it every batch too.
func Load(ctx stdcontext.Context, paths []string, read ingest.Options, capture ingest.Consumer) (*trace.Set, error) {
	return LoadBuild(ctx, paths, read, DefaultOptions().Build(), capture)
}

// LoadBuild is Load with the correlator told what to build (see
// Options.Build: the rules' needs under the thresholds in force).
func LoadBuild(ctx stdcontext.Context, paths []string, read ingest.Options, b trace.Build, capture ingest.Consumer) (*trace.Set, error) {
	read, learned, err := LearnJoins(ctx, paths, read)
	if err != nil {
		return nil, err
	}
	c, consumer := correlator(read, b, capture)
	inputs, err := ingest.Read(ctx, paths, read, consumer)
	if err != nil {
		return nil, err
	}
	NoteJoins(inputs, learned)
	return c.Set(inputs), nil
}

// LoadSources is LoadBuild over sources that are not files (a log
// store's answer).
func LoadSources(ctx stdcontext.Context, srcs []ingest.Source, read ingest.Options, b trace.Build) (*trace.Set, error) {
	c, consumer := correlator(read, b, nil)
	inputs, err := ingest.ReadSources(ctx, srcs, read, consumer)
	if err != nil {
		return nil, err
	}
	return c.Set(inputs), nil
}

// correlator makes the correlator for the read options' scope, building
// what b says, and the consumer the reader hands batches to.
func correlator(read ingest.Options, b trace.Build, capture ingest.Consumer) (*trace.Correlator, ingest.Consumer) {
	var scope []string
	if read.Config != nil {
		scope = read.Config.Scope
	}
	c := trace.NewCorrelator(scope)
	c.Build = b
	if capture != nil {
		return c, ingest.Tee(c, capture)
	}
	return c, c
}
