package cmd

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/load"
	"github.com/idem-cli/idem/logstore"
	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/report"
	"github.com/spf13/cobra"
)

// exportOptions are the inputs of `idem export`.
type exportOptions struct {
	Factory *Factory
	To      string
	Check   string
	Paths   []string
	Timeout time.Duration
	Input   inputFlags
}

// newCmdExport builds `idem export --to STORE FILE...`.
func newCmdExport(f *Factory, runF func(*exportOptions) error) *cobra.Command {
	opts := &exportOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "export --to STORE FILE...",
		Short: "Load log files into a log store, ready for 'diagnose --from'",
		Long: `Read log files of any format idem reads (HAR included) and load every line
that is about a request into a log store, with the fields that
'idem diagnose --from' asks the store about. Each line keeps its record as
written (in _msg) and where it came from, so that a diagnosis from the store
reads the same lines and cites the same file:line as one from the files.

STORE is victorialogs://HOST:PORT or loki://HOST:PORT (see docs/logstore.md);
Loki gets the labels tier, format and service, the key and the request id
staying in the line. After loading,
idem counts what the store kept: a store that drops lines without saying so
(older than its retention, or too far in the future) is an error, exit 2.
For a cluster, --to names the insert node and --check the select node.

Credentials come from the environment: IDEM_LOGSTORE_TOKEN (bearer), or
IDEM_LOGSTORE_USER and IDEM_LOGSTORE_PASSWORD (basic).`,
		Example: `  idem export --to victorialogs://127.0.0.1:9428 fixtures/incident/*
  idem export --to loki://127.0.0.1:3100 fixtures/incident/*
  idem export --to victorialogs://127.0.0.1:9481 --check victorialogs://127.0.0.1:9471 access.log.gz`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			if opts.To == "" {
				return usagef("export needs --to STORE (victorialogs://HOST:PORT or loki://HOST:PORT)")
			}
			if len(args) == 0 {
				return usagef("export needs the files to load (idem export --to STORE FILE...)")
			}
			if opts.Timeout <= 0 {
				return usagef("--timeout must be positive")
			}
			if err := opts.Input.validateTiers(args); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runExport(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.To, "to", "", "the store to load: victorialogs://HOST:PORT or loki://HOST:PORT")
	cmd.Flags().StringVar(&opts.Check, "check", "", "where to count what the store kept, when --to cannot be queried (a cluster's select node)")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 60*time.Second, "how long each request to the store may take, and how long to wait for the lines to be searchable")
	opts.Input.register(cmd)
	return cmd
}

func runExport(ctx context.Context, opts *exportOptions) error {
	f := opts.Factory
	st, err := logstore.Open(opts.To, logstore.Options{Getenv: f.Getenv, Timeout: opts.Timeout})
	if err != nil {
		return &usageError{Err: err}
	}
	var check logstore.Reader = st
	if opts.Check != "" {
		if check, err = logstore.Open(opts.Check, logstore.Options{Getenv: f.Getenv, Timeout: opts.Timeout}); err != nil {
			return &usageError{Err: err}
		}
	}
	read, err := opts.Input.options(f)
	if err != nil {
		return err
	}
	run := strconv.FormatInt(f.Now().UnixNano(), 36)
	ex := logstore.NewExporter(ctx, st, run)
	inputs, err := ingest.Read(ctx, opts.Paths, read, ex)
	if err != nil {
		return fmt.Errorf("cannot read input %w", err)
	}
	if err := ex.Close(); err != nil {
		return err
	}
	if warnInputs(f.IO.ErrOut, &model.Set{Inputs: inputs}) {
		return &codeError{Code: exitError}
	}
	// The store answers 200 even for lines it drops: count what it kept.
	st.Flush(ctx)
	kept, err := waitKept(ctx, check, run, ex.Sent, opts.Timeout)
	if err != nil {
		return err
	}
	if kept != ex.Sent {
		return &exportLossError{Store: st.Name(), Sent: ex.Sent, Kept: kept}
	}
	fmt.Fprintf(f.IO.Out, "exported %d lines (%d bytes) from %d file(s) to %s, run %s\n", ex.Sent, ex.Bytes, len(inputs), st.Name(), run)
	return nil
}

// waitKept counts an export run's lines until they are all searchable or
// the count stops growing for the timeout.
func waitKept(ctx context.Context, st logstore.Reader, run string, want int64, timeout time.Duration) (int64, error) {
	deadline := time.Now().Add(timeout)
	var last int64 = -1
	for {
		n, err := logstore.CountRun(ctx, st, run)
		if err != nil {
			return 0, err
		}
		if n >= want || time.Now().After(deadline) {
			return n, nil
		}
		if n != last {
			last = n
			deadline = time.Now().Add(min(timeout, 10*time.Second))
		}
		select {
		case <-ctx.Done():
			return n, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// exportLossError is a store that accepted lines and did not keep them.
type exportLossError struct {
	Store      string
	Sent, Kept int64
}

func (e *exportLossError) Error() string {
	return fmt.Sprintf("%s kept %d of the %d lines sent: a store drops lines older than its retention (VictoriaLogs: -retentionPeriod, 7d by default) or too far in the future (-futureRetention) while answering 200; Loki counts only what its queriers reach (query_ingesters_within, 3h by default, for lines still in its ingesters)", e.Store, e.Kept, e.Sent)
}

// storeFlags are the flags of a command that can read from a log store.
type storeFlags struct {
	From         string
	Query        string
	Selector     string
	Timeout      time.Duration
	Since, Until string // for commands without their own (trace)
}

// registerWindow adds --since and --until, which bound the store's window.
func (sf *storeFlags) registerWindow(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&sf.Since, "since", "", "with --from: only lines at or after this time (RFC 3339, or a duration before now such as 2h)")
	fs.StringVar(&sf.Until, "until", "", "with --from: only lines at or before this time (RFC 3339, or a duration before now)")
}

// parseWindow reads --since and --until into w.
func (sf *storeFlags) parseWindow(now time.Time, w *logstore.Window) error {
	var err error
	if w.Start, err = parseWhen(sf.Since, now); err != nil {
		return &usageError{Err: fmt.Errorf("--since: %w", err)}
	}
	if w.End, err = parseWhen(sf.Until, now); err != nil {
		return &usageError{Err: fmt.Errorf("--until: %w", err)}
	}
	if (sf.Since != "" || sf.Until != "") && sf.From == "" {
		return usagef("--since and --until need --from (they bound the store's window)")
	}
	return nil
}

func (sf *storeFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&sf.From, "from", "", "read from a log store instead of files: victorialogs://HOST:PORT or loki://HOST:PORT (docs/logstore.md)")
	fs.StringVar(&sf.Query, "query", "", "with --from victorialogs://: a LogsQL filter every query starts with, e.g. '{app=\"api\"}'")
	fs.StringVar(&sf.Selector, "selector", "", "with --from loki://: the LogQL stream selector every query starts with, e.g. '{app=\"payments\"}' (default: the lines idem export loaded)")
	fs.DurationVar(&sf.Timeout, "timeout", 5*time.Minute, "with --from: how long the whole conversation with the store may take")
}

// validate checks the store flags against the FILE arguments.
func (sf *storeFlags) validate(paths []string) error {
	if sf.From == "" {
		if sf.Query != "" {
			return usagef("--query needs --from")
		}
		if sf.Selector != "" {
			return usagef("--selector needs --from loki://")
		}
		return nil
	}
	loki := strings.HasPrefix(sf.From, "loki:") || strings.HasPrefix(sf.From, "loki+")
	if sf.Selector != "" && !loki {
		return usagef("--selector is a Loki stream selector: it goes with --from loki://")
	}
	if sf.Query != "" && loki {
		return usagef("--query is LogsQL, for VictoriaLogs: with --from loki:// use --selector")
	}
	if len(paths) > 0 {
		return usagef("--from reads from the store: name no files with it")
	}
	if sf.Timeout <= 0 {
		return usagef("--timeout must be positive")
	}
	return nil
}

// loadStore reads and correlates the lines a store gives for the window.
func loadStore(ctx context.Context, f *Factory, fl *inputFlags, sf *storeFlags, w logstore.Window) (*model.Set, error) {
	st, err := logstore.Open(sf.From, logstore.Options{Getenv: f.Getenv, Timeout: sf.Timeout, Query: sf.Query, Selector: sf.Selector})
	if err != nil {
		return nil, &usageError{Err: err}
	}
	opts, err := fl.options(f)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, sf.Timeout)
	defer cancel()
	srcs, stats, err := logstore.Collect(ctx, st, w, time.Hour, fl.buildFor().FollowUp, f.Now)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, &logstore.IncompleteError{Store: st.Name(), Err: fmt.Errorf("%w (--timeout %s)", logstore.ErrTimeout, sf.Timeout)}
		}
		return nil, err
	}
	hugeHeapFor(stats.Bytes) // what the store's answer holds, known once fetched
	set, err := load.Sources(ctx, srcs, load.Options{Read: opts, Build: fl.buildFor(), Released: storeReleased, ReadDone: readingDone})
	if err != nil {
		return nil, err
	}
	if !fl.Quiet {
		fmt.Fprintf(f.IO.ErrOut, "idem: %s: %d lines in the window; phase 1 pushed down %d queries, matching %d lines, selecting %d keys and ids and %d failures' clients (%s); phase 2 fetched %d lines and kept %d, %d bytes, in %d round(s) (%s)\n",
			stats.Store, stats.Stored, len(stats.Queries), stats.Matched, stats.Keys, stats.Near, stats.Phase1.Round(time.Millisecond),
			stats.Received, stats.Transferred, stats.Bytes, stats.Rounds, stats.Phase2.Round(time.Millisecond))
		for _, q := range stats.Queries {
			fmt.Fprintf(f.IO.ErrOut, "idem:   pushed down: %s\n", report.Safe(q))
		}
	}
	return set, nil
}
