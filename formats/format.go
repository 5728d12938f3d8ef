// Package formats holds idem's knowledge of log formats: how each format
// is recognised, what it says about a request, its default tier, its
// names, its documentation and sample lines with the fields they yield.
//
// Each format has one file (nginx.go, har.go, alb.go, …) that defines one
// *Format; registry.go lists them all in the order they are tried, which is
// the whole story of precedence. A JSON line is recognised by its key set
// (the answer is cached per key set, so mixed files stay fast); a text line
// by the text formats in order; an envelope (an aggregator's export)
// unwraps the original line and reads it again. The reader (package
// ingest) hands lines to a Parser; the Parser fills model.Observations.
package formats

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/idem-cli/idem/model"
)

// kind says how a format's lines are read.
type kind uint8

// The kinds of format.
const (
	kindJSON     kind = iota + 1 // one JSON object per record
	kindText                     // a text line
	kindEnvelope                 // an export's wrapper around lines of other formats
	kindTrace                    // a trace's spans, each its own observation, its tier from its kind
)

func (k kind) String() string {
	switch k {
	case kindJSON:
		return "JSON"
	case kindText:
		return "text"
	case kindEnvelope:
		return "envelope"
	case kindTrace:
		return "trace"
	}
	return "unknown"
}

// format is one family of log lines mapped onto the model.
type format struct {
	// Name is how the format is named in flags, the config and reports.
	Name string
	// Aliases are other names a user may give it.
	Aliases []string
	Kind    kind
	// Tier is the tier its lines come from unless they say otherwise;
	// unknown for envelopes, whose lines say it.
	Tier model.Tier
	// Doc is one line for 'idem help formats' and docs/formats.md.
	Doc string
	// Setup, for a proxy, is the configuration that makes it log what idem
	// joins on (the request id and the Idempotency-Key).
	Setup string
	// Samples are real lines of the format with the fields they must
	// yield; a test reads each.
	Samples []sample

	// match recognises a JSON record by its key set (so its answer can be
	// cached per key set).
	match func(r *record) bool
	// extract fills an observation and says whether the line is about a
	// request at all.
	extract func(p *Parser, r *record, o *model.Observation) bool
	// expand, when set, turns one record into several (a batch, an
	// envelope, a document on one line), each read on its own; it
	// reports false when the record is not one to expand, and extract
	// reads it instead.
	expand func(p *Parser, r *record, src model.Source) bool
	// text reads a text line, reporting whether it was of this format.
	text func(p *Parser, line string, src model.Source) bool
	// durations is the unit of a bare duration or latency number, where
	// the logger documents one (0: read by how it is written).
	durations model.Unit
	// vocabulary says the format's lines are read through the shared
	// vocabulary (extractApp): its Fields are the vocabulary's names, a log
	// store is asked for them, and --explain-fields says so.
	vocabulary bool
}

// sample is a line of a format and the observation it must yield: every
// field set in Want must be read as it is; Count, when set, is how many
// observations the line gives (envelopes and batches give several).
type sample struct {
	Line   string
	Want   model.Observation
	Count  int
	Origin string // where the line comes from, when not from the format's own documentation
	// Known, when set, says how idem misreads this real line today: the
	// test logs the differences instead of failing, and fails once the
	// line reads as Want says, so the note goes with the fix.
	Known string
}

// names reports every name the format answers to.
func (f *format) names() []string { return append([]string{f.Name}, f.Aliases...) }

// all returns every format, in the order they are tried.
func all() []*format { return slices.Clone(registry) }

// ByName finds a format by its name or an alias, or returns nil.
func ByName(name string) *format {
	name = strings.ToLower(strings.TrimSpace(name))
	for _, f := range registry {
		if slices.Contains(f.names(), name) {
			return f
		}
	}
	return nil
}

// Names lists every name and alias a user can give, in registry order.
func Names() []string {
	var out []string
	for _, f := range registry {
		out = append(out, f.names()...)
	}
	return out
}

// unknownFormatError is a format name that no format answers to.
type unknownFormatError struct{ Name string }

func (e *unknownFormatError) Error() string {
	return fmt.Sprintf("unknown format %q (known: %s)", e.Name, strings.Join(Names(), ", "))
}

// lookup is ByName with an error for an unknown name.
func lookup(name string) (*format, error) {
	if f := ByName(name); f != nil {
		return f, nil
	}
	return nil, &unknownFormatError{Name: name}
}

// mustTime reads a sample's time.
func mustTime(s string) time.Time {
	t, ok := model.ParseTime(s)
	if !ok {
		panic("bad sample time " + s)
	}
	return t
}
