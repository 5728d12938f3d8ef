package formats

import (
	"regexp"
	"strings"

	"github.com/idem-cli/idem/trace"
)

// kubectl logs --prefix ("[pod/name/container] ") and --timestamps
// prefixes before a line of any format: the prefix is removed, its pod and
// container kept as labels.
var kubectlFormat = &Format{
	Name: "kubectl", Kind: KindEnvelope, Tier: trace.TierUnknown,
	Doc: "kubectl logs --prefix/--timestamps lines, unwrapped",
	text: func(p *Parser, s string, src trace.Source) bool {
		line := []byte(s)
		rest, labels := stripPrefix(line)
		if len(rest) == len(line) {
			return false
		}
		p.unwrapLine(rest, labels, src)
		return true
	},
}

// kubectlPrefix matches `kubectl logs --prefix` ("[pod/name/container] ")
// and `--timestamps` ("2026-11-30T10:00:00.123456789Z ") prefixes.
var kubectlPrefix = regexp.MustCompile(`^(?:\[(pod/[^\] ]+)\] )?(?:(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)) )?`)

// stripPrefix removes kubectl's prefixes and returns the labels they give.
func stripPrefix(line []byte) ([]byte, map[string]string) {
	if len(line) == 0 || (line[0] != '[' && (line[0] < '0' || line[0] > '9')) {
		return line, nil
	}
	m := kubectlPrefix.FindSubmatchIndex(line)
	if m == nil || m[1] == 0 {
		return line, nil
	}
	var labels map[string]string
	if m[2] >= 0 {
		parts := strings.Split(string(line[m[2]:m[3]]), "/")
		labels = map[string]string{"pod": parts[1]}
		if len(parts) > 2 {
			labels["container"] = parts[len(parts)-1]
		}
	}
	return line[m[1]:], labels
}
