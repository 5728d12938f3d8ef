package load

import (
	"context"
	"slices"
	"strings"

	"github.com/idem-cli/idem/formats"
	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/model"
)

// Fields found by the values they join (formats/join.go), before the
// inputs are correlated: a bounded sample of every input is read first;
// the ids every input's lines name (request ids, keys, result ids, at any
// tier) are known; an input whose lines left a request id or a key
// unnamed (a JSON field, or a text line's field by position) has its
// sampled values checked against what the other inputs named, and what
// joins becomes its field mappings for the reading that follows. A
// proxy learns from the server as a server learns from the proxy.
// Standard input cannot be read twice, so it is read once, as it is.

// sampleBytes is how much of each input the first reading looks at.
const sampleBytes = 4 << 20

// LearnJoins returns read with the fields learned from their joins mapped,
// and what was learned, by input.
func LearnJoins(ctx context.Context, paths []string, read ingest.Options) (ingest.Options, map[string][]formats.Join, error) {
	var files []string
	for _, p := range paths {
		if p != "-" {
			files = append(files, p)
		}
	}
	if len(files) < 2 {
		return read, nil, nil // a join needs another tier
	}
	opts := read
	// One worker: each parser samples a bounded number of records, so the
	// sample, and what is learned, must not depend on how many share it.
	opts.SampleBytes, opts.SampleFields, opts.KeepGoing, opts.Workers = sampleBytes, true, true, 1
	opts.Progress, opts.ExplainFields = nil, false
	var known knownIDs
	inputs, err := ingest.Read(ctx, files, opts, &known)
	if err != nil {
		if ctx.Err() != nil {
			return read, nil, err
		}
		return read, nil, nil // the reading proper says what went wrong
	}
	var cfg *formats.Config
	learned := map[string][]formats.Join{}
	for _, in := range inputs {
		if len(in.Candidates) == 0 {
			continue
		}
		joins := formats.LearnJoinsFor(in.Path, in.Candidates, &known.Known, nil)
		if len(joins) == 0 {
			continue
		}
		if cfg == nil {
			cfg = &formats.Config{}
			if read.Config != nil {
				*cfg = *read.Config
				cfg.Sources = slices.Clone(read.Config.Sources)
			}
		}
		if err := cfg.Learn(in.Path, joins); err != nil {
			continue
		}
		learned[in.Path] = joins
	}
	if cfg != nil {
		read.Config = cfg
	}
	return read, learned, nil
}

// NoteJoins says, in each input's Joined, what was learned of it; with
// --explain-fields its learned fields say what they joined.
func NoteJoins(inputs []*model.Input, learned map[string][]formats.Join) {
	for _, in := range inputs {
		for _, j := range learned[in.Path] {
			in.Joined = append(in.Joined, model.FieldUse{Field: j.Field, Path: j.Path, By: j.By()})
			for i, u := range in.Fields {
				if u.Field == j.Field && u.By == "config" && (u.Path == j.Path || strings.Contains(u.Path, j.Path)) {
					in.Fields[i].By = j.By()
				}
			}
		}
	}
}

// knownIDs collects what every input's lines name.
type knownIDs struct{ formats.Known }

func (k *knownIDs) Prepare(*model.Batch) {}

func (k *knownIDs) Consume(b *model.Batch) {
	for i := range b.Obs {
		k.Add(&b.Obs[i])
	}
}
