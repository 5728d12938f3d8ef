package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/formats"
	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/load"
	"github.com/idem-cli/idem/logstore"
	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/report"
	"github.com/idem-cli/idem/trace"
	"github.com/spf13/cobra"
)

// inputFlags are the flags every command that reads logs shares.
type inputFlags struct {
	ConfigPath string
	Quiet      bool
	// ExplainFields says what was taken for what in each input.
	ExplainFields bool
	Tier          string
	// TierOf corrects the tier of single inputs, each FILE=TIER
	// (--tier): applied as the config's per-source tier, after it.
	TierOf       []string
	Format       string
	Scope        []string
	Workers      int
	MaxLineBytes int
	progressMin  int64 // inputs smaller than this show no progress (tests lower it)
	// build, when set, is what the correlator builds: diagnose sets it
	// from its rules' needs under the thresholds in force.
	build *trace.Build
	// Store, with --from, reads a log store instead of files, over window.
	Store  storeFlags
	window logstore.Window
}

func (fl *inputFlags) register(cmd *cobra.Command) {
	fl.progressMin = progressMinBytes
	fs := cmd.Flags()
	fs.StringVar(&fl.ConfigPath, "config", "", "JSON config file: per-source tier, format, field mappings, scope, effects (docs/config.md)")
	fs.StringVar(&fl.Tier, "input-tier", "", "treat every input as this tier: client, proxy, server, worker or provider")
	if cmd.Flags().Lookup("tier") == nil { // diagnose's --tier takes both (see DiagnoseOptions.tierArgs)
		fs.StringArrayVar(&fl.TierOf, "tier", nil, "correct one input's tier, FILE=TIER, e.g. --tier client.log=client (repeatable)")
	}
	fs.StringVar(&fl.Format, "input-format", "", "treat every input as this format (see 'idem help formats')")
	fs.StringSliceVar(&fl.Scope, "scope", nil, "extra fields that scope a key, e.g. --scope tenant_id,route")
	fs.IntVar(&fl.Workers, "workers", 0, "parser goroutines (0: one per CPU); results do not depend on it")
	fs.IntVar(&fl.MaxLineBytes, "max-line-bytes", ingest.DefaultMaxLineBytes, "skip (and count) lines longer than this many bytes (1024 to 1 GiB)")
	fs.BoolVarP(&fl.Quiet, "quiet", "q", false, "no progress display on standard error")
	fs.BoolVar(&fl.ExplainFields, "explain-fields", false, "say, per input, which field of its lines was taken for what and why, as --config lines to correct")
}

// options turns the flags into reading options.
func (fl *inputFlags) options(f *Factory) (ingest.Options, error) {
	opts := ingest.Options{Workers: fl.Workers, MaxLineBytes: fl.MaxLineBytes, Format: fl.Format, Stdin: f.IO.In, ExplainFields: fl.ExplainFields}
	if fl.Workers < 0 {
		return opts, usagef("--workers must be 0 or more")
	}
	if fl.MaxLineBytes < 1024 || fl.MaxLineBytes > ingest.MaxMaxLineBytes {
		return opts, usagef("--max-line-bytes must be from 1024 to %d (1 GiB)", ingest.MaxMaxLineBytes)
	}
	if fl.Tier != "" {
		t, err := model.ParseTier(fl.Tier)
		if err != nil {
			return opts, &usageError{Err: err}
		}
		opts.Tier = t
	}
	if fl.Format != "" && formats.ByName(fl.Format) == nil {
		return opts, usagef("unknown --input-format %q (known: %s; see 'idem help formats')", fl.Format, strings.Join(formats.Names(), ", "))
	}
	cfg := &formats.Config{}
	if fl.ConfigPath != "" {
		c, err := formats.LoadConfig(fl.ConfigPath)
		if err != nil {
			return opts, err
		}
		cfg = c
	}
	cfg.Scope = append(cfg.Scope, fl.Scope...)
	fl.tiersInto(cfg, &opts)
	if err := cfg.Compile(); err != nil {
		return opts, err
	}
	opts.Config = cfg
	return opts, nil
}

// readInputs reads and correlates the inputs, turning "no inputs" into a
// usage error: reading a terminal by accident would wait forever. Once the
// set lets go of its store, the collector policy collects (see
// storeReleased).
func readInputs(ctx context.Context, f *Factory, fl *inputFlags, paths []string) (*model.Set, error) {
	if fl.Store.From != "" {
		return loadStore(ctx, f, fl, &fl.Store, fl.window)
	}
	if len(paths) == 0 {
		if f.IO.IsStdinTTY() {
			return nil, usagef("no input files (name files, or - for standard input)")
		}
		paths = []string{"-"}
	}
	stdin := 0
	for _, p := range paths {
		if p == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		return nil, usagef("standard input (-) can be named only once")
	}
	opts, err := fl.options(f)
	if err != nil {
		return nil, err
	}
	opts.Progress = &ingest.Progress{}
	// One missing input among several: report what the others say, and
	// name it (see warnInputs).
	opts.KeepGoing = true
	size := sizeOf(paths)
	stop := startProgress(f, opts.Progress, paths, size, fl.Quiet, fl.progressMin)
	hugeHeapFor(size.expanded)
	watched := func() {}
	if !size.known {
		watched = hugeHeapOnceRead(opts.Progress)
	}
	readDone := func() {
		watched()
		readingDone()
	}
	set, err := load.Files(ctx, paths, load.Options{Read: opts, Build: fl.buildFor(), Released: storeReleased, ReadDone: readDone})
	watched()
	stop()
	if err != nil {
		var ie *ingest.InputError
		if errors.As(err, &ie) {
			return nil, fmt.Errorf("cannot read input %w", err)
		}
		return nil, err
	}
	return set, nil
}

// buildFor is what the correlator builds: what diagnose asked for, else
// what the rules need at their default thresholds.
func (fl *inputFlags) buildFor() trace.Build {
	if fl.build != nil {
		return *fl.build
	}
	return diagnose.DefaultOptions().Build()
}

// warnInputs says on w what was not read: inputs that could not be opened
// or were cut short (these make the exit code 2 even though what was read
// is reported), inputs none of whose lines was recognised, and lines read
// only after a repair. It reports whether an input failed.
func warnInputs(w io.Writer, set *model.Set) (failed bool) {
	for _, in := range set.Inputs {
		path := report.Safe(in.Path)
		var oe *ingest.OpenError
		switch {
		case errors.As(in.Err, &oe):
			fmt.Fprintf(w, "idem: cannot read input %s: %s\n", path, report.Safe(oe.Err.Error()))
			failed = true
		case in.Err != nil:
			fmt.Fprintf(w, "idem: input cut short: %s: %s\n", path, report.Safe(in.Err.Error()))
			failed = true
		}
		if in.RequestLines != nil {
			fmt.Fprintf(w, "idem: warning: %s: %s (see 'idem help formats')\n", path, report.Safe(report.RequestLinesNote(in)))
			if in.RequestLines.Pattern != "" {
				fmt.Fprintf(w, "idem: a --config to start from, its tier and names to correct: %s\n", report.Safe(report.ConfigJSON(report.ConfigPattern(in))))
			}
		} else if u := in.Unrecognised; u != nil {
			first := u.Text
			if first == "" { // a line too long to keep, say
				first = "(" + u.Reason + ")"
			}
			fmt.Fprintf(w, "idem: warning: %s: no line was recognised (see 'idem help formats'); line %d: %s\n",
				path, u.Source.Line, report.Safe(first))
		}
		if in.Repaired > 0 && len(in.RepairSamples) > 0 {
			fmt.Fprintf(w, "idem: warning: %s: %s read although not valid JSON (first at line %d): %s\n", path,
				report.Count(in.Repaired, "line", "lines"), in.RepairSamples[0].Source.Line, in.RepairSamples[0].Reason)
		}
	}
	return failed
}

// nothingToDiagnose is the error when no input yielded a single
// observation: a report would say "No findings", which only a log that
// was read can say. When no input could be opened at all, warnInputs has
// said why already.
func nothingToDiagnose(set *model.Set) error {
	read, ignored, lines, requests := 0, 0, 0, 0
	for _, in := range set.Inputs {
		if in.Observations > 0 {
			return nil
		}
		if in.RequestLines != nil {
			requests += in.RequestLines.Lines
		}
		var oe *ingest.OpenError
		if !errors.As(in.Err, &oe) {
			read++
		}
		ignored += in.Ignored
		lines += in.Lines
	}
	switch {
	case read == 0:
		return &codeError{Code: exitError}
	case lines == 0:
		return fmt.Errorf("nothing to diagnose: the %d input(s) held no line", read)
	case requests > 0:
		return fmt.Errorf("nothing to diagnose: %s like HTTP requests but no format reads them: a --config to start from is above (see 'idem help formats' and docs/config.md)",
			report.Count(requests, "line looks", "lines look"))
	case ignored > 0:
		return fmt.Errorf("nothing to diagnose: no line of the %d input(s) was about a request (see 'idem help formats')", read)
	}
	return fmt.Errorf("nothing to diagnose: no line of the %d input(s) was recognised (see 'idem help formats')", read)
}

func safeError(err error) string { return report.Safe(err.Error()) }

// validateTiers checks --tier FILE=TIER before the run: a known tier,
// and a FILE that names exactly one of the inputs (by its path or its
// base name).
func (fl *inputFlags) validateTiers(paths []string) error {
	for _, v := range fl.TierOf {
		file, tier, ok := splitTierOf(v)
		if !ok {
			return usagef("--tier %q: want FILE=TIER, e.g. --tier client.log=client", v)
		}
		if _, err := model.ParseTier(tier); err != nil {
			return &usageError{Err: fmt.Errorf("--tier %s: %w", file, err)}
		}
		var named []string
		for _, p := range paths {
			if p == file || filepath.Base(p) == file {
				named = append(named, p)
			}
		}
		switch {
		case len(paths) == 0:
			return usagef("--tier %s: no input file is named (FILE is one of the files read)", file)
		case len(named) == 0:
			return usagef("--tier %s: %s is not one of the inputs (%s)", file, file, strings.Join(paths, ", "))
		case len(named) > 1 && !slices.Contains(named, file):
			return usagef("--tier %s: names %d inputs (%s): give its path", file, len(named), strings.Join(named, ", "))
		}
	}
	return nil
}

// splitTierOf splits FILE=TIER at its last "=": a file name may hold one.
func splitTierOf(v string) (file, tier string, ok bool) {
	i := strings.LastIndexByte(v, '=')
	if i <= 0 || i == len(v)-1 {
		return "", "", false
	}
	return v[:i], v[i+1:], true
}

// tiersInto makes each --tier FILE=TIER a source of the config, after its
// own: the config's per-source tier, for that one input. Where
// --input-tier is given too it becomes a source for every input before
// them, so that the one input's tier wins over every input's.
func (fl *inputFlags) tiersInto(cfg *formats.Config, opts *ingest.Options) {
	if len(fl.TierOf) == 0 {
		return
	}
	if fl.Tier != "" {
		cfg.Sources = append(cfg.Sources, formats.SourceConfig{Path: "*", Tier: fl.Tier})
		opts.Tier = model.TierUnknown
	}
	for _, v := range fl.TierOf {
		if file, tier, ok := splitTierOf(v); ok {
			cfg.Sources = append(cfg.Sources, formats.SourceConfig{Path: globQuote(file), Tier: tier})
		}
	}
}

// globQuote quotes the characters a config's path pattern reads as a
// pattern, so that FILE names only itself.
func globQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
