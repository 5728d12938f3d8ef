package replay

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/idem-cli/idem/model"
)

// step is one part of the plan: the replay, or one probe.
type step struct {
	Probe    string     // "" for the replay
	Note     string     // what it does, said before sending
	Requests []*request // what it sends
	// Effects is how many new effects the step makes on a server that
	// keeps the contract (the probes under fresh keys make one by
	// design), MaxEffects how many at most on one that breaks it.
	Effects, MaxEffects int
	run                 func(ctx context.Context, r *runner, s *step) ([]Assertion, error)
}

// Plan is everything a replay would send.
type Plan struct {
	Base     *request
	Original Original
	Steps    []*step
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
	base, err := build(c, key, opts)
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
	p.Steps = append(p.Steps, replayStep(base))
	id := opts.NewID
	if id == nil {
		id = newID
	}
	fresh := func(probe string) string {
		return fmt.Sprintf("%s-idem-%s-%s", key, probe, id()[:8])
	}
	for _, name := range opts.Probes {
		var s *step
		switch name {
		case probeMismatch:
			s = mismatchStep(base, opts, key)
		case probeConcurrent:
			s = concurrentStep(base, opts, fresh("concurrent"))
		case probeLostResponse:
			s = lostResponseStep(base, opts, fresh("lost"))
		case probeMissingKey:
			s = missingKeyStep(base, opts)
		case probeInProgress:
			s = inProgressStep(base, opts, fresh("inprogress"))
		default:
			return nil, fmt.Errorf("unknown probe %q (known: %s)", name, strings.Join(ProbeNames(), ", "))
		}
		p.Steps = append(p.Steps, s)
	}
	for _, s := range p.Steps {
		s.Effects, s.MaxEffects = stepEffects(s.Probe, len(s.Requests))
	}
	for _, s := range p.Steps {
		for _, r := range s.Requests {
			if err := r.sendable(); err != nil {
				return nil, err
			}
		}
	}
	return p, nil
}

// stepEffects is how many new effects a step makes on a server that keeps
// the contract, and how many at most on one that breaks it.
func stepEffects(probe string, requests int) (makes, most int) {
	switch probe {
	case probeConcurrent, probeLostResponse, probeInProgress:
		// A fresh key: one run, or one per delivery on a broken server.
		return 1, requests
	}
	// The captured key, or no key: nothing new, one run on a broken
	// server.
	return 0, 1
}

// Effects is how many new effects the plan makes on a server that keeps
// the contract, and how many at most on one that breaks it.
func (p *Plan) Effects() (makes, most int) {
	for _, s := range p.Steps {
		makes += s.Effects
		most += s.MaxEffects
	}
	return makes, most
}

// NotAsked are the probes the plan does not run, for saying how to ask.
func (p *Plan) NotAsked() []string {
	var out []string
	for _, name := range ProbeNames() {
		if !slices.Contains(p.opts.Probes, name) {
			out = append(out, name)
		}
	}
	return out
}

// Describe says what the plan sends, a line per step and one per fact
// about what the captured request carried, before anything is sent: each
// step's method, path, host and requests, the effects it makes; which
// captured credentials go where (and whether to a host other than the
// one they were captured for); which captured headers stay behind. The
// lines hold captured text: the caller escapes them.
func (p *Plan) Describe() []string {
	var out []string
	for _, s := range p.Steps {
		u, _ := url.Parse(s.Requests[0].URL)
		path, host := "", ""
		if u != nil {
			path, host = u.EscapedPath(), u.Host
			if u.RawQuery != "" {
				path += "?…"
			}
		}
		effects := fmt.Sprintf("no new effect (%d on a server that breaks the contract)", s.MaxEffects)
		if s.Effects > 0 {
			effects = fmt.Sprintf("makes %s (up to %d on a server that breaks the contract)", plural(s.Effects, "new effect"), s.MaxEffects)
		}
		out = append(out, fmt.Sprintf("%s: %s %s on %s, %s: %s", stepName(s.Probe), s.Requests[0].Method, path, host, plural(len(s.Requests), "request"), effects),
			"    "+s.Note)
	}
	b, target := p.Base, p.opts.Target.Host
	switch {
	case len(b.Resent) > 0 && b.CapturedHost == "":
		out = append(out, fmt.Sprintf("captured credentials resent (--keep-auth): %s, to %s; the capture names no host, so it may not be the one they were captured for", strings.Join(b.Resent, ", "), target))
	case len(b.Resent) > 0 && !strings.EqualFold(b.CapturedHost, target):
		out = append(out, fmt.Sprintf("captured credentials resent (--keep-auth): %s, to %s, a host other than %s, where they were captured", strings.Join(b.Resent, ", "), target, b.CapturedHost))
	case len(b.Resent) > 0:
		out = append(out, fmt.Sprintf("captured credentials resent (--keep-auth): %s, to %s, the host they were captured for", strings.Join(b.Resent, ", "), target))
	}
	if len(b.Dropped) > 0 {
		out = append(out, fmt.Sprintf("captured credentials not resent: %s (--keep-auth resends them)", strings.Join(b.Dropped, ", ")))
	}
	if len(b.Resent) == 0 && len(b.Dropped) == 0 {
		out = append(out, "no captured credentials are sent")
	}
	var routing []string
	for _, h := range b.Withheld {
		if h == "Content-Encoding" {
			out = append(out, "captured Content-Encoding not resent: the body is not encoded")
		} else {
			routing = append(routing, h)
		}
	}
	if len(routing) > 0 {
		out = append(out, fmt.Sprintf("captured routing and trust headers not resent: %s (--keep-header NAME resends one)", strings.Join(routing, ", ")))
	}
	return out
}

// plural is report.Count for the plan's own lines: replay sits below
// report and cannot import it.
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// Count is how many requests the plan sends (effect counts aside).
func (p *Plan) Count() int {
	n := 0
	for _, s := range p.Steps {
		n += len(s.Requests)
	}
	return n
}

// info describes the base request for reports: its URL and headers as
// they may be printed (credentials masked, by name or by value; they are
// redacted again where they are rendered).
func (p *Plan) info() RequestInfo {
	h := map[string]string{}
	for name, vs := range p.Base.Header {
		h[name] = ShowHeader(name, strings.Join(vs, ", "))
	}
	rid := p.opts.RequestIDHeader
	if rid == "" {
		rid = "X-Request-Id"
	}
	return RequestInfo{Method: p.Base.Method, URL: ShowURL(p.Base.URL), Key: p.Base.Key, RequestID: p.Base.Header.Get(rid),
		Headers: h, BodyBytes: len(p.Base.Body), Source: p.Captured.Source.String()}
}

// errStop ends a plan whose replay tested nothing: the probes would test
// nothing either, and would only send more.
var errStop = errors.New("stop")

// Execute sends the plan. notify is told each step's note before it sends.
func (p *Plan) Execute(ctx context.Context, notify func(string)) (*Result, error) {
	r := newRunner(p.opts, p.resultPath)
	start := time.Now()
	res := &Result{Schema: "idem.replay/v1", Target: p.opts.Target.String(), Profile: p.opts.Profile.Name, Request: p.info(), Original: p.Original}
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
