package replay

import (
	"context"
	"fmt"
)

// missingKeyStep sends the request without a key.
func missingKeyStep(base *request, opts Options) *step {
	return &step{Probe: probeMissingKey, Requests: []*request{base.clone(opts, "", base.Body)}, run: runMissingKey,
		Note: fmt.Sprintf("the request without a key: expect %d and no effect", opts.Profile.MissingKey)}
}

// runMissingKey expects the profile's missing-key status and no new effect.
func runMissingKey(ctx context.Context, r *runner, s *step) ([]Assertion, error) {
	return r.refused(ctx, s, "missing-key status", r.opts.Profile.MissingKey)
}
