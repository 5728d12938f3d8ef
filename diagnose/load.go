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
	var scope []string
	if read.Config != nil {
		scope = read.Config.Scope
	}
	c := trace.NewCorrelator(scope)
	c.Build = b
	var consumer ingest.Consumer = c
	if capture != nil {
		consumer = ingest.Tee(c, capture)
	}
	inputs, err := ingest.Read(ctx, paths, read, consumer)
	if err != nil {
		return nil, err
	}
	return c.Set(inputs), nil
}
