package replay

import (
	"context"
	"fmt"
	"time"
)

// inProgressStep sends two deliveries under the fresh key k, the second
// while the first runs.
func inProgressStep(base *request, opts Options, k string) *step {
	return &step{Probe: probeInProgress, Requests: []*request{base.clone(opts, k, base.Body), base.clone(opts, k, base.Body)}, run: runInProgress,
		Note: fmt.Sprintf("a second delivery under the fresh key %s while the first runs: expect %d", k, opts.Profile.InProgress)}
}

// runInProgress sends the second delivery 150ms into the first: a
// correct server answers it "in progress".
func runInProgress(ctx context.Context, r *runner, s *step) ([]Assertion, error) {
	first := make(chan response, 1)
	go func() { first <- r.send(ctx, s.Requests[0]) }()
	select {
	case resp := <-first:
		if a, stop := r.check(s.Probe, resp, 0); stop {
			return []Assertion{a}, nil
		}
		return []Assertion{{Name: "in-progress status", Status: Skip, Expected: fmt.Sprint(r.opts.Profile.InProgress),
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
		status := Pass
		if ra == "" {
			status = Info
		}
		out = append(out, Assertion{Name: "Retry-After", Expected: "a delay", Actual: orNone(ra), Status: status})
	}
	return out, nil
}
