package replay

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// MaxConcurrency bounds the concurrent probe.
const MaxConcurrency = 16

// ErrConcurrency is a concurrent probe larger than MaxConcurrency.
var ErrConcurrency = errors.New("too many concurrent deliveries")

// concurrentStep sends opts.Concurrency deliveries under the fresh key k.
func concurrentStep(base *request, opts Options, k string) *step {
	var reqs []*request
	for i := 0; i < opts.Concurrency; i++ {
		reqs = append(reqs, base.clone(opts, k, base.Body))
	}
	return &step{Probe: probeConcurrent, Requests: reqs, run: runConcurrent,
		Note: fmt.Sprintf("%d simultaneous deliveries under the fresh key %s (derived from the captured key): expect exactly one effect", opts.Concurrency, k)}
}

// runConcurrent sends the deliveries at once under one fresh key. A
// correct server runs one (a fresh success, or an answer lost after it
// ran) and answers the others "in progress" or with the replay of that
// one. Fresh result ids among the answers, or more than one fresh
// success, is broken whether or not effects can be counted.
func runConcurrent(ctx context.Context, r *runner, s *step) ([]Assertion, error) {
	effects, err := r.effectCheck(ctx)
	if err != nil {
		return nil, err
	}
	resps := make([]response, len(s.Requests))
	var wg sync.WaitGroup
	startGate := make(chan struct{})
	for i, req := range s.Requests {
		wg.Add(1)
		go func(i int, req *request) {
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
		{Name: "one fresh success", Expected: "1 (the others wait or replay it)", Actual: fmt.Sprintf("%d: %s", c.fresh, strings.Join(c.labels, ", ")), Status: passIf(c.fresh == 1)},
		{Name: "the others waited or replayed", Expected: fmt.Sprintf("%d in-progress (%d) or replayed", n-1, r.opts.Profile.InProgress),
			Actual: fmt.Sprintf("%d waited, %d replayed, %d other", c.waited, c.replayed, c.other), Status: passIf(c.other == 0 && c.waited+c.replayed == n-1)},
	}
	if len(c.ids) > 1 {
		out = append(out, Assertion{Name: "one result id", Status: Fail, Expected: "1", Actual: fmt.Sprintf("%d: %s", len(c.ids), strings.Join(c.ids, ", "))})
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
func classifyConcurrent(resps []response, reqs []*request, r *runner) concurrentAnswers {
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
