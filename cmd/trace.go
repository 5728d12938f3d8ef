package cmd

import (
	"fmt"

	"github.com/idem-cli/idem/report"
	"github.com/spf13/cobra"
)

// traceOptions are the inputs of `idem trace`.
type traceOptions struct {
	Factory *Factory
	Key     string
	Paths   []string
	Format  string
	Input   inputFlags
}

// newCmdTrace builds `idem trace KEY [FILE...]`. runF replaces the work in
// tests of flag parsing.
func newCmdTrace(f *Factory, runF func(*traceOptions) error) *cobra.Command {
	opts := &traceOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "trace KEY [FILE...]",
		Short: "Show one intent's deliveries across every tier on one timeline",
		Long: `Show the timeline of one intent: every delivery (request id) that carried the
Idempotency-Key KEY, each tier's observation of it (time, status or outcome,
duration, dedup decision), the effects it made with their result ids, and
related intents: other keys that idem diagnose ties to this one (a retry
under a new key, a duplicate submission...) or whose payload had the same
fingerprint, each with what ties it.

KEY may also be the hash of a key, where servers log only "key_hash".
With no FILE, or with -, standard input is read.`,
		Example: `  idem trace 0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41 fixtures/incident/*
  idem trace 0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41 fixtures/incident/* --format json | jq .effects`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 {
				return usagef("trace needs the Idempotency-Key to follow (idem trace KEY [FILE...])")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Key, opts.Paths = args[0], args[1:]
			switch opts.Format {
			case "text", "json":
			default:
				return usagef("invalid --format %q: want text or json", opts.Format)
			}
			if err := opts.Input.validateTiers(opts.Paths); err != nil {
				return err
			}
			if err := opts.Input.Store.validate(opts.Paths); err != nil {
				return err
			}
			if err := opts.Input.Store.parseWindow(opts.Factory.Now(), &opts.Input.window); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runTrace(cmd, opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Format, "format", "o", "text", "output format: text or json (schema idem.trace/v1)")
	opts.Input.register(cmd)
	opts.Input.Store.register(cmd)
	opts.Input.Store.registerWindow(cmd)
	return cmd
}

func runTrace(cmd *cobra.Command, opts *traceOptions) error {
	io := opts.Factory.IO
	set, err := readInputs(cmd.Context(), opts.Factory, &opts.Input, opts.Paths)
	if err != nil {
		return err
	}
	failed := warnInputs(io.ErrOut, set)
	if err := nothingToDiagnose(set); err != nil {
		return err
	}
	intents := set.FindIntent(opts.Key)
	if len(intents) == 0 {
		if opts.Format == "json" {
			_ = report.WriteJSON(io.Out, report.NewTraceJSON(set, opts.Key, nil), io.IsStdoutTTY())
		}
		return fmt.Errorf("no delivery carried the key %s in %d input(s)", report.Safe(opts.Key), len(set.Inputs))
	}
	if opts.Format == "json" {
		if err := report.WriteJSON(io.Out, report.NewTraceJSON(set, opts.Key, intents), io.IsStdoutTTY()); err != nil {
			return err
		}
	} else {
		st := report.NewStyles(io.Out, io.ColorEnabled())
		report.TraceText(io.Out, st, set, opts.Key, intents, io.TerminalWidth())
		report.JoinsText(io.Out, st, set.Inputs)
		if opts.Input.ExplainFields {
			report.FieldsText(io.Out, st, set.Inputs)
		}
	}
	if failed {
		return &codeError{Code: exitError}
	}
	return nil
}
