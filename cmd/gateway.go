package cmd

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/idem-cli/idem/gateway"
	"github.com/spf13/cobra"
)

// GatewayOptions are the inputs of `idem gateway`.
type GatewayOptions struct {
	Factory  *Factory
	Listen   string
	Profile  string
	TTL      time.Duration
	Delay    time.Duration
	State    string
	LogPath  string
	Provider bool
	Faults   gateway.Faults
}

// NewCmdGateway builds `idem gateway`.
func NewCmdGateway(f *Factory) *cobra.Command {
	opts := &GatewayOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "gateway",
		Short: "Run a reference server for the Idempotency-Key contract (and its faults)",
		Long: `Run an HTTP server that implements the Idempotency-Key contract correctly,
or breaks it on purpose, to learn the pattern, to try 'idem replay', and to
produce real logs for 'idem diagnose'.

  POST /v1/demo-requests                    Idempotency-Key required; JSON body
  POST /v1/operations/{reserve|publish|release}
                                            key <submissionId>:r<revision>:<operation>
  GET  /v1/effects                          the effect count and records
  GET  /healthz

A first delivery reserves the key (in_progress), runs the effect and records
it with the key (completed) in one write. A replay gets the stored status and
body with Idempotent-Replayed: true; the same key with another payload gets
the profile's conflict code before the handler; a concurrent delivery gets
409 with Retry-After; a missing or malformed key gets 400.

Each fault flag reproduces one row of the diagnosis table. Logs are JSON
lines in idem's canonical schema (docs/log-schema.md) on standard error, or
in --log. With --provider it runs a fake external provider instead
(POST /v1/charges, no idempotency of its own) for --external.`,
		Example: `  idem gateway --fail-after-commit --log gateway.jsonl
  idem gateway --profile ietf --ttl 10m --state gateway-state.json
  idem gateway --provider --listen 127.0.0.1:9090 --log provider.jsonl &
  idem gateway --external http://127.0.0.1:9090 --crash-after-external`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runGateway(cmd, opts)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.Listen, "listen", "127.0.0.1:8080", "address to listen on")
	fs.StringVar(&opts.Profile, "profile", "article", "status codes: article (409/409), ietf (422/409) or stripe (400/409) for conflict/in-progress")
	fs.DurationVar(&opts.TTL, "ttl", 24*time.Hour, "how long completed keys are kept; a later retry is new (0 keeps them forever)")
	fs.DurationVar(&opts.Delay, "delay", 0, "make the handler this slow before its effect")
	fs.StringVar(&opts.State, "state", "", "keep keys and effects in this file (atomic writes, locked); default in memory")
	fs.StringVar(&opts.LogPath, "log", "", "write the JSON log to this file instead of standard error")
	fs.BoolVar(&opts.Provider, "provider", false, "run a fake external provider instead of the gateway")
	fs.BoolVar(&opts.Faults.FailAfterCommit, "fail-after-commit", false, "fault: commit, then drop the connection without a response")
	fs.BoolVar(&opts.Faults.NoDedup, "no-dedup", false, "fault: ignore keys, every delivery runs the effect")
	fs.BoolVar(&opts.Faults.NonAtomic, "non-atomic", false, "fault: check-then-insert, so concurrent deliveries both run")
	fs.BoolVar(&opts.Faults.NoFingerprint, "no-fingerprint", false, "fault: replay the first result whatever the payload")
	fs.StringVar(&opts.Faults.External, "external", "", "call this provider URL before recording completed")
	fs.BoolVar(&opts.Faults.CrashAfterExternal, "crash-after-external", false, "fault (with --external): lose the terminal write after the call, once per key")
	return cmd
}

func runGateway(cmd *cobra.Command, opts *GatewayOptions) error {
	f := opts.Factory
	profile, ok := gateway.Profiles[opts.Profile]
	if !ok {
		return usagef("unknown --profile %q (known: %s)", opts.Profile, strings.Join(gateway.ProfileNames(), ", "))
	}
	if opts.Faults.CrashAfterExternal && opts.Faults.External == "" {
		return usagef("--crash-after-external needs --external URL")
	}
	if opts.TTL < 0 || opts.Delay < 0 {
		return usagef("--ttl and --delay must not be negative")
	}
	var logw io.Writer = f.IO.ErrOut
	if opts.LogPath != "" {
		lf, err := os.OpenFile(opts.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("cannot open the log: %w", err)
		}
		defer lf.Close()
		logw = lf
	}
	ready := func(addr string) {
		what := "gateway (profile " + profile.Name + faultList(opts.Faults) + ")"
		if opts.Provider {
			what = "fake provider"
		}
		fmt.Fprintf(f.IO.ErrOut, "idem: %s listening on http://%s (Ctrl-C to stop)\n", what, addr)
	}
	if opts.Provider {
		return gateway.Serve(cmd.Context(), opts.Listen, gateway.NewProvider(logw, f.Now).Handler(), ready)
	}
	store, err := gateway.OpenStore(opts.State)
	if err != nil {
		return err
	}
	defer store.Close()
	srv := gateway.New(gateway.Options{Profile: profile, TTL: opts.TTL, Delay: opts.Delay, Faults: opts.Faults, Log: logw, Now: f.Now}, store)
	return gateway.Serve(cmd.Context(), opts.Listen, srv.Handler(), ready)
}

func faultList(fl gateway.Faults) string {
	var on []string
	for name, set := range map[string]bool{"fail-after-commit": fl.FailAfterCommit, "no-dedup": fl.NoDedup, "non-atomic": fl.NonAtomic,
		"no-fingerprint": fl.NoFingerprint, "crash-after-external": fl.CrashAfterExternal} {
		if set {
			on = append(on, name)
		}
	}
	if fl.External != "" {
		on = append(on, "external "+fl.External)
	}
	if len(on) == 0 {
		return ""
	}
	sort.Strings(on)
	return "; faults: " + strings.Join(on, ", ")
}
