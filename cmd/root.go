// Package cmd is idem's command tree. Each command is an options struct, a
// NewCmdX constructor that binds flags to it, and a runX function that does
// the work against injected streams and clock, so tests need no globals.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/idem-cli/idem/formats"
	"github.com/idem-cli/idem/internal/iostreams"
	"github.com/idem-cli/idem/report"
	"github.com/spf13/cobra"
)

// Exit codes, documented in `idem help exit-codes`.
const (
	exitOK       = 0 // no finding at or above --fail-on; every assertion held
	exitFindings = 1 // findings at or above --fail-on; a replay assertion failed
	exitError    = 2 // bad usage, unreadable input, network error
	// exitInconclusive: diagnose found nothing failing but a rule that
	// decides the verdict could not look; replay's answers reached no
	// contract (credentials, route, rate limit, target down).
	exitInconclusive = 3
	exitInterrupted  = 130 // stopped by SIGINT
)

// version is set at build time with -ldflags "-X .../cmd.version=v1.2.3".
var version = ""

// Factory carries what commands need from the outside world.
type Factory struct {
	IO  *iostreams.IOStreams
	Now func() time.Time
	// Getenv reads the environment (NO_COLOR and friends).
	Getenv func(string) string
	// atExit runs after the command, whatever its outcome.
	atExit []func()
}

// usageError is a mistake in the command line; it exits 2 and shows usage.
type usageError struct{ Err error }

func (e *usageError) Error() string { return e.Err.Error() }
func (e *usageError) Unwrap() error { return e.Err }

func usagef(format string, a ...any) error { return &usageError{Err: fmt.Errorf(format, a...)} }

// codeError carries an exit code out of a command whose output is already
// written (findings found, an assertion failed).
type codeError struct{ Code int }

func (e *codeError) Error() string { return fmt.Sprintf("exit %d", e.Code) }

// Main runs idem with the process's arguments and streams.
func Main() int {
	trackHeap()
	// No heap profile unless --memprofile asks for one: sampling an
	// allocation walks its stack, and a big input allocates gigabytes.
	runtime.MemProfileRate = 0
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	f := &Factory{IO: iostreams.System(), Now: time.Now, Getenv: os.Getenv}
	return Run(ctx, f, os.Args[1:])
}

// Run executes one command line and returns its exit code.
func Run(ctx context.Context, f *Factory, args []string) int {
	root := newCmdRoot(f)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	for _, fn := range f.atExit {
		fn()
	}
	f.atExit = nil
	return exitCode(f, cmd, err, ctx)
}

// exitCode reports err, if any, and turns it into an exit code; cmd is the
// command that ran (or failed to parse), named in the usage hint.
func exitCode(f *Factory, cmd *cobra.Command, err error, ctx context.Context) int {
	if err == nil {
		return exitOK
	}
	var ee *codeError
	if errors.As(err, &ee) {
		return ee.Code
	}
	if errors.Is(err, context.Canceled) || ctx.Err() != nil {
		fmt.Fprintln(f.IO.ErrOut, "idem: interrupted")
		return exitInterrupted
	}
	var ue *usageError
	if msg, ok := unknownCommand(err); ok {
		fmt.Fprintf(f.IO.ErrOut, "idem: %s\n", msg)
		ue = &usageError{Err: err}
	} else {
		fmt.Fprintf(f.IO.ErrOut, "idem: %s\n", safeError(err))
	}
	if ue != nil || errors.As(err, &ue) {
		path := "idem"
		if cmd != nil {
			path = cmd.CommandPath()
		}
		fmt.Fprintf(f.IO.ErrOut, "Run '%s --help' for usage.\n", path)
	}
	return exitError
}

// unknownCommand lays out cobra's "unknown command" error, whose lines
// (the "Did you mean this?" suggestions) would otherwise reach the user as
// literal \n and \t escapes. Each line is still made terminal-safe: the
// mistyped word comes from the command line.
func unknownCommand(err error) (string, bool) {
	msg := err.Error()
	if !strings.HasPrefix(msg, "unknown command ") {
		return "", false
	}
	var lines []string
	for _, line := range strings.Split(strings.TrimRight(msg, "\n"), "\n") {
		indent := ""
		for strings.HasPrefix(line, "\t") {
			indent, line = indent+"  ", line[1:]
		}
		lines = append(lines, indent+report.Safe(line))
	}
	return strings.Join(lines, "\n"), true
}

// finalEOF makes the end of a terminal's input final. At a terminal,
// Ctrl-D ends one read, not the stream: a reader that peeks ahead (and so
// sees the end once) and reads again would wait for a second Ctrl-D.
type finalEOF struct {
	r   io.Reader
	eof bool
}

func (f *finalEOF) Read(p []byte) (int, error) {
	if f.eof {
		return 0, io.EOF
	}
	n, err := f.r.Read(p)
	if err == io.EOF {
		f.eof = true
	}
	return n, err
}

// buildVersion is the build's version: from -ldflags, else the module version
// Go recorded (a tag, or a pseudo-version from the checkout's commit).
func buildVersion() string {
	bi, _ := debug.ReadBuildInfo()
	return moduleVersion(bi)
}

func moduleVersion(bi *debug.BuildInfo) string {
	if version != "" {
		return version
	}
	if bi != nil && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// versionText is what --version prints: the version, then the commit it was
// built from, as go build records it, and the toolchain, so a bug report
// names the exact build.
func versionText(bi *debug.BuildInfo) string {
	s := "idem " + moduleVersion(bi) + "\n"
	if bi == nil {
		return s
	}
	var rev, when string
	modified := false
	for _, kv := range bi.Settings {
		switch kv.Key {
		case "vcs.revision":
			rev = kv.Value
		case "vcs.time":
			when = kv.Value
		case "vcs.modified":
			modified = kv.Value == "true"
		}
	}
	if rev != "" {
		s += "revision " + rev
		if when != "" {
			s += " (" + when + ")"
		}
		if modified {
			s += ", with uncommitted changes"
		}
		s += "\n"
	}
	if rev == "" && moduleVersion(bi) == "dev" {
		// go run, and a build with -buildvcs=false (GOFLAGS may carry it),
		// record no commit: say how to get a build that names one.
		s += "no commit recorded: build with 'go build -buildvcs=true ./cmd/idem' or 'go install' from a git checkout\n"
	}
	if bi.GoVersion != "" {
		s += "built with " + bi.GoVersion + "\n"
	}
	return s
}

// defaultMemProfileRate is the runtime's own rate, which Main turns off.
const defaultMemProfileRate = 512 << 10

// newCmdRoot builds the command tree.
func newCmdRoot(f *Factory) *cobra.Command {
	var color, cpuprofile, memprofile string
	root := &cobra.Command{
		Use:   "idem",
		Short: "Find out why a retry made a second charge, order or ticket",
		Long: `idem reads log exports from every tier a request crosses (browser HAR,
proxy access logs, application and worker JSON logs), puts each retry of one
user action on one timeline, and says what went wrong with idempotency:
a lost response, a retry under a new key, a key reused for another payload,
a race in the key reservation, a duplicate at an external provider.

A delivery is one request id (one trip). An intent is every delivery that
shares one Idempotency-Key: the retries of one action.`,
		Example: `  # What went wrong, in the bundled incident
  idem diagnose fixtures/incident/*

  # The timeline of one intent across client, proxy and server
  idem trace 0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41 fixtures/incident/*

  # Logs on standard input, compressed or not
  zcat access.log.gz | idem diagnose -`,
		Version:       buildVersion(),
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			m, err := iostreams.ParseColorMode(color)
			if err != nil {
				return &usageError{Err: err}
			}
			if f.Getenv != nil {
				f.IO.SetEnv(f.Getenv)
			}
			if f.IO.IsStdinTTY() {
				f.IO.In = &finalEOF{r: f.IO.In}
			}
			f.IO.SetColorMode(m)
			if cpuprofile != "" {
				pf, err := os.Create(cpuprofile)
				if err != nil {
					return fmt.Errorf("--cpuprofile: %w", err)
				}
				if err := pprof.StartCPUProfile(pf); err != nil {
					pf.Close()
					return fmt.Errorf("--cpuprofile: %w", err)
				}
				f.atExit = append(f.atExit, func() { pprof.StopCPUProfile(); pf.Close() })
			}
			if memprofile != "" {
				runtime.MemProfileRate = defaultMemProfileRate
				mf, err := os.Create(memprofile)
				if err != nil {
					return fmt.Errorf("--memprofile: %w", err)
				}
				// Written as of the last collection before exit: what was
				// live near the end, when memory peaks.
				f.atExit = append(f.atExit, func() {
					if err := errors.Join(pprof.Lookup("heap").WriteTo(mf, 0), mf.Close()); err != nil {
						fmt.Fprintf(f.IO.ErrOut, "idem: --memprofile: %s\n", safeError(err))
					}
				})
			}
			return nil
		},
	}
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	root.SetIn(f.IO.In)
	root.PersistentFlags().StringVar(&color, "color", "auto", "colour output: auto, always or never (NO_COLOR is respected)")
	root.PersistentFlags().StringVar(&cpuprofile, "cpuprofile", "", "write a CPU profile to this file (for docs/performance.md)")
	root.PersistentFlags().MarkHidden("cpuprofile")
	root.PersistentFlags().StringVar(&memprofile, "memprofile", "", "write a heap profile to this file on exit (for docs/performance.md)")
	root.PersistentFlags().MarkHidden("memprofile")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &usageError{Err: err} })
	bi, _ := debug.ReadBuildInfo()
	// Template actions are escaped: the text is printed as it is.
	root.SetVersionTemplate(strings.NewReplacer("{{", "{{`{{`}}").Replace(versionText(bi)))

	root.AddCommand(newCmdDiagnose(f, nil))
	root.AddCommand(newCmdTrace(f, nil))
	root.AddCommand(newCmdExport(f, nil))
	root.AddCommand(newCmdRules(f, nil))
	root.AddCommand(newCmdReplay(f, nil))
	root.AddCommand(newCmdGateway(f, nil))
	root.AddCommand(newHelpTopic("exit-codes", "What idem's exit codes mean", exitCodesHelp))
	root.AddCommand(newHelpTopic("formats", "The log formats idem recognises", formats.Help()))
	registerCompletions(root)
	return root
}

// newHelpTopic is a page for `idem help NAME`, like gh's help topics: just
// its text, no usage or flags. Not being runnable, it is listed under
// "Additional help topics" in `idem --help`.
func newHelpTopic(name, short, long string) *cobra.Command {
	cmd := &cobra.Command{
		Use:   name,
		Short: short,
		Long:  long,
		Args:  cobra.NoArgs,
	}
	cmd.SetHelpFunc(func(c *cobra.Command, _ []string) { fmt.Fprint(c.OutOrStdout(), long) })
	return cmd
}

const exitCodesHelp = `idem's exit codes, as in ShellCheck and golangci-lint:

  0    no finding at or above --fail-on, and every rule could look (diagnose);
       every assertion held (replay)
  1    findings at or above --fail-on (diagnose; hygiene findings such as
       secret-in-logs only with --fail-on-hygiene); the replay contract is
       broken (replay)
  2    usage error, an input that cannot be opened or was cut short (what the
       other inputs say is still reported), nothing to diagnose (no line of any
       input was recognised, or none was about a request), a network error
  3    inconclusive: no finding at or above --fail-on, but a rule that decides
       the verdict could not look at these logs, for want of a tier or a field
       (diagnose: the report's "not evaluated" says which, why, and what to
       log; hygiene rules, and the worker and provider rules where those tiers
       are not logged, do not count); no answer reached the contract (replay)
  130  interrupted (SIGINT)

Scripts should treat 2 and above as "idem could not do its job". Lines that
cannot be parsed do not change the exit code: they are counted and shown
with file:line in the summary, and the rest of the input is read. An input
none of whose lines was recognised is named on standard error with its first
line (most likely a format idem does not read: see 'idem help formats').
`
