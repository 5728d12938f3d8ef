package replay

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/redact"
	"github.com/tidwall/gjson"
)

// Assertion is one checked expectation, like one of hurl's asserts.
// An assertion is one of PASS, FAIL, SKIP (its expectation is not known),
// INFO (an observation the contract does not require) or INCONCLUSIVE
// (the answer came from before the idempotency layer and tests nothing).
type Assertion struct {
	Probe        string `json:"probe,omitempty"` // "" for the replay itself
	Name         string `json:"name"`
	Pass         bool   `json:"pass"`
	Skipped      bool   `json:"skipped,omitempty"`
	Info         bool   `json:"info,omitempty"`
	Inconclusive bool   `json:"inconclusive,omitempty"`
	Expected     string `json:"expected"`
	Actual       string `json:"actual"`
}

// Outcome is the assertion's word in reports.
func (a Assertion) Outcome() string {
	switch {
	case a.Inconclusive:
		return "INCONCLUSIVE"
	case a.Info:
		return "INFO"
	case a.Skipped:
		return "SKIP"
	case a.Pass:
		return "PASS"
	}
	return "FAIL"
}

// Step is one part of the plan: the replay, or one probe.
type Step struct {
	Probe    string     // "" for the replay
	Note     string     // what it does, said before sending
	Requests []*Request // what it sends
	run      func(ctx context.Context, r *runner, s *Step) ([]Assertion, error)
}

// Plan is everything a replay would send.
type Plan struct {
	Base     *Request
	Original Original
	Steps    []*Step
	Captured *model.Captured
	opts     Options
	// resultPath is where the result id is read from responses.
	resultPath string
}

// NewPlan builds the replay of c under key and the requested probes.
func NewPlan(c *model.Captured, key string, orig Original, opts Options) (*Plan, error) {
	if opts.Concurrency <= 0 {
		opts.Concurrency = 2
	}
	if opts.Concurrency > MaxConcurrency {
		return nil, fmt.Errorf("%w: at most %d deliveries at once", ErrConcurrency, MaxConcurrency)
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.Settle <= 0 {
		opts.Settle = 500 * time.Millisecond
	}
	base, err := Build(c, key, opts)
	if err != nil {
		return nil, err
	}
	p := &Plan{Base: base, Original: orig, Captured: c, opts: opts, resultPath: opts.ResultPath}
	if p.resultPath == "" {
		p.resultPath = orig.ResultPath
	}
	if p.resultPath == "" {
		body := orig.Body
		if len(body) == 0 {
			body = c.ResponseBody
		}
		p.resultPath = resultPathIn(body, orig.ResultID)
	}
	p.Steps = append(p.Steps, &Step{Note: "replay the captured request with the same key and a new request id",
		Requests: []*Request{base}, run: runReplay})
	id := opts.NewID
	if id == nil {
		id = newID
	}
	fresh := func(probe string) string {
		return fmt.Sprintf("%s-idem-%s-%s", key, probe, id()[:8])
	}
	for _, name := range opts.Probes {
		switch name {
		case ProbeMismatch:
			body, what := mutate(base.Body)
			p.Steps = append(p.Steps, &Step{Probe: name, Note: "the same key with " + what + " changed: expect a conflict and no new effect",
				Requests: []*Request{base.clone(opts, key, body)}, run: runMismatch})
		case ProbeConcurrent:
			k := fresh("concurrent")
			var reqs []*Request
			for i := 0; i < opts.Concurrency; i++ {
				reqs = append(reqs, base.clone(opts, k, base.Body))
			}
			p.Steps = append(p.Steps, &Step{Probe: name, Requests: reqs, run: runConcurrent,
				Note: fmt.Sprintf("%d simultaneous deliveries under the fresh key %s (derived from the captured key): expect exactly one effect", opts.Concurrency, k)})
		case ProbeLostResponse:
			k := fresh("lost")
			p.Steps = append(p.Steps, &Step{Probe: name, Requests: []*Request{base.clone(opts, k, base.Body), base.clone(opts, k, base.Body)}, run: runLostResponse,
				Note: fmt.Sprintf("send under the fresh key %s and drop the connection before the response, then replay: expect the stored result and one effect", k)})
		case ProbeMissingKey:
			p.Steps = append(p.Steps, &Step{Probe: name, Requests: []*Request{base.clone(opts, "", base.Body)}, run: runMissingKey,
				Note: fmt.Sprintf("the request without a key: expect %d and no effect", opts.Profile.MissingKey)})
		case ProbeInProgress:
			k := fresh("inprogress")
			p.Steps = append(p.Steps, &Step{Probe: name, Requests: []*Request{base.clone(opts, k, base.Body), base.clone(opts, k, base.Body)}, run: runInProgress,
				Note: fmt.Sprintf("a second delivery under the fresh key %s while the first runs: expect %d", k, opts.Profile.InProgress)})
		default:
			return nil, fmt.Errorf("unknown probe %q (known: %s)", name, strings.Join(ProbeNames(), ", "))
		}
	}
	return p, nil
}

// MaxConcurrency bounds the concurrent probe.
const MaxConcurrency = 16

// ErrConcurrency is a concurrent probe larger than MaxConcurrency.
var ErrConcurrency = errors.New("too many concurrent deliveries")

// Count is how many requests the plan sends (effect counts aside).
func (p *Plan) Count() int {
	n := 0
	for _, s := range p.Steps {
		n += len(s.Requests)
	}
	return n
}

// Result is what a replay found.
type Result struct {
	Schema     string      `json:"schema"`
	Target     string      `json:"target"`
	Profile    string      `json:"profile"`
	Request    RequestInfo `json:"request"`
	Original   Original    `json:"original"`
	Assertions []Assertion `json:"assertions"`
	// Verdict is held, broken or inconclusive (see Verdict constants).
	Verdict      string   `json:"verdict"`
	Reason       *Reason  `json:"reason,omitempty"`
	NotRun       []string `json:"not_run,omitempty"` // steps not sent after an inconclusive replay
	Passed       int      `json:"passed"`
	Failed       int      `json:"failed"`
	Skipped      int      `json:"skipped"`
	Info         int      `json:"info"`
	Inconclusive int      `json:"inconclusive"`
	Duration     float64  `json:"duration_ms"`
}

// Verdicts: every assertion held; one failed (a fact about the server);
// or nothing failed but an answer tested nothing (it came from before the
// idempotency layer: credentials, route, rate limit, an upstream down, a
// target that refuses connections).
const (
	VerdictHeld         = "held"
	VerdictBroken       = "broken"
	VerdictInconclusive = "inconclusive"
)

// Reasons why an answer tested nothing.
const (
	ReasonCredentials = "credentials"  // 401, 403, 407
	ReasonRoute       = "route"        // 404, 405, 421
	ReasonRateLimited = "rate-limited" // 429
	ReasonUnavailable = "unavailable"  // 502, 503, 504 before any contract answer
	ReasonUnreachable = "unreachable"  // connection refused, no such host
)

// Reason says why a step was inconclusive.
type Reason struct {
	Kind   string `json:"kind"`
	Probe  string `json:"probe,omitempty"`
	Status int    `json:"status,omitempty"`
	// Dropped names the captured credentials that were not resent.
	Dropped []string `json:"dropped,omitempty"`
	Error   string   `json:"error,omitempty"`
}

// RequestInfo describes the replayed request. It holds what was sent:
// renderers redact it.
type RequestInfo struct {
	Method    string            `json:"method"`
	URL       string            `json:"url"`
	Key       string            `json:"key"`
	RequestID string            `json:"request_id"`
	Headers   map[string]string `json:"headers"`
	BodyBytes int               `json:"body_bytes"`
	Source    string            `json:"source"`
}

// Info describes the base request for reports.
func (p *Plan) Info() RequestInfo {
	h := map[string]string{}
	for name, vs := range p.Base.Header {
		h[name] = strings.Join(vs, ", ") // redacted where it is rendered
	}
	rid := p.opts.RequestIDHeader
	if rid == "" {
		rid = "X-Request-Id"
	}
	return RequestInfo{Method: p.Base.Method, URL: p.Base.URL, Key: p.Base.Key, RequestID: p.Base.Header.Get(rid),
		Headers: h, BodyBytes: len(p.Base.Body), Source: p.Captured.Source.String()}
}

// NetworkError is a request that got no answer at all; it exits 2.
type NetworkError struct{ Err error }

func (e *NetworkError) Error() string { return "network error: " + e.Err.Error() }
func (e *NetworkError) Unwrap() error { return e.Err }

// errStop ends a plan whose replay tested nothing: the probes would test
// nothing either, and would only send more.
var errStop = errors.New("stop")

// Execute sends the plan. notify is told each step's note before it sends.
func (p *Plan) Execute(ctx context.Context, notify func(string)) (*Result, error) {
	r := newRunner(p.opts, p.resultPath)
	start := time.Now()
	res := &Result{Schema: "idem.replay/v1", Target: p.opts.Target.String(), Profile: p.opts.Profile.Name, Request: p.Info(), Original: p.Original}
	r.plan = p
	for i, s := range p.Steps {
		if notify != nil {
			notify(stepName(s.Probe) + ": " + s.Note)
		}
		as, err := s.run(ctx, r, s)
		for i := range as {
			as[i].Probe = s.Probe
		}
		res.Assertions = append(res.Assertions, as...)
		if errors.Is(err, errStop) {
			for _, rest := range p.Steps[i+1:] {
				res.NotRun = append(res.NotRun, stepName(rest.Probe))
			}
			break
		}
		if err != nil {
			res.tally()
			return res, err
		}
	}
	if r.reason != nil {
		res.Reason = r.reason
	}
	res.tally()
	res.Duration = float64(time.Since(start).Microseconds()) / 1000
	return res, nil
}

func stepName(probe string) string {
	if probe == "" {
		return "replay"
	}
	return "probe " + probe
}

// tally counts the assertions and sets the verdict.
func (res *Result) tally() {
	res.Passed, res.Failed, res.Skipped, res.Info, res.Inconclusive = 0, 0, 0, 0, 0
	for _, a := range res.Assertions {
		switch {
		case a.Inconclusive:
			res.Inconclusive++
		case a.Info:
			res.Info++
		case a.Skipped:
			res.Skipped++
		case a.Pass:
			res.Passed++
		default:
			res.Failed++
		}
	}
	switch {
	case res.Failed > 0:
		res.Verdict = VerdictBroken
	case res.Inconclusive > 0:
		res.Verdict = VerdictInconclusive
	default:
		res.Verdict = VerdictHeld
	}
}

type runner struct {
	client     *http.Client
	opts       Options
	resultPath string
	plan       *Plan
	// contractSeen is set by the first answer from the idempotency layer:
	// after it, a 5xx is the server's answer, not an upstream down.
	contractSeen bool
	// reason is the first inconclusive step's.
	reason *Reason
}

func newRunner(opts Options, resultPath string) *runner {
	tr := &http.Transport{
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: opts.Insecure}, //nolint:gosec // only with --insecure
		MaxConnsPerHost:     MaxConcurrency,
		DisableCompression:  true,
		TLSHandshakeTimeout: opts.Timeout,
		// net/http retries a request that carries an Idempotency-Key when a
		// reused connection fails. A replay must send each request exactly
		// once, so connections are never reused (and GetBody is cleared).
		DisableKeepAlives: true,
	}
	return &runner{opts: opts, resultPath: resultPath, client: &http.Client{
		Transport: tr,
		Timeout:   opts.Timeout,
		// Never follow a redirect: a replay goes to the target and nowhere else.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

type response struct {
	status int
	header http.Header
	body   []byte
	err    error
}

// unreachable reports whether err means the target could not be reached at
// all (exit 2), as opposed to a server that took the request and gave no
// answer (an observation the assertions report).
func unreachable(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// statusText is a response's status for reports: "no response (EOF)".
func (resp response) statusText() string {
	if resp.err != nil {
		msg := resp.err.Error()
		var ue *url.Error
		if errors.As(resp.err, &ue) {
			msg = ue.Err.Error()
		}
		return "no response (" + msg + ")"
	}
	return fmt.Sprint(resp.status)
}

func (r *runner) send(ctx context.Context, req *Request) response {
	hr, err := http.NewRequestWithContext(ctx, req.Method, req.URL, bytes.NewReader(req.Body))
	if err != nil {
		return response{err: err}
	}
	hr.Header = req.Header.Clone()
	hr.GetBody = nil // no transparent resend
	resp, err := r.client.Do(hr)
	if err != nil {
		return response{err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return response{status: resp.StatusCode, header: resp.Header, body: body, err: err}
}

// effects counts the server's effects through --effects-url; ok is false
// when no URL was given.
func (r *runner) effects(ctx context.Context) (n int, ok bool, err error) {
	if r.opts.EffectsURL == "" {
		return 0, false, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.opts.EffectsURL, nil)
	if err != nil {
		return 0, true, &EffectsError{Err: err}
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return 0, true, &EffectsError{Err: &NetworkError{Err: err}}
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	var v gjson.Result
	if r.opts.EffectsPath != "" {
		v = gjson.GetBytes(body, r.opts.EffectsPath)
	} else {
		for _, p := range []string{"count", "total", "effects", "@this"} {
			if v = gjson.GetBytes(body, p); v.Exists() {
				break
			}
		}
	}
	switch {
	case v.Type == gjson.Number:
		return int(v.Int()), true, nil
	case v.IsArray():
		return len(v.Array()), true, nil
	}
	return 0, true, &EffectsError{Err: fmt.Errorf("%w at %q in the answer of %s", ErrNoEffectCount, r.opts.EffectsPath, redact.String(r.opts.EffectsURL))}
}

// ErrNoEffectCount is an effects answer without a count or a list.
var ErrNoEffectCount = errors.New("no count")

// EffectsError is a failure to count effects: the effects URL could not
// be read or held no count. The command names its flag.
type EffectsError struct{ Err error }

func (e *EffectsError) Error() string { return "counting effects: " + e.Err.Error() }
func (e *EffectsError) Unwrap() error { return e.Err }

// effectCheck counts the server's effects now and returns a function that
// counts them again and adds the assertion that they changed by delta
// (nothing when no --effects-url was given).
func (r *runner) effectCheck(ctx context.Context) (func(out []Assertion, name string, delta int) ([]Assertion, error), error) {
	before, counted, err := r.effects(ctx)
	if err != nil {
		return nil, err
	}
	return func(out []Assertion, name string, delta int) ([]Assertion, error) {
		if !counted {
			return out, nil
		}
		// A handler may still be running after the answer (a replay
		// answered by middleware, a queued job): count after the settle.
		select {
		case <-time.After(r.opts.Settle):
		case <-ctx.Done():
			return out, ctx.Err()
		}
		after, _, err := r.effects(ctx)
		if err != nil {
			return out, err
		}
		return append(out, effectsAssert(name, before, after, delta)), nil
	}, nil
}

// testsNothing says why an answer came from before the idempotency layer
// (nil when it did not): the target refused the connection, or answered
// for credentials, a route, a rate limit or an upstream that is down. An
// answer the step expects (want) is never one.
func (r *runner) testsNothing(resp response, want int) *Reason {
	if resp.err != nil {
		if unreachable(resp.err) {
			return &Reason{Kind: ReasonUnreachable, Error: resp.statusText()}
		}
		return nil
	}
	if want != 0 && resp.status == want {
		return nil
	}
	switch resp.status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusProxyAuthRequired:
		return &Reason{Kind: ReasonCredentials, Status: resp.status, Dropped: r.plan.Base.Dropped}
	case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusMisdirectedRequest:
		return &Reason{Kind: ReasonRoute, Status: resp.status}
	case http.StatusTooManyRequests:
		return &Reason{Kind: ReasonRateLimited, Status: resp.status}
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		if !r.contractSeen {
			return &Reason{Kind: ReasonUnavailable, Status: resp.status}
		}
	}
	return nil
}

// check classifies an answer: it returns the inconclusive assertion when
// the answer tests nothing, and otherwise notes that the contract answered.
func (r *runner) check(probe string, resp response, want int) (Assertion, bool) {
	if why := r.testsNothing(resp, want); why != nil {
		why.Probe = probe
		if r.reason == nil {
			r.reason = why
		}
		return Assertion{Name: "reached the contract", Inconclusive: true, Expected: "an answer from the idempotency layer",
			Actual: resp.statusText() + " (" + reasonText[why.Kind] + ")"}, true
	}
	if resp.err == nil {
		r.contractSeen = true
	}
	return Assertion{}, false
}

var reasonText = map[string]string{
	ReasonCredentials: "the target wants credentials",
	ReasonRoute:       "the target has no such route",
	ReasonRateLimited: "rate-limited before the idempotency layer",
	ReasonUnavailable: "the target's upstream is unavailable",
	ReasonUnreachable: "the target cannot be reached",
}

// marker checks the replay marker: required, it must be there; otherwise
// its absence is information (the IETF draft defines none, and
// express-idempotency or Fiber send none).
func (r *runner) marker(resp response) Assertion {
	h := r.opts.Profile.Replayed
	got := resp.header.Get(h)
	a := Assertion{Name: "replay marker " + h, Expected: "true", Actual: orNone(got), Pass: strings.EqualFold(got, "true")}
	if !a.Pass && !r.opts.RequireMarker {
		a.Info = true
		a.Expected = "true (optional: the profile does not require it)"
	}
	return a
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func statusAssert(name string, want int, resp response) Assertion {
	return Assertion{Name: name, Expected: fmt.Sprint(want), Actual: resp.statusText(), Pass: resp.err == nil && resp.status == want}
}

func effectsAssert(name string, before, after, delta int) Assertion {
	return Assertion{Name: name, Expected: fmt.Sprintf("%d (%+d)", before+delta, delta), Actual: fmt.Sprintf("%d (%+d)", after, after-before), Pass: after-before == delta}
}

// idOf reads a response's result id, skipping echoes of the key and of
// the request id it was sent with.
func (r *runner) idOf(resp response, req *Request) string {
	return resultID(resp.body, r.resultPath, req.URL, req.Key, req.Header.Get(r.ridHeader()))
}

func (r *runner) ridHeader() string {
	if r.opts.RequestIDHeader != "" {
		return r.opts.RequestIDHeader
	}
	return "X-Request-Id"
}

func runReplay(ctx context.Context, r *runner, s *Step) ([]Assertion, error) {
	effects, err := r.effectCheck(ctx)
	if err != nil {
		return nil, err
	}
	req := s.Requests[0]
	resp := r.send(ctx, req)
	orig := r.plan.Original
	if a, stop := r.check(s.Probe, resp, orig.Status); stop {
		return []Assertion{a}, errStop
	}
	var out []Assertion
	if orig.Status > 0 {
		out = append(out, statusAssert("status", orig.Status, resp))
	} else {
		out = append(out, Assertion{Name: "status", Skipped: true, Expected: "the original status (not in the capture or the logs)", Actual: resp.statusText()})
	}
	got := r.idOf(resp, req)
	origBody, bodyOK := canonicalJSON(orig.Body)
	switch {
	case orig.ResultID != "":
		out = append(out, Assertion{Name: "result id", Expected: orig.ResultID, Actual: orNone(got), Pass: got == orig.ResultID})
	case bodyOK && resp.err == nil:
		// No id anywhere: a correct replay returns the stored body.
		replayed, ok := canonicalJSON(resp.body)
		actual := "the same body"
		if !ok || replayed != origBody {
			actual = "another body: " + clip(string(resp.body), 120)
		}
		out = append(out, Assertion{Name: "stored body", Expected: "the captured body (canonical JSON)", Actual: actual, Pass: ok && replayed == origBody})
	default:
		out = append(out, Assertion{Name: "result id", Skipped: true, Expected: "the original result id (not in the capture or the logs)", Actual: orNone(got)})
	}
	if r.opts.Profile.Replayed != "" {
		out = append(out, r.marker(resp))
	}
	return effects(out, "effects unchanged", 0)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func runMismatch(ctx context.Context, r *runner, s *Step) ([]Assertion, error) {
	return r.refused(ctx, s, "conflict status", r.opts.Profile.Conflict)
}

func runMissingKey(ctx context.Context, r *runner, s *Step) ([]Assertion, error) {
	return r.refused(ctx, s, "missing-key status", r.opts.Profile.MissingKey)
}

// refused sends a request the contract says must be refused: it checks
// the refusal's status and that no effect was made.
func (r *runner) refused(ctx context.Context, s *Step, name string, status int) ([]Assertion, error) {
	effects, err := r.effectCheck(ctx)
	if err != nil {
		return nil, err
	}
	resp := r.send(ctx, s.Requests[0])
	if a, stop := r.check(s.Probe, resp, status); stop {
		return effects([]Assertion{a}, "no new effect", 0)
	}
	out := []Assertion{statusAssert(name, status, resp)}
	return effects(out, "no new effect", 0)
}

// runConcurrent sends the deliveries at once under one fresh key. A
// correct server runs one (a fresh success, or an answer lost after it
// ran) and answers the others "in progress" or with the replay of that
// one. Fresh result ids among the answers, or more than one fresh
// success, is broken whether or not effects can be counted.
func runConcurrent(ctx context.Context, r *runner, s *Step) ([]Assertion, error) {
	effects, err := r.effectCheck(ctx)
	if err != nil {
		return nil, err
	}
	resps := make([]response, len(s.Requests))
	var wg sync.WaitGroup
	startGate := make(chan struct{})
	for i, req := range s.Requests {
		wg.Add(1)
		go func(i int, req *Request) {
			defer wg.Done()
			<-startGate
			resps[i] = r.send(ctx, req)
		}(i, req)
	}
	close(startGate)
	wg.Wait()
	for _, resp := range resps {
		if a, stop := r.check(s.Probe, resp, r.opts.Profile.InProgress); stop {
			return []Assertion{a}, nil
		}
	}
	c := classifyConcurrent(resps, s.Requests, r)
	n := len(resps)
	out := []Assertion{
		{Name: "one fresh success", Expected: "1 (the others wait or replay it)", Actual: fmt.Sprintf("%d: %s", c.fresh, strings.Join(c.labels, ", ")), Pass: c.fresh == 1},
		{Name: "the others waited or replayed", Expected: fmt.Sprintf("%d in-progress (%d) or replayed", n-1, r.opts.Profile.InProgress),
			Actual: fmt.Sprintf("%d waited, %d replayed, %d other", c.waited, c.replayed, c.other), Pass: c.other == 0 && c.waited+c.replayed == n-1},
	}
	if len(c.ids) > 1 {
		out = append(out, Assertion{Name: "one result id", Expected: "1", Actual: fmt.Sprintf("%d: %s", len(c.ids), strings.Join(c.ids, ", "))})
	}
	return effects(out, "exactly one effect", 1)
}

type concurrentAnswers struct {
	fresh, waited, replayed, other int
	ids                            []string // distinct results among the 2xx answers, in order
	labels                         []string // each answer, and what it counted as
}

// classifyConcurrent says which answer counted as the fresh success. With
// a replay marker in use, an unmarked 2xx is fresh; without one, the 2xx
// answers that share a result are one success and its replays. An answer
// lost on the way may be the one that ran: when every 2xx replays one
// result, a lost answer is taken as its run; otherwise it counts as a run
// of its own.
func classifyConcurrent(resps []response, reqs []*Request, r *runner) concurrentAnswers {
	var c concurrentAnswers
	h := r.opts.Profile.Replayed
	marks := false
	for _, resp := range resps {
		marks = marks || (h != "" && strings.EqualFold(resp.header.Get(h), "true"))
	}
	marks = marks || (h != "" && r.opts.RequireMarker)
	identity := make([]string, len(resps))
	lost := 0
	for i, resp := range resps {
		switch {
		case resp.err != nil:
			lost++
		case resp.status >= 200 && resp.status < 300:
			id := r.idOf(resp, reqs[i])
			if id == "" {
				if cj, ok := canonicalJSON(resp.body); ok {
					id = "body " + clip(cj, 40)
				} else {
					id = "body " + clip(string(resp.body), 40)
				}
			}
			identity[i] = id
			if !slices.Contains(c.ids, id) {
				c.ids = append(c.ids, id)
			}
		}
	}
	seen := map[string]bool{}
	lostIsRun := !marks && len(c.ids) == 1 && lost > 0
	for i, resp := range resps {
		var what string
		switch {
		case resp.err != nil:
			c.fresh++
			what = "lost: may have run"
		case resp.status >= 200 && resp.status < 300:
			replayed := false
			if marks {
				replayed = strings.EqualFold(resp.header.Get(h), "true")
			} else {
				replayed = seen[identity[i]] || lostIsRun
			}
			seen[identity[i]] = true
			if replayed {
				c.replayed++
				what = "replayed"
			} else {
				c.fresh++
				what = "fresh"
			}
		case resp.status == r.opts.Profile.InProgress:
			c.waited++
			what = "in progress"
		default:
			c.other++
			what = "unexpected"
		}
		label := fmt.Sprintf("#%d %s", i+1, resp.statusText())
		if identity[i] != "" {
			label += " " + identity[i]
		}
		c.labels = append(c.labels, label+" ("+what+")")
	}
	return c
}

func runLostResponse(ctx context.Context, r *runner, s *Step) ([]Assertion, error) {
	effects, err := r.effectCheck(ctx)
	if err != nil {
		return nil, err
	}
	if err := r.sendAndDrop(ctx, s.Requests[0]); err != nil {
		if unreachable(err) {
			a, _ := r.check(s.Probe, response{err: err}, 0)
			return []Assertion{a}, nil
		}
		return nil, &NetworkError{Err: err}
	}
	select {
	case <-time.After(r.opts.Settle):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	// A correct client that is told "in progress" waits and asks again
	// with the same key; so does the probe, within --timeout.
	deadline := time.Now().Add(r.opts.Timeout)
	req := s.Requests[1]
	resp := r.send(ctx, req)
	for resp.err == nil && resp.status == r.opts.Profile.InProgress && time.Now().Before(deadline) {
		wait := retryAfter(resp.header.Get("Retry-After"))
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		req = req.clone(r.opts, req.Key, req.Body)
		resp = r.send(ctx, req)
	}
	if a, stop := r.check(s.Probe, resp, r.opts.Profile.InProgress); stop {
		return []Assertion{a}, nil
	}
	var out []Assertion
	if resp.err == nil && resp.status == r.opts.Profile.InProgress {
		out = append(out, Assertion{Name: "replay after the lost response", Skipped: true, Expected: "2xx",
			Actual: fmt.Sprintf("%d: still in progress after %s (raise the timeout)", resp.status, r.opts.Timeout)})
		return out, nil
	}
	ok := resp.err == nil && resp.status >= 200 && resp.status < 300
	out = append(out, Assertion{Name: "replay after the lost response", Expected: "2xx", Actual: resp.statusText(), Pass: ok})
	if id := r.idOf(resp, req); id != "" || !ok {
		out = append(out, Assertion{Name: "result id present", Expected: "an id", Actual: orNone(id), Pass: id != ""})
	} else {
		out = append(out, Assertion{Name: "result id present", Info: true, Expected: "an id", Actual: "(none: the body has no id field)"})
	}
	if r.opts.Profile.Replayed != "" {
		out = append(out, r.marker(resp))
	}
	return effects(out, "exactly one effect", 1)
}

// sendAndDrop writes the request on its own connection and closes it
// without reading a byte of the response: a response lost on the way back.
func (r *runner) sendAndDrop(ctx context.Context, req *Request) error {
	u, err := url.Parse(req.URL)
	if err != nil {
		return err
	}
	hr, err := http.NewRequestWithContext(ctx, req.Method, req.URL, bytes.NewReader(req.Body))
	if err != nil {
		return err
	}
	hr.Header = req.Header.Clone()
	hr.Close = true
	host := u.Host
	if u.Port() == "" {
		if u.Scheme == "https" {
			host += ":443"
		} else {
			host += ":80"
		}
	}
	d := &net.Dialer{Timeout: r.opts.Timeout}
	var conn net.Conn
	if u.Scheme == "https" {
		conn, err = tls.DialWithDialer(d, "tcp", host, &tls.Config{InsecureSkipVerify: r.opts.Insecure, ServerName: u.Hostname()}) //nolint:gosec // only with --insecure
	} else {
		conn, err = d.DialContext(ctx, "tcp", host)
	}
	if err != nil {
		return err
	}
	w := bufio.NewWriter(conn)
	if err := hr.Write(w); err != nil {
		conn.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		conn.Close()
		return err
	}
	// Give the server the request, then go away.
	time.Sleep(20 * time.Millisecond)
	return conn.Close()
}

func runInProgress(ctx context.Context, r *runner, s *Step) ([]Assertion, error) {
	first := make(chan response, 1)
	go func() { first <- r.send(ctx, s.Requests[0]) }()
	select {
	case resp := <-first:
		if a, stop := r.check(s.Probe, resp, 0); stop {
			return []Assertion{a}, nil
		}
		return []Assertion{{Name: "in-progress status", Skipped: true, Expected: fmt.Sprint(r.opts.Profile.InProgress),
			Actual: "the first delivery finished within 150ms; use a slower endpoint to observe in_progress"}}, nil
	case <-time.After(150 * time.Millisecond):
	}
	resp := r.send(ctx, s.Requests[1])
	<-first
	if a, stop := r.check(s.Probe, resp, r.opts.Profile.InProgress); stop {
		return []Assertion{a}, nil
	}
	out := []Assertion{statusAssert("in-progress status", r.opts.Profile.InProgress, resp)}
	if resp.err == nil && resp.status == r.opts.Profile.InProgress {
		// Retry-After helps a client wait, but no contract requires it.
		ra := resp.header.Get("Retry-After")
		out = append(out, Assertion{Name: "Retry-After", Expected: "a delay", Actual: orNone(ra), Pass: ra != "", Info: ra == ""})
	}
	return out, nil
}

// retryAfter reads a Retry-After of whole seconds, bounded to keep probes
// short; without one it waits a little.
func retryAfter(v string) time.Duration {
	var n int
	if _, err := fmt.Sscanf(v, "%d", &n); err == nil && n >= 0 {
		if n > 5 {
			n = 5
		}
		if n == 0 {
			return 100 * time.Millisecond
		}
		return time.Duration(n) * time.Second
	}
	return 200 * time.Millisecond
}
