package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/idem-cli/idem/redact"
	"github.com/tidwall/gjson"
)

// Counting the server's effects through --effects-url, before a step and
// after it.

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
		return 0, true, &EffectsError{Err: &networkError{Err: err}}
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
	case v.IsArray() && paged(body):
		// The list's length is one page's, not the count.
		return 0, true, &EffectsError{Err: fmt.Errorf("%w: the answer of %s is one page of a list; give --effects-url a count (idem gateway's is /v1/effects/count) or --effects-path",
			errPagedEffects, redact.String(r.opts.EffectsURL))}
	case v.IsArray():
		return len(v.Array()), true, nil
	}
	return 0, true, &EffectsError{Err: fmt.Errorf("%w at %q in the answer of %s", errNoEffectCount, r.opts.EffectsPath, redact.String(r.opts.EffectsURL))}
}

// errNoEffectCount is an effects answer without a count or a list.
var errNoEffectCount = errors.New("no count")

// errPagedEffects is an effects answer that holds one page of a list and
// no count.
var errPagedEffects = errors.New("a page is not a count")

// paged reports whether an answer says it holds one page of a longer
// list: a link to the next page, or Stripe's has_more.
func paged(body []byte) bool {
	for _, p := range []string{"next", "next_page", "nextPage", "next_cursor", "links.next", "has_more", "hasMore"} {
		if v := gjson.GetBytes(body, p); v.Exists() && v.Type != gjson.Null && v.Type != gjson.False && v.String() != "" {
			return true
		}
	}
	return false
}

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

func effectsAssert(name string, before, after, delta int) Assertion {
	return Assertion{Name: name, Expected: fmt.Sprintf("%d (%+d)", before+delta, delta), Actual: fmt.Sprintf("%d (%+d)", after, after-before), Status: passIf(after-before == delta)}
}
