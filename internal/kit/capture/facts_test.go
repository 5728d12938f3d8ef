package capture

import (
	"fmt"
	"strings"
	"testing"
)

// fakeT keeps what a Facts reports.
type fakeT struct {
	errors, logs []string
	cleanups     []func()
}

func (f *fakeT) Helper()                         {}
func (f *fakeT) Logf(format string, args ...any) { f.logs = append(f.logs, format) }
func (f *fakeT) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}
func (f *fakeT) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *fakeT) end() {
	for _, fn := range f.cleanups {
		fn()
	}
}

func TestFactsConsultGaps(t *testing.T) {
	gaps := Gaps{"cap/*/status": "idem reads the wrong field as the status of every step"}
	var r fakeT
	f := gaps.Facts(&r, "cap")
	if f.Check("step/status", false, "got %d", 1) { // a known gap: logged
		t.Fatal("a failing check returned true")
	}
	if len(r.errors) != 0 || len(r.logs) != 1 {
		t.Fatalf("a known gap: %q errors, %d logs", r.errors, len(r.logs))
	}
	f.Check("step/key", false, "got %q", "x") // not a known gap: fails, named
	if len(r.errors) != 1 || !strings.HasPrefix(r.errors[0], "cap/step/key: ") {
		t.Fatalf("an unknown failure: %q", r.errors)
	}
	if !f.Check("other/method", true, "") || len(r.errors) != 1 || len(r.logs) != 1 {
		t.Fatalf("a passing check: %q errors, %d logs", r.errors, len(r.logs))
	}
	r.end() // the gap showed: nothing to say
	if len(r.errors) != 1 {
		t.Fatalf("the end, after the gap showed: %q", r.errors)
	}

	var again fakeT
	f = gaps.Facts(&again, "cap")
	f.Check("step/status", true, "") // the gap's check holds now
	again.end()
	if len(again.errors) != 1 || !strings.Contains(again.errors[0], "cap/*/status no longer shows") {
		t.Fatalf("the end, when the gap did not show: %q", again.errors)
	}

	var racy fakeT
	Gaps{"cap/*/status": Timing + "the software ends its record first on some runs, not on others"}.Facts(&racy, "cap").Check("step/status", true, "")
	racy.end()
	if len(racy.errors) != 0 {
		t.Fatalf("a timing gap that did not show on this run: %q", racy.errors)
	}

	var other fakeT
	gaps.Facts(&other, "other").Check("step/method", true, "") // names no gap
	other.end()
	if len(other.errors) != 0 {
		t.Fatalf("a gap no check named is not reported by this capture: %q", other.errors)
	}
}

func TestGapsFindTheirOwnFirst(t *testing.T) {
	gaps := Gaps{"fiber*/rule/role": "every variant's own reason, said at length here", "fiber/rule/role": "one variant's own reason, said at length"}
	if k, _ := gaps.find("fiber/rule/role"); k != "fiber/rule/role" {
		t.Errorf("fiber/rule/role found %q", k)
	}
	if k, _ := gaps.find("fiber-payload-hash/rule/role"); k != "fiber*/rule/role" {
		t.Errorf("fiber-payload-hash/rule/role found %q", k)
	}
	if gaps.Covers("fiber/rule/other") || gaps.Covers("fiber/x/rule/role") {
		t.Error("a gap covers a check it does not name")
	}
}

func TestGapsLint(t *testing.T) {
	for _, tt := range []struct {
		gaps Gaps
		bad  bool
	}{
		{Gaps{"cap/fact": "idem reads the wrong field here, for this reason"}, false},
		{Gaps{"cap[/fact": "idem reads the wrong field here, for this reason"}, true},
		{Gaps{"fact": "idem reads the wrong field here, for this reason"}, true},
		{Gaps{"cap/fact": "wrong"}, true},
	} {
		var r fakeT
		tt.gaps.lint(&r)
		if bad := len(r.errors) > 0; bad != tt.bad {
			t.Errorf("%v: errors %q, want some: %v", tt.gaps, r.errors, tt.bad)
		}
	}
}
