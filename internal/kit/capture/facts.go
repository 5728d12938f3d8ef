package capture

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/idem-cli/idem/model"
)

// Gaps are the facts idem reads wrong today on real captures, by check id
// (capture/fact, where fact is the harness's own path, such as
// step/status; path.Match patterns), each with why. A check a gap names
// logs instead of failing, so that the gap stays visible until the
// reading code is fixed; a gap whose checks all hold again fails, until
// its entry is removed with the fix. A gap whose why begins with Timing
// shows on some runs of a live capture and not on others (it hangs on
// which of two events the software meets first): it is not required to
// show.
type Gaps map[string]string

// Timing begins the why of a gap that only some runs show.
const Timing = "timing: "

// find is the entry for id: its own, else the first pattern that matches.
func (g Gaps) find(id string) (string, bool) {
	if _, ok := g[id]; ok {
		return id, true
	}
	keys := make([]string, 0, len(g))
	for k := range g {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if ok, _ := path.Match(k, id); ok {
			return k, true
		}
	}
	return "", false
}

// Covers reports whether a gap names id.
func (g Gaps) Covers(id string) bool {
	_, ok := g.find(id)
	return ok
}

// Lint fails t on an entry that is not a valid pattern of at least
// capture/fact, or that does not say why.
func (g Gaps) Lint(t testing.TB) { g.lint(t) }

func (g Gaps) lint(t reporter) {
	t.Helper()
	for k, why := range g {
		if _, err := path.Match(k, ""); err != nil {
			t.Errorf("gap %q: %v", k, err)
		}
		if !strings.Contains(k, "/") {
			t.Errorf("gap %q: want capture/fact", k)
		}
		if len(why) < 40 {
			t.Errorf("gap %q: say what idem gets wrong, and why, not %q", k, why)
		}
	}
}

// reporter is the part of testing.TB that Facts reports through.
type reporter interface {
	Helper()
	Logf(format string, args ...any)
	Errorf(format string, args ...any)
	Cleanup(func())
}

// Facts checks what idem read from one capture against what its harness
// sent, consulting the gaps.
type Facts struct {
	t       reporter
	capture string
	gaps    Gaps

	mu        sync.Mutex
	consulted map[string]bool // gap entries a failing or passing check named
	fired     map[string]bool // gap entries a failing check named
}

// Facts returns the checker of capture's facts; when the test ends it
// fails on every gap its checks named that did not show.
func (g Gaps) Facts(t reporter, capture string) *Facts {
	f := &Facts{t: t, capture: capture, gaps: g, consulted: map[string]bool{}, fired: map[string]bool{}}
	t.Cleanup(f.done)
	return f
}

// Check records one fact, capture/id: ok says whether idem read it
// right. It returns ok.
func (f *Facts) Check(id string, ok bool, format string, args ...any) bool {
	f.t.Helper()
	full := f.capture + "/" + id
	f.mu.Lock()
	defer f.mu.Unlock()
	gap, known := f.gaps.find(full)
	if known {
		f.consulted[gap] = true
	}
	if ok {
		return true
	}
	msg := fmt.Sprintf(format, args...)
	if known {
		f.fired[gap] = true
		f.t.Logf("known gap %s: %s [%s]", full, msg, f.gaps[gap])
		return false
	}
	f.t.Errorf("%s: %s", full, msg)
	return false
}

// Errorf fails the capture on what no gap may excuse.
func (f *Facts) Errorf(format string, args ...any) {
	f.t.Helper()
	f.t.Errorf("%s: %s", f.capture, fmt.Sprintf(format, args...))
}

// done fails on each gap the checks named that never showed: the fix
// that closed it is to remove its entry.
func (f *Facts) done() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for gap := range f.consulted {
		if !f.fired[gap] && !strings.HasPrefix(f.gaps[gap], Timing) {
			f.t.Errorf("known gap %s no longer shows: remove it from the gaps", gap)
		}
	}
}

// Intent checks that key makes one intent holding exactly the
// deliveries rids (in any order), under id; it returns the intent, or nil
// when key makes not one.
func (f *Facts) Intent(id string, set *model.Set, key string, rids []string) *model.Intent {
	f.t.Helper()
	in := f.OneIntent(id, set, key)
	if in == nil {
		return nil
	}
	var got []string
	for _, d := range in.Deliveries {
		got = append(got, d.RequestID)
	}
	want := slices.Clone(rids)
	sort.Strings(got)
	sort.Strings(want)
	f.Check(id, slices.Equal(got, want), "key %s: deliveries %v, want %v", key, got, want)
	return in
}

// OneIntent checks that key makes one intent, under id, and returns it
// (nil when key makes not one).
func (f *Facts) OneIntent(id string, set *model.Set, key string) *model.Intent {
	f.t.Helper()
	ins := set.FindIntent(key)
	if !f.Check(id, len(ins) == 1, "key %s: %d intents, want 1", key, len(ins)) {
		return nil
	}
	return ins[0]
}
