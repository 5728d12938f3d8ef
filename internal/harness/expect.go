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

// Expect returns must with e added, unless must already expects e's rule
// naming e's keys.
func Expect(must []Expectation, e Expectation) []Expectation {
	if slices.ContainsFunc(must, func(m Expectation) bool { return m.Rule == e.Rule && slices.Equal(m.Keys, e.Keys) }) {
		return must
	}
	return append(must, e)
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
