package formats

import (
	"regexp"
	"strings"
	"testing"
)

// kubectlPrefixRE is the prefix as kubectl's documentation writes it;
// stripPrefix must take what it matches, no more and no less.
var kubectlPrefixRE = regexp.MustCompile(`^(?:\[(pod/[^\] ]+)\] )?(?:(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)) )?`)

func checkStripPrefix(t *testing.T, line string) {
	rest, labels := stripPrefix(line)
	m := kubectlPrefixRE.FindStringSubmatchIndex(line)
	if want := line[m[1]:]; rest != want {
		t.Fatalf("%q: rest %q, want %q", line, rest, want)
	}
	pod := ""
	if m[2] >= 0 {
		pod = strings.Split(line[m[2]:m[3]], "/")[1]
	}
	if labels["pod"] != pod {
		t.Fatalf("%q: pod %q, want %q", line, labels["pod"], pod)
	}
}

func TestStripPrefixIsTheDocumentedPrefix(t *testing.T) {
	for _, line := range []string{
		"", "x", "[pod/a/b] 2026-11-30T10:00:00.123456789Z {}", "[pod/a] x", "[pod/] x", "[pod/a]x", "[pod/a b] x",
		"2026-11-30T10:00:00Z x", "2026-11-30T10:00:00+01:00 x", "2026-11-30T10:00:00.Z x", "2026-11-30T10:00:00.5-0100 x",
		"2026-11-30T10:00:00Z", "2026-11-30T10:00:00Zx", "[pod/a/b/c] 2026-11-30T10:00:00.1Z", "2026-12-01T09:00:00.123Z INFO [w-3] cache miss",
		"[pod/a] [pod/b] x", "2026-11-30 10:00:00Z x", "[pod/\xff] x",
	} {
		checkStripPrefix(t, line)
	}
}

func FuzzStripPrefix(f *testing.F) {
	f.Add("[pod/a/b] 2026-11-30T10:00:00.123456789Z {}")
	f.Add("2026-11-30T10:00:00+01:00 x")
	f.Fuzz(checkStripPrefix)
}
