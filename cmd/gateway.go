package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/idem-cli/idem/gateway"
	"github.com/spf13/cobra"
)

// gatewayOptions are the inputs of `idem gateway`.
type gatewayOptions struct {
	Factory  *Factory
	Listen   string
	Profile  string
	TTL      time.Duration
	Delay    time.Duration
	Lease    time.Duration
	State    string
	Store    string
	LogPath  string
	Provider bool
	// ExternalTimeout bounds one call to the --external provider.
	ExternalTimeout time.Duration
	Faults          gateway.Faults
	// Connections: how many, and how long one may wait for its headers or
	// its next request.
	MaxConns, MaxConnsPerClient int
	HeaderTimeout, IdleTimeout  time.Duration
	// FaultNames are the --fault values, folded into Faults by validate.
	FaultNames []string

	profile gateway.Profile
}

// newCmdGateway builds `idem gateway`.
func newCmdGateway(f *Factory, runF func(*gatewayOptions) error) *cobra.Command {
	opts := &gatewayOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "gateway",
		Short: "Run a reference server for the Idempotency-Key contract (and its faults)",
		Long: `Run an HTTP server that implements the Idempotency-Key contract correctly,
or breaks it on purpose, to learn the pattern, to try 'idem replay', and to
produce real logs for 'idem diagnose'.

  POST /v1/demo-requests                    Idempotency-Key required; JSON body
  POST /v1/operations/{reserve|publish|release}
                                            key <submissionId>:r<revision>:<operation>
  GET  /v1/effects[?after=SEQ&limit=N]      the effect count and a page of records
  GET  /v1/effects/count                    the effect count alone
  GET  /v1/keys/{key}                       what the store holds for a key
  POST /v1/keys/{key}/resolve               an operator settles a held key, from
                                            this host only: {"outcome":"done"|"not_done"}
  GET  /healthz

A first delivery reserves the key (in_progress), runs the effect and records
it with the completed key record in one transaction; 201 is sent only once
that transaction is durable, and a storage error answers 503 with nothing
done. A replay gets the stored status, headers and body, byte for byte, with
Idempotent-Replayed: true; the same key with another payload gets the
profile's conflict code before the handler; a concurrent delivery gets 409
with Retry-After; a missing or malformed key gets 400. A reservation whose
owner is gone (a restarted gateway, or a lease past its deadline) is
recovered by the next delivery with the same key and payload (with
--external, after asking the provider what the owner's call did).

Connections are bounded (--max-conns, --max-conns-per-client): at a limit,
the connection idle longest is closed to make room, so a flood of idle
connections cannot shut other clients out.

Keys live in memory by default, in a SQLite file with --state (an old JSON
state file is migrated once; one gateway per path, and if the file is
deleted or replaced under it, it answers 503 and /healthz is not ok), or in PostgreSQL with --store, which several
gateways behind one proxy can share (docs/gateway.md).

Each fault flag reproduces one row of the diagnosis table. Logs are JSON
lines in idem's canonical schema (docs/log-schema.md) on standard error, or
in --log: a new file for an in-memory store, appended to for a persistent
one, so result ids never restart within one log. With --provider it runs a
fake external provider instead for --external: POST /v1/charges, one charge
per Idempotency-Key (a new one per call without a key), and GET
/v1/charges/by-key/{key}.

With --external URL, the provider gets a key of its own per key and
operation (derived from the key's digest, never the key), and only a refusal
(a 4xx, or no connection) lets the key go. A 5xx, a 3xx (never followed), or
no answer within --external-timeout may have charged: the key is held, the
client gets 502 external_outcome_unknown, and its retry asks the provider by
the key. Found completes the key, not found calls again with the same key;
a provider that cannot say leaves 409 idempotency_key_needs_reconciliation,
without Retry-After, until an operator resolves the key.`,
		Example: `  idem gateway --fail-after-commit --log gateway.jsonl
  idem gateway --profile ietf --ttl 10m --state gateway.db
  idem gateway --store postgres://idem@127.0.0.1:5432/idem --listen 127.0.0.1:8081
  idem gateway --state gateway.db --fault stuck-reservation
  idem gateway --provider --listen 127.0.0.1:9090 --log provider.jsonl &
  idem gateway --external http://127.0.0.1:9090 --crash-after-external`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runGateway(cmd.Context(), opts)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.Listen, "listen", "127.0.0.1:8080", "address to listen on")
	fs.StringVar(&opts.Profile, "profile", "article", "status codes: article (409/409), ietf (422/409) or stripe (400/409) for conflict/in-progress")
	fs.DurationVar(&opts.TTL, "ttl", 24*time.Hour, "how long completed keys are kept; a later retry is new (0 keeps them forever)")
	fs.DurationVar(&opts.Delay, "delay", 0, "make the handler this slow before its effect")
	fs.DurationVar(&opts.Lease, "lease", gateway.DefaultLease, "how long a reservation's owner is trusted to be alive; longer than --delay")
	fs.StringVar(&opts.State, "state", "", "keep keys and effects in this SQLite file (locked to one gateway); default in memory")
	fs.StringVar(&opts.Store, "store", "", "keep keys and effects in this PostgreSQL database (postgres://…), shared by several gateways")
	fs.StringVar(&opts.LogPath, "log", "", "write the JSON log to this file instead of standard error")
	fs.BoolVar(&opts.Provider, "provider", false, "run a fake external provider instead of the gateway")
	fs.BoolVar(&opts.Faults.FailAfterCommit, "fail-after-commit", false, "fault: commit, then drop the connection without a response")
	fs.BoolVar(&opts.Faults.NoDedup, "no-dedup", false, "fault: ignore keys, every delivery runs the effect")
	fs.BoolVar(&opts.Faults.NonAtomic, "non-atomic", false, "fault: check-then-write, so concurrent deliveries both run")
	fs.BoolVar(&opts.Faults.NoFingerprint, "no-fingerprint", false, "fault: replay the first result whatever the payload")
	fs.StringVar(&opts.Faults.External, "external", "", "call this provider URL before recording completed")
	fs.DurationVar(&opts.ExternalTimeout, "external-timeout", gateway.DefaultExternalTimeout, "bound one provider call; past it, the call's outcome is unknown and the key is held")
	fs.BoolVar(&opts.Faults.CrashAfterExternal, "crash-after-external", false, "fault (with --external): the naive integration: no key to the provider, and the terminal write lost after the call, once per key")
	fs.IntVar(&opts.MaxConns, "max-conns", gateway.DefaultLimits.Conns, "hold at most this many connections; past it, the longest idle one is closed for a new one")
	fs.IntVar(&opts.MaxConnsPerClient, "max-conns-per-client", gateway.DefaultLimits.ConnsPerClient, "hold at most this many connections from one client address (raise it behind a proxy)")
	fs.DurationVar(&opts.HeaderTimeout, "header-timeout", gateway.DefaultTimeouts(0).ReadHeader, "close a connection whose request headers take longer")
	fs.DurationVar(&opts.IdleTimeout, "idle-timeout", gateway.DefaultTimeouts(0).Idle, "close a kept-alive connection idle this long")
	fs.StringSliceVar(&opts.FaultNames, "fault", nil, "faults by name: "+strings.Join(gateway.FaultNames(), ", ")+" (stuck-reservation: never recover a reservation whose owner is gone)")
	return cmd
}

func (o *gatewayOptions) validate() error {
	profile, ok := gateway.Profiles[o.Profile]
	if !ok {
		return usagef("unknown --profile %q (known: %s)", o.Profile, strings.Join(gateway.ProfileNames(), ", "))
	}
	o.profile = profile
	for _, name := range o.FaultNames {
		if err := o.Faults.Enable(name); err != nil {
			return usagef("--fault: %v (known: %s)", err, strings.Join(gateway.FaultNames(), ", "))
		}
	}
	if o.Faults.CrashAfterExternal && o.Faults.External == "" {
		return usagef("--crash-after-external needs --external URL")
	}
	if o.ExternalTimeout <= 0 {
		return usagef("--external-timeout must be positive")
	}
	if o.MaxConns < 1 || o.MaxConnsPerClient < 1 || o.MaxConnsPerClient > o.MaxConns {
		return usagef("--max-conns and --max-conns-per-client must be at least 1, and the second no more than the first")
	}
	if o.HeaderTimeout <= 0 || o.IdleTimeout <= 0 {
		return usagef("--header-timeout and --idle-timeout must be positive")
	}
	if o.TTL < 0 || o.Delay < 0 {
		return usagef("--ttl and --delay must not be negative")
	}
	if o.Lease <= o.Delay {
		return usagef("--lease (%s) must be longer than --delay (%s), or live reservations would be recovered", o.Lease, o.Delay)
	}
	if o.State != "" && o.Store != "" {
		return usagef("--state and --store name two stores: choose one")
	}
	if o.Store != "" && !strings.HasPrefix(o.Store, "postgres://") && !strings.HasPrefix(o.Store, "postgresql://") {
		return usagef("--store must be a postgres:// URL (for a SQLite file, use --state FILE)")
	}
	return nil
}

func runGateway(ctx context.Context, opts *gatewayOptions) error {
	f := opts.Factory
	openLog := func(persistent bool) (io.Writer, func(), error) {
		if opts.LogPath == "" {
			return f.IO.ErrOut, func() {}, nil
		}
		// A persistent store continues its result ids, so its log goes on
		// too; an in-memory store starts again at 1, and so does its log.
		mode := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
		if persistent {
			mode = os.O_CREATE | os.O_WRONLY | os.O_APPEND
		}
		lf, err := os.OpenFile(opts.LogPath, mode, 0o644)
		if err != nil {
			return nil, nil, fmt.Errorf("cannot open the log: %w", err)
		}
		return lf, func() { lf.Close() }, nil
	}
	ready := func(addr string) {
		what := "gateway (profile " + opts.profile.Name + faultList(opts.Faults) + ")"
		if opts.Provider {
			what = "fake provider"
		}
		fmt.Fprintf(f.IO.ErrOut, "idem: %s listening on http://%s (Ctrl-C to stop)\n", what, addr)
	}
	timeouts := gateway.DefaultTimeouts(opts.Delay)
	timeouts.ReadHeader, timeouts.Idle = opts.HeaderTimeout, opts.IdleTimeout
	limits := gateway.Limits{Conns: opts.MaxConns, ConnsPerClient: opts.MaxConnsPerClient}
	if opts.Provider {
		logw, closeLog, err := openLog(false)
		if err != nil {
			return err
		}
		defer closeLog()
		return gateway.Serve(ctx, opts.Listen, gateway.NewProvider(logw, f.Now).Handler(), timeouts, limits, ready)
	}
	target := opts.State
	if opts.Store != "" {
		target = opts.Store
	}
	store, err := gateway.OpenStoreContext(ctx, target)
	if err != nil {
		return err
	}
	defer store.Close()
	logw, closeLog, err := openLog(store.Persistent())
	if err != nil {
		return err
	}
	defer closeLog()
	srv := gateway.New(gateway.Options{Profile: opts.profile, TTL: opts.TTL, Delay: opts.Delay, Lease: opts.Lease,
		Faults: opts.Faults, Log: logw, Now: f.Now, ExternalTimeout: opts.ExternalTimeout}, store)
	return gateway.Serve(ctx, opts.Listen, srv.Handler(), timeouts, limits, ready)
}

func faultList(fl gateway.Faults) string {
	if on := fl.Enabled(); len(on) > 0 {
		return "; faults: " + strings.Join(on, ", ")
	}
	return ""
}
