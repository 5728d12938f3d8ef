package capture

import (
	"slices"
	"strings"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/model"
)

// Expectation is a rule a capture's traffic must set off, naming keys. A
// harness derives it from what it sent and from its service's ledger,
// never from idem's output.
type Expectation struct {
	Rule     string
	Role     string   // what in the traffic calls for it: its check id is Rule/Role
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

// Clean is a key no finding may name, and why.
type Clean struct {
	Key string
	Why string
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

// Names reports whether f implicates every one of keys: among its keys,
// its intents' keys, or in its narrative.
func Names(f *diagnose.Finding, keys ...string) bool {
	for _, k := range keys {
		named := slices.Contains(f.Keys, k) || strings.Contains(f.Narrative, k) ||
			slices.ContainsFunc(f.Intents, func(in *model.Intent) bool { return in.Key == k })
		if !named {
			return false
		}
	}
	return true
}

// FindingsText lists findings a line each (rule, severity, narrative),
// for a failure message.
func FindingsText(fs []*diagnose.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("  " + f.Rule.ID + " (" + f.Severity.String() + "): " + f.Narrative + "\n")
	}
	return b.String()
}

// CheckRules checks the findings made on a capture against what its
// traffic calls for: each expectation's rule fires naming its keys (at
// its severity, with bySeverity) and makes no claim the traffic
// disproves (checks Rule/Role, Rule/Role/severity and Rule/Role/claim,
// which gaps may name); no finding fires that no expectation calls for;
// no finding names a clean key.
func CheckRules(f *Facts, findings []*diagnose.Finding, must []Expectation, clean []Clean, bySeverity bool) {
	f.t.Helper()
	for _, e := range must {
		id := e.Rule + "/" + e.Role
		mine := func(fd *diagnose.Finding) bool { return fd.Rule.ID == e.Rule && Names(fd, e.Keys...) }
		if !f.Check(id, slices.ContainsFunc(findings, mine), "%s does not fire for the %s (keys %v); findings:\n%s",
			e.Rule, e.Role, e.Keys, FindingsText(findings)) {
			continue
		}
		if bySeverity {
			f.Check(id+"/severity", slices.ContainsFunc(findings, func(fd *diagnose.Finding) bool { return mine(fd) && fd.Severity == e.Severity }),
				"%s for the %s (keys %v) is not %s; findings:\n%s", e.Rule, e.Role, e.Keys, e.Severity, FindingsText(findings))
		}
		if e.NotSay != "" {
			f.Check(id+"/claim", !slices.ContainsFunc(findings, func(fd *diagnose.Finding) bool { return mine(fd) && strings.Contains(fd.Narrative, e.NotSay) }),
				"%s for the %s (keys %v) says %q, which the traffic disproves; findings:\n%s", e.Rule, e.Role, e.Keys, e.NotSay, FindingsText(findings))
		}
	}
	for _, fd := range findings {
		if !slices.ContainsFunc(must, func(e Expectation) bool { return e.Rule == fd.Rule.ID && Names(fd, e.Keys...) }) {
			f.Check("unexpected/"+fd.Rule.ID, false, "%s fires where the traffic calls for no such rule: %s", fd.Rule.ID, fd.Narrative)
		}
	}
	for _, k := range clean {
		for _, fd := range findings {
			if Names(fd, k.Key) {
				f.Errorf("%s names key %s (%s): %s", fd.Rule.ID, k.Key, k.Why, fd.Narrative)
			}
		}
	}
}
