package diagnose

import (
	stdcontext "context"

	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/trace"
)

// Load reads the inputs and correlates them into the set the rules look
// at; also, when capture is not nil, the reader hands it every batch.
func Load(ctx stdcontext.Context, paths []string, read ingest.Options, capture ingest.Consumer) (*trace.Set, error) {
	var scope []string
	if read.Config != nil {
		scope = read.Config.Scope
	}
	c := trace.NewCorrelator(scope)
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
