package harness

import (
	"context"
	"sync"

	"github.com/idem-cli/idem/correlate"
	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/model"
)

// Reading is what idem made of some logs: the per-input summaries, every
// observation by the line it came from, and the correlated set, read the
// way load.Files reads them.
type Reading struct {
	Inputs []*model.Input
	Set    *model.Set
	// Obs are every observation, in input and line order.
	Obs []*model.Observation
}

// Read reads paths with ingest.Read into a correlate.Correlator, keeping a
// copy of every observation beside it.
func Read(ctx context.Context, paths ...string) (*Reading, error) {
	c := correlate.NewCorrelator(nil)
	var keep collector
	inputs, err := ingest.Read(ctx, paths, ingest.Options{Workers: 1}, ingest.Tee(c, &keep))
	if err != nil {
		return nil, err
	}
	return &Reading{Inputs: inputs, Set: c.Set(inputs), Obs: keep.obs}, nil
}

// At is the observations read from file's line (1-based).
func (r *Reading) At(file string, line int) []*model.Observation {
	var out []*model.Observation
	for _, o := range r.Obs {
		if o.Source.File == file && o.Source.Line == line {
			out = append(out, o)
		}
	}
	return out
}

// From is the observations read from file, in order.
func (r *Reading) From(file string) []*model.Observation {
	var out []*model.Observation
	for _, o := range r.Obs {
		if o.Source.File == file {
			out = append(out, o)
		}
	}
	return out
}

// Input is the summary of file.
func (r *Reading) Input(file string) *model.Input {
	for _, in := range r.Inputs {
		if in.Path == file {
			return in
		}
	}
	return nil
}

// collector keeps a copy of every observation: batches are reused.
type collector struct {
	mu  sync.Mutex
	obs []*model.Observation
}

func (c *collector) Prepare(*model.Batch) {}

func (c *collector) Consume(b *model.Batch) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range b.Obs {
		c.obs = append(c.obs, b.Obs[i].Clone())
	}
}
