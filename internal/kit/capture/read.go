package capture

import (
	"context"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/idem-cli/idem/formats"
	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/load"
	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/trace"
	"github.com/tidwall/gjson"
)

// Reading is what idem made of some logs, read the way load.Files
// reads them: the per-input summaries, the correlated set, and every
// observation by the line it came from, beside each log's lines.
type Reading struct {
	Inputs []*model.Input
	Set    *model.Set
	// Obs are every observation, in input and line order.
	Obs []*model.Observation

	lines map[string][]string
}

// Read reads paths with ingest.Read into a trace.Correlator (after
// the fields learned from their joins, as load.Files), keeping a copy of
// every observation beside it.
func Read(ctx context.Context, paths ...string) (*Reading, error) {
	return ReadWith(ctx, nil, paths...)
}

// ReadWith is Read with a --config file's configuration (a source's
// log_format), as diagnose --config reads.
func ReadWith(ctx context.Context, cfg *formats.Config, paths ...string) (*Reading, error) {
	c := trace.NewCorrelator(nil)
	var keep collector
	opts, learned, err := load.LearnJoins(ctx, paths, ingest.Options{Workers: 1, Config: cfg})
	if err != nil {
		return nil, err
	}
	inputs, err := ingest.Read(ctx, paths, opts, ingest.Tee(c, &keep))
	if err != nil {
		return nil, err
	}
	load.NoteJoins(inputs, learned)
	r := &Reading{Inputs: inputs, Set: c.Set(inputs), Obs: keep.obs, lines: map[string][]string{}}
	for _, p := range paths {
		if r.lines[p], err = ReadLines(p); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// MustRead is Read, failing t when it cannot.
func MustRead(t testing.TB, paths ...string) *Reading {
	t.Helper()
	r, err := Read(context.Background(), paths...)
	if err != nil {
		t.Fatalf("read %v: %v", paths, err)
	}
	return r
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

// Of is the observation read from src, nil when the line gave none.
func (r *Reading) Of(src model.Source) *model.Observation {
	at := r.At(src.File, src.Line)
	if len(at) == 0 {
		return nil
	}
	return at[len(at)-1]
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

// Lines are file's lines as read.
func (r *Reading) Lines(file string) []string { return r.lines[file] }

// Line is a log line and where it is.
type Line struct {
	Src  model.Source
	Text string
}

// Find is the JSON lines of file that pick accepts and that hold want at
// one of paths (gjson paths).
func (r *Reading) Find(file string, paths []string, want string, pick func(gjson.Result) bool) []Line {
	var out []Line
	for i, l := range r.lines[file] {
		j := gjson.Parse(l)
		if !pick(j) {
			continue
		}
		for _, p := range paths {
			if v := j.Get(p); v.Exists() && v.String() == want {
				out = append(out, Line{model.Source{File: file, Line: i + 1}, l})
				break
			}
		}
	}
	return out
}

// Deliveries is every delivery idem built, keyed or not, by request id.
func (r *Reading) Deliveries(keys []string) map[string]*model.Delivery {
	out := map[string]*model.Delivery{}
	add := func(d *model.Delivery) {
		if _, ok := out[d.RequestID]; !ok {
			out[d.RequestID] = d
		}
	}
	for _, in := range r.Set.Built {
		for _, d := range in.Deliveries {
			add(d)
		}
	}
	for _, k := range keys {
		for _, in := range r.Set.FindIntent(k) {
			for _, d := range in.Deliveries {
				add(d)
			}
		}
	}
	for _, d := range r.Set.Unkeyed {
		add(d)
	}
	return out
}

// IDs are the request ids of deliveries, sorted: for messages.
func IDs(deliveries map[string]*model.Delivery) []string {
	var out []string
	for k := range deliveries {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Sources are the lines a delivery holds.
func Sources(d *model.Delivery) []model.Source {
	var out []model.Source
	for _, o := range d.Observations {
		out = append(out, o.Source)
	}
	return out
}

// Tiers are the tiers of a delivery's observations, in order: for
// messages.
func Tiers(d *model.Delivery) string {
	var ts []string
	for _, o := range d.Observations {
		ts = append(ts, o.Tier.String())
	}
	return strings.Join(ts, ",")
}

// EffectIDs are the result ids of effects, joined by commas.
func EffectIDs(obs []*model.Observation) string {
	var out []string
	for _, o := range obs {
		out = append(out, o.ResultID)
	}
	return strings.Join(out, ",")
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
