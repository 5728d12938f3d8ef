package capture

import (
	"reflect"
	"strings"
	"testing"

	"github.com/idem-cli/idem/diagnose"
)

func TestExpectMerges(t *testing.T) {
	keys := []string{"k1"}
	other := []string{"k2"}
	tests := []struct {
		name string
		add  []Expectation
		want []Expectation
	}{
		{"one", []Expectation{{Rule: "r", Keys: keys, Severity: diagnose.Warning}},
			[]Expectation{{Rule: "r", Keys: keys, Severity: diagnose.Warning}}},
		{"the same twice", []Expectation{{Rule: "r", Keys: keys, Role: "first"}, {Rule: "r", Keys: keys, Role: "second"}},
			[]Expectation{{Rule: "r", Keys: keys, Role: "first"}}},
		{"a higher severity later raises the first", []Expectation{{Rule: "r", Keys: keys, Severity: diagnose.Info}, {Rule: "r", Keys: keys, Severity: diagnose.Critical}},
			[]Expectation{{Rule: "r", Keys: keys, Severity: diagnose.Critical}}},
		{"a lower severity later changes nothing", []Expectation{{Rule: "r", Keys: keys, Severity: diagnose.Warning}, {Rule: "r", Keys: keys, Severity: diagnose.Info}},
			[]Expectation{{Rule: "r", Keys: keys, Severity: diagnose.Warning}}},
		{"a claim later joins the first", []Expectation{{Rule: "r", Keys: keys}, {Rule: "r", Keys: keys, NotSay: "never stored"}},
			[]Expectation{{Rule: "r", Keys: keys, NotSay: "never stored"}}},
		{"a second claim is checked on its own, at the higher severity",
			[]Expectation{{Rule: "r", Keys: keys, NotSay: "a", Severity: diagnose.Warning}, {Rule: "r", Keys: keys, NotSay: "b"}, {Rule: "r", Keys: keys, NotSay: "a", Severity: diagnose.Critical}},
			[]Expectation{{Rule: "r", Keys: keys, NotSay: "a", Severity: diagnose.Critical}, {Rule: "r", Keys: keys, NotSay: "b", Severity: diagnose.Critical}}},
		{"other keys or another rule stay apart",
			[]Expectation{{Rule: "r", Keys: keys, Severity: diagnose.Critical}, {Rule: "r", Keys: other}, {Rule: "s", Keys: keys}},
			[]Expectation{{Rule: "r", Keys: keys, Severity: diagnose.Critical}, {Rule: "r", Keys: other}, {Rule: "s", Keys: keys}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var must []Expectation
			for _, e := range tt.add {
				must = Expect(must, e)
			}
			if !reflect.DeepEqual(must, tt.want) {
				t.Errorf("got  %+v\nwant %+v", must, tt.want)
			}
		})
	}
}

func TestCheckRules(t *testing.T) {
	rule := func(id string) *diagnose.Rule { return &diagnose.Rule{ID: id} }
	lost := &diagnose.Finding{Rule: rule("response-lost"), Severity: diagnose.Warning, Keys: []string{"k1"}, Narrative: "the response was lost"}
	expired := &diagnose.Finding{Rule: rule("key-expired"), Severity: diagnose.Critical, Keys: []string{"k2"}, Narrative: "k2 was never stored"}
	must := []Expectation{
		{Rule: "response-lost", Role: "lost", Keys: []string{"k1"}, Severity: diagnose.Warning},
		{Rule: "key-expired", Role: "expired", Keys: []string{"k2"}, Severity: diagnose.Critical},
	}
	tests := []struct {
		name       string
		findings   []*diagnose.Finding
		must       []Expectation
		clean      []Clean
		bySeverity bool
		gaps       Gaps
		errors     []string // what the errors start with, in order
	}{
		{"every one fires", []*diagnose.Finding{lost, expired}, must, []Clean{{Key: "k3"}}, true, nil, nil},
		{"one does not fire", []*diagnose.Finding{lost}, must, nil, true, nil, []string{"cap/key-expired/expired: "}},
		{"one fires at another severity", []*diagnose.Finding{lost, expired},
			[]Expectation{must[0], {Rule: "key-expired", Role: "expired", Keys: []string{"k2"}, Severity: diagnose.Warning}}, nil, true, nil,
			[]string{"cap/key-expired/expired/severity: "}},
		{"severities not checked", []*diagnose.Finding{lost, expired},
			[]Expectation{must[0], {Rule: "key-expired", Role: "expired", Keys: []string{"k2"}}}, nil, false, nil, nil},
		{"one makes a claim the traffic disproves", []*diagnose.Finding{lost, expired},
			[]Expectation{must[0], {Rule: "key-expired", Role: "expired", Keys: []string{"k2"}, Severity: diagnose.Critical, NotSay: "never stored"}},
			nil, true, nil, []string{"cap/key-expired/expired/claim: "}},
		{"the claim is a known gap", []*diagnose.Finding{lost, expired},
			[]Expectation{must[0], {Rule: "key-expired", Role: "expired", Keys: []string{"k2"}, Severity: diagnose.Critical, NotSay: "never stored"}},
			nil, true, Gaps{"cap/key-expired/expired/claim": "the rule cannot see the replay, for this reason"}, nil},
		{"one fires that nothing calls for", []*diagnose.Finding{lost, expired}, must[:1], nil, true, nil,
			[]string{"cap/unexpected/key-expired: key-expired fires where the traffic calls for no such rule"}},
		{"one that nothing calls for is a known gap", []*diagnose.Finding{lost, expired}, must[:1], nil, true,
			Gaps{"cap/unexpected/key-expired": "the log misstates a status, for this reason"}, nil},
		{"one names a clean key", []*diagnose.Finding{lost, expired}, must, []Clean{{Key: "k2", Why: "answered once"}}, true, nil,
			[]string{"cap: key-expired names key k2 (answered once)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r fakeT
			CheckRules(tt.gaps.Facts(&r, "cap"), tt.findings, tt.must, tt.clean, tt.bySeverity)
			r.end()
			if len(r.errors) != len(tt.errors) {
				t.Fatalf("errors %q, want %q", r.errors, tt.errors)
			}
			for i, e := range tt.errors {
				if !strings.HasPrefix(r.errors[i], e) {
					t.Errorf("error %q, want %q", r.errors[i], e)
				}
			}
		})
	}
}
