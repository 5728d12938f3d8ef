package cmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/idem-cli/idem/contract"
	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/load"
	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/replay"
	"github.com/idem-cli/idem/report"
	"github.com/spf13/cobra"
)

// replayOptions are the inputs of `idem replay`.
type replayOptions struct {
	Factory          *Factory
	Key              string
	RequestID        string
	Paths            []string
	Target           string
	Body             string
	RequestIDHeader  string
	KeepAuth         bool
	KeepHeaders      []string
	Headers          []string
	ResultPath       string
	EffectsURL       string
	EffectsPath      string
	Probes           []string
	Profile          string
	ConflictStatus   int
	InProgressStatus int
	MissingKeyStatus int
	Concurrency      int
	Timeout          time.Duration
	Settle           time.Duration
	Insecure         bool
	AllowUnkeyed     bool
	DryRun           bool
	Yes              bool
	Format           string
	JUnit            string
	RequireMarker    bool
	Input            inputFlags

	// replay is the validated form of the flags, set by validate.
	replay replay.Options
}

// newCmdReplay builds `idem replay`. runF replaces the run function in
// tests; the flags are validated before either runs.
func newCmdReplay(f *Factory, runF func(*replayOptions) error) *cobra.Command {
	opts := &replayOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "replay --key KEY --target URL [FILE...]",
		Short: "Resend a captured request with its key and check the replay contract",
		Long: `Find the request captured for KEY in the inputs (a HAR entry, or a log line
with method and route; give the body with --body when the logs hold none),
send it again to --target with the same Idempotency-Key and a new request id,
and check it against the original answer:

  status       the same status as the original
  result id    the same result id (--result-path, or where the capture had it)
  marker       Idempotent-Replayed: true, where the profile has one (its
               absence is information unless --require-marker or the
               stripe profile)
  effects      no new effect, counted through --effects-url

The original answer is the 2xx response captured with the request (a HAR
entry), else what the logs say; its result id is read from id, data.id,
<resource>_id, *_id or *Id fields, and without one the replayed body must
equal the captured one (canonical JSON).

--probe runs more of the verification procedure: mismatch (the same key with
a changed field gets the conflict code, no effect), concurrent (N deliveries
at once under a fresh key make one effect), lost-response (a fresh key, the
connection dropped before the answer, then a replay gets the stored result),
missing-key (the profile's 400), in-progress (a delivery during a slow first
one gets 409). Probes that may create effects use fresh keys derived from
the captured one and say so before sending.

This command can create a second order or charge on a broken server. It
sends nothing without --target; it asks before sending on a terminal and
refuses without --yes elsewhere; --dry-run prints the requests (secrets
redacted) with equivalent curl commands and sends nothing. Captured
credentials (headers and query parameters) are not resent without
--keep-auth, nor routing and trust headers (X-Forwarded-For, Forwarded,
X-Real-IP, X-Original-URL…) without --keep-header NAME; redirects are not
followed; TLS is verified unless --insecure. The confirmation lists each
step's method, path and host, the effects it makes (concurrent,
lost-response and in-progress run under fresh keys and make one each on a
correct server), and where captured credentials would go. Probes run only
when named with --probe; without it, what was not run is said.

A replay whose answers test nothing (a 3xx redirect, 401, 403, 404, 405,
407, 421, 429, a 502-504 before any contract answer, a refused connection)
is inconclusive,
not broken: the report says which captured credentials were not resent or
that the route looks wrong for the target.

Exit codes: 0 every assertion held, 1 the contract is broken, 2 usage, input
or network error, 3 inconclusive.`,
		Example: `  idem replay --key order-42 --target http://127.0.0.1:8080 --dry-run client.har
  idem replay --key order-42 --target http://127.0.0.1:8080 --yes \
    --effects-url http://127.0.0.1:8080/v1/effects/count --probe mismatch,concurrent,lost-response client.har
  idem replay --key order-42 --target http://127.0.0.1:8080 --body @body.json --yes gateway.jsonl`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			if err := opts.validate(); err != nil {
				return err
			}
			if err := opts.Input.validateTiers(args); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runReplay(cmd.Context(), opts)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&opts.Key, "key", "", "the Idempotency-Key of the request to replay")
	fs.StringVar(&opts.RequestID, "request-id", "", "pick the delivery with this request id when several were captured")
	fs.StringVar(&opts.Target, "target", "", "where to send: scheme, host and port (required; the captured path and query are kept)")
	fs.StringVar(&opts.Body, "body", "", fmt.Sprintf("the body when the logs hold none: @file, - for standard input, or the text itself (at most %d MiB)", maxBody>>20))
	fs.StringVar(&opts.RequestIDHeader, "request-id-header", "X-Request-Id", "the header that carries the new request id")
	fs.BoolVar(&opts.KeepAuth, "keep-auth", false, "resend captured Authorization, Cookie and API-key headers")
	fs.StringArrayVar(&opts.KeepHeaders, "keep-header", nil, "resend this captured routing or trust header (X-Forwarded-For, Forwarded, X-Real-IP, X-Original-URL…; repeatable)")
	fs.StringArrayVar(&opts.Headers, "header", nil, "add or override a header, 'Name: value' (repeatable)")
	fs.StringVar(&opts.ResultPath, "result-path", "", "gjson path of the result id in the response body")
	fs.StringVar(&opts.EffectsURL, "effects-url", "", "GET this URL before and after to count effects")
	fs.StringVar(&opts.EffectsPath, "effects-path", "", "gjson path to a count or a list in the --effects-url answer (default: count, total, effects)")
	fs.StringSliceVar(&opts.Probes, "probe", nil, "probes to run: "+strings.Join(replay.ProbeNames(), ","))
	fs.StringVar(&opts.Profile, "profile", "article", "expected codes: article (409/409), ietf (422/409) or stripe (400/409)")
	fs.IntVar(&opts.ConflictStatus, "conflict-status", 0, "override the profile's status for a reused key with another payload")
	fs.IntVar(&opts.InProgressStatus, "in-progress-status", 0, "override the profile's status for a delivery while the first runs")
	fs.IntVar(&opts.MissingKeyStatus, "missing-key-status", 0, "override the profile's status for a missing key")
	fs.IntVar(&opts.Concurrency, "concurrency", 2, fmt.Sprintf("deliveries in the concurrent probe (at most %d)", replay.MaxConcurrency))
	fs.DurationVar(&opts.Timeout, "timeout", 10*time.Second, "timeout of every request")
	fs.DurationVar(&opts.Settle, "settle", 500*time.Millisecond, "how long the lost-response probe waits before replaying")
	fs.BoolVar(&opts.Insecure, "insecure", false, "do not verify the target's TLS certificate")
	fs.BoolVar(&opts.RequireMarker, "require-marker", false, "fail when a replay lacks the profile's marker (default only for the stripe profile)")
	fs.BoolVar(&opts.AllowUnkeyed, "allow-unkeyed", false, "replay a captured request that has no key (it is a new command)")
	fs.BoolVar(&opts.DryRun, "dry-run", false, "print the requests and curl commands, send nothing")
	fs.BoolVarP(&opts.Yes, "yes", "y", false, "send without asking")
	fs.StringVarP(&opts.Format, "format", "o", "text", "output format: text, markdown or json (idem.replay/v1)")
	fs.StringVar(&opts.JUnit, "junit", "", "also write the assertions as JUnit XML to this file")
	opts.Input.register(cmd)
	return cmd
}

// validate checks the flags and builds the replay options; it runs
// before the run function.
func (o *replayOptions) validate() error {
	if o.Key == "" && o.RequestID == "" {
		return usagef("replay needs --key KEY (or --request-id ID) to find the captured request")
	}
	if o.Target == "" {
		return usagef("replay sends nothing without an explicit --target URL (e.g. --target http://127.0.0.1:8080)")
	}
	u, err := url.Parse(o.Target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usagef("--target %q must be an http or https URL with a host", report.Safe(o.Target))
	}
	switch o.Format {
	case "text", "markdown", "md", "json":
	default:
		return usagef("invalid --format %q: want text, markdown or json", o.Format)
	}
	p, err := contract.Lookup(o.Profile)
	if err != nil {
		return &usageError{Err: fmt.Errorf("--profile: %w", err)}
	}
	for _, c := range []struct {
		v   int
		dst *int
	}{{o.ConflictStatus, &p.Conflict}, {o.InProgressStatus, &p.InProgress}, {o.MissingKeyStatus, &p.MissingKey}} {
		if c.v != 0 {
			if c.v < 100 || c.v > 599 {
				return usagef("status overrides must be HTTP statuses (100-599), not %d", c.v)
			}
			*c.dst = c.v
		}
	}
	for _, name := range o.Probes {
		if !slices.Contains(replay.ProbeNames(), name) {
			return usagef("unknown probe %q (known: %s)", name, strings.Join(replay.ProbeNames(), ", "))
		}
	}
	if o.Concurrency < 2 || o.Concurrency > replay.MaxConcurrency {
		return usagef("--concurrency must be between 2 and %d", replay.MaxConcurrency)
	}
	if o.Timeout <= 0 {
		return usagef("--timeout must be positive")
	}
	if o.Body == "-" && slices.Contains(o.Paths, "-") {
		return usagef("--body - and logs on standard input cannot both be read")
	}
	routing := replay.RoutingHeaders()
	for _, name := range o.KeepHeaders {
		if !slices.ContainsFunc(routing, func(h string) bool { return strings.EqualFold(h, name) }) {
			return usagef("--keep-header %q: only routing and trust headers are withheld (%s); others are resent as captured", report.Safe(name), strings.Join(routing, ", "))
		}
	}
	var headers []model.Header
	for _, h := range o.Headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" || strings.ContainsAny(name, " \t") {
			return usagef("--header %q must look like 'Name: value'", report.Safe(h))
		}
		headers = append(headers, model.Header{Name: strings.TrimSpace(name), Value: strings.TrimSpace(value)})
	}
	// Stripe always marks a replay; the others may not.
	requireMarker := o.RequireMarker || p.Name == "stripe"
	if o.RequireMarker && p.Replayed == "" {
		return usagef("--require-marker: the %s profile has no replay marker", p.Name)
	}
	o.replay = replay.Options{Target: u, Profile: p, RequestIDHeader: o.RequestIDHeader, KeepAuth: o.KeepAuth, KeepHeaders: o.KeepHeaders, Headers: headers,
		ResultPath: o.ResultPath, EffectsURL: o.EffectsURL, EffectsPath: o.EffectsPath, Probes: o.Probes, Concurrency: o.Concurrency,
		Timeout: o.Timeout, Insecure: o.Insecure, Settle: o.Settle, RequireMarker: requireMarker}
	return nil
}

// maxBody bounds --body: a request body, not a stream (a body of
// /dev/zero was read until memory ran out).
const maxBody = 8 << 20

// readBody reads --body: @file, - for standard input, or the text itself,
// at most maxBody bytes; a longer one is an error, never cut.
func (o *replayOptions) readBody() ([]byte, bool, error) {
	var r io.Reader
	switch {
	case o.Body == "-":
		r = o.Factory.IO.In
	case strings.HasPrefix(o.Body, "@"):
		f, err := os.Open(o.Body[1:])
		if err != nil {
			return nil, false, fmt.Errorf("--body: %w", err)
		}
		defer f.Close()
		r = f
	case o.Body != "":
		r = strings.NewReader(o.Body)
	default:
		return nil, false, nil
	}
	body, err := io.ReadAll(io.LimitReader(r, maxBody+1))
	if err != nil {
		return nil, false, fmt.Errorf("--body: %w", err)
	}
	if len(body) > maxBody {
		return nil, false, &usageError{Err: fmt.Errorf("--body: longer than %d MiB: a replay resends one request's body", maxBody>>20)}
	}
	return body, true, nil
}

// readCaptures reads the inputs once: the correlated set (for the
// original answer in the logs) and every request captured for the key or
// request id. It is the command's one call into the log reader.
func readCaptures(ctx context.Context, paths []string, readOpts ingest.Options, key, requestID string) ([]*model.Captured, *model.Set, error) {
	capture := ingest.NewCapturer(key, requestID)
	set, err := load.Files(ctx, paths, load.Options{Read: readOpts, Capture: capture}) // FindIntent builds what replay asks for
	if err != nil {
		var ie *ingest.InputError
		if errors.As(err, &ie) {
			return nil, nil, fmt.Errorf("cannot read input %w", err)
		}
		return nil, nil, err
	}
	return capture.Captured, set, nil
}

func runReplay(ctx context.Context, o *replayOptions) error {
	f := o.Factory
	ro := o.replay
	body, hasBody, err := o.readBody()
	if err != nil {
		return err
	}
	if len(o.Paths) == 0 && f.IO.IsStdinTTY() {
		return usagef("replay needs the logs or HAR that captured the request (name files, or - for standard input)")
	}
	readOpts, err := o.Input.options(f)
	if err != nil {
		return err
	}
	paths := o.Paths
	if len(paths) == 0 {
		paths = []string{"-"}
	}
	captured, set, err := readCaptures(ctx, paths, readOpts, o.Key, o.RequestID)
	if err != nil {
		return err
	}
	c, err := replay.PickCapture(captured, o.RequestID)
	if err != nil {
		what := "the key " + report.Safe(o.Key)
		if o.Key == "" {
			what = "the request id " + report.Safe(o.RequestID)
		}
		return fmt.Errorf("no captured request for %s in %d input(s): %w", what, len(set.Inputs), err)
	}
	key := o.Key
	if key == "" {
		key = c.Key
	}
	if key == "" && !o.AllowUnkeyed {
		return fmt.Errorf("the captured request (%s) has no Idempotency-Key: resending it would be a new command; add --allow-unkeyed to do it anyway", c.Source)
	}
	if hasBody {
		c.Body, c.HasBody = body, true
	}
	if !c.HasBody && (c.Method == "POST" || c.Method == "PUT" || c.Method == "PATCH") {
		return fmt.Errorf("the logs hold no body for this %s (%s); give it with --body @file or --body -", c.Method, c.Source)
	}
	plan, err := replay.NewPlan(c, key, replay.OriginalOf(set, key, captured), ro)
	if err != nil {
		if errors.Is(err, replay.ErrConcurrency) {
			return &usageError{Err: fmt.Errorf("--concurrency: %w", err)}
		}
		if errors.Is(err, replay.ErrTarget) {
			return &usageError{Err: fmt.Errorf("--target: %w", err)}
		}
		if errors.Is(err, replay.ErrUnsendable) {
			return err // the input's fault, not the flags': exit 2 without the usage hint
		}
		return &usageError{Err: err}
	}
	errOut := f.IO.ErrOut
	if o.DryRun {
		report.ReplayPlan(f.IO.Out, report.NewStyles(f.IO.Out, f.IO.ColorEnabled()), plan, ro.Target.String())
		return nil
	}
	makes, most := plan.Effects()
	effects := fmt.Sprintf("no new effect on a server that keeps the contract, up to %d on one that breaks it", most)
	if makes > 0 {
		effects = fmt.Sprintf("%d new effect(s) (an order, a charge) on a server that keeps the contract, up to %d on one that breaks it", makes, most)
	}
	// What was not asked for is said, with how to ask: probes run only
	// when named.
	if rest := plan.NotAsked(); len(rest) > 0 {
		defer fmt.Fprintf(errOut, "idem: probes not run: %s; name them with --probe %s to run them\n", strings.Join(rest, ", "), strings.Join(rest, ","))
	}
	if o.Yes {
		fmt.Fprintf(errOut, "idem: sending %d request(s) to %s: %s\n", plan.Count(), report.Safe(ro.Target.String()), effects)
		for _, line := range plan.Describe() {
			fmt.Fprintf(errOut, "idem:   %s\n", report.Safe(line))
		}
	} else {
		if !f.IO.IsStdinTTY() || !f.IO.IsStderrTTY() {
			return fmt.Errorf("not sending %d request(s) to %s without confirmation: this is not a terminal; check with --dry-run, then add --yes", plan.Count(), report.Safe(ro.Target.String()))
		}
		fmt.Fprintf(errOut, "idem replay will send %d request(s) to %s:\n", plan.Count(), report.Safe(ro.Target.String()))
		for _, line := range plan.Describe() {
			fmt.Fprintf(errOut, "  %s\n", report.Safe(line))
		}
		fmt.Fprintf(errOut, "That is %s. Send? [y/N] ", effects)
		answer, _ := bufio.NewReader(f.IO.In).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			return fmt.Errorf("nothing sent")
		}
	}
	res, err := plan.Execute(ctx, func(note string) {
		fmt.Fprintf(errOut, "idem: %s\n", report.Safe(note))
	})
	if res != nil && (err == nil || len(res.Assertions) > 0) {
		switch o.Format {
		case "json":
			if werr := report.ReplayJSON(f.IO.Out, res, f.IO.IsStdoutTTY()); werr != nil {
				return werr
			}
		case "markdown", "md":
			report.ReplayMarkdown(f.IO.Out, res)
		default:
			report.ReplayText(f.IO.Out, report.NewStyles(f.IO.Out, f.IO.ColorEnabled()), res)
		}
		if o.JUnit != "" {
			jf, jerr := os.Create(o.JUnit)
			if jerr != nil {
				return fmt.Errorf("--junit: %w", jerr)
			}
			jerr = report.ReplayJUnit(jf, res)
			if cerr := jf.Close(); jerr == nil {
				jerr = cerr
			}
			if jerr != nil {
				return fmt.Errorf("--junit: %w", jerr)
			}
		}
	}
	if err != nil {
		var ee *replay.EffectsError
		if errors.As(err, &ee) {
			return fmt.Errorf("--effects-url: %w", err)
		}
		return err
	}
	switch res.Verdict {
	case replay.VerdictBroken:
		return &codeError{Code: exitFindings}
	case replay.VerdictInconclusive:
		return &codeError{Code: exitInconclusive}
	}
	return nil
}
