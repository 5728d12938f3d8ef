package harness

import (
	"reflect"
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
