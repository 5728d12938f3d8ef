package replay

import "context"

// replayStep resends the captured request under its key.
func replayStep(base *request) *step {
	return &step{Note: "replay the captured request with the same key and a new request id",
		Requests: []*request{base}, run: runReplay}
}

// runReplay checks the replay against the original answer: its status,
// its result id (or, with none, its body), the replay marker and no new
// effect. An answer that tests nothing stops the plan.
func runReplay(ctx context.Context, r *runner, s *step) ([]Assertion, error) {
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
		out = append(out, Assertion{Name: "status", Status: Skip, Expected: "the original status (not in the capture or the logs)", Actual: resp.statusText()})
	}
	got := r.idOf(resp, req)
	origBody, bodyOK := canonicalJSON(orig.Body)
	switch {
	case orig.ResultID != "":
		out = append(out, Assertion{Name: "result id", Expected: orig.ResultID, Actual: orNone(got), Status: passIf(got == orig.ResultID)})
	case bodyOK && resp.err == nil:
		// No id anywhere: a correct replay returns the stored body.
		replayed, ok := canonicalJSON(resp.body)
		actual := "the same body"
		if !ok || replayed != origBody {
			actual = "another body: " + clip(string(resp.body), 120)
		}
		out = append(out, Assertion{Name: "stored body", Expected: "the captured body (canonical JSON)", Actual: actual, Status: passIf(ok && replayed == origBody)})
	default:
		out = append(out, Assertion{Name: "result id", Status: Skip, Expected: "the original result id (not in the capture or the logs)", Actual: orNone(got)})
	}
	if r.opts.Profile.Replayed != "" {
		out = append(out, r.marker(resp))
	}
	return effects(out, "effects unchanged", 0)
}
