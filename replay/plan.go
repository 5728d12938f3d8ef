package replay

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/idem-cli/idem/model"
)

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
	p.Steps = append(p.Steps, replayStep(base))
	id := opts.NewID
	if id == nil {
		id = newID
	}
	fresh := func(probe string) string {
		return fmt.Sprintf("%s-idem-%s-%s", key, probe, id()[:8])
	}
	for _, name := range opts.Probes {
		var s *Step
		switch name {
		case ProbeMismatch:
			s = mismatchStep(base, opts, key)
		case ProbeConcurrent:
			s = concurrentStep(base, opts, fresh("concurrent"))
		case ProbeLostResponse:
			s = lostResponseStep(base, opts, fresh("lost"))
		case ProbeMissingKey:
			s = missingKeyStep(base, opts)
		case ProbeInProgress:
			s = inProgressStep(base, opts, fresh("inprogress"))
		default:
			return nil, fmt.Errorf("unknown probe %q (known: %s)", name, strings.Join(ProbeNames(), ", "))
		}
		p.Steps = append(p.Steps, s)
	}
	for _, s := range p.Steps {
		for _, r := range s.Requests {
			if err := r.Sendable(); err != nil {
				return nil, err
			}
		}
	}
	return p, nil
}

// Count is how many requests the plan sends (effect counts aside).
func (p *Plan) Count() int {
	n := 0
	for _, s := range p.Steps {
		n += len(s.Requests)
	}
	return n
}

// Info describes the base request for reports: its URL and headers as
// they may be printed (credentials masked, by name or by value; they are
// redacted again where they are rendered).
func (p *Plan) Info() RequestInfo {
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
