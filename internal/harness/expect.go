package harness

import (
	"slices"

	"github.com/idem-cli/idem/diagnose"
)

// Expectation is a rule a harness's traffic must set off, naming keys. A
// harness derives it from what it sent and from the service's own ledger,
// never from idem's output.
type Expectation struct {
	Rule     string
	Role     string   // what in the traffic calls for it, for known gaps
	Keys     []string // the keys the finding must name
	Severity diagnose.Severity
	NotSay   string // a claim the traffic disproves, which its narrative must not make
}

// Expect returns must with e added. What the traffic proves adds up: an
// expectation of the same rule naming the same keys is not added twice
// but merged, so that the finding must have the higher of the two
// severities and make neither claim the traffic disproves.
func Expect(must []Expectation, e Expectation) []Expectation {
	found := false
	said := e.NotSay == "" // some expectation of e's rule and keys already checks e's claim
	for i := range must {
		m := &must[i]
		if m.Rule != e.Rule || !slices.Equal(m.Keys, e.Keys) {
			continue
		}
		found = true
		m.Severity = max(m.Severity, e.Severity)
		e.Severity = m.Severity
		if !said && m.NotSay == "" {
			m.NotSay = e.NotSay
		}
		said = said || m.NotSay == e.NotSay
	}
	if found && said {
		return must
	}
	return append(must, e) // new, or a second claim checked on its own
}

// ByKey groups items by key, with the keys in the order they first came.
func ByKey[T any](items []T, key func(T) string) (keys []string, by map[string][]T) {
	by = map[string][]T{}
	for _, it := range items {
		k := key(it)
		if _, ok := by[k]; !ok {
			keys = append(keys, k)
		}
		by[k] = append(by[k], it)
	}
	return keys, by
}
