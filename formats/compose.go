package formats

import (
	"regexp"
	"strings"

	"github.com/idem-cli/idem/trace"
)

// docker compose logs (and docker-compose v1) put each service's name,
// padded, and " | " before its lines, coloured on a terminal:
//
//	caddy-1  | {"level":"info","ts":1732958042.1,"logger":"http.log.access",…}
//	api-1    | 10.0.0.7 - - [30/Nov/2026:09:14:04 +0000] "POST /v1/orders HTTP/1.1" 201 57
//
// The prefix is removed with its colour codes and the service is kept as
// a label (which names the tier when it names one: caddy, api, worker…).
var composeFormat = &Format{
	Name: "compose", Aliases: []string{"docker-compose"}, Kind: KindEnvelope,
	Doc:  "docker compose logs lines (service | line), unwrapped",
	text: readCompose,
}

// composePrefix matches the service name, its padding and the bar.
var composePrefix = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9_.-]*?)(?:[-_](\d+))?\s+\| ?`)

// ansiCodes are the terminal's colour and style sequences.
var ansiCodes = regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]")

func readCompose(p *Parser, s string, src trace.Source) bool {
	if strings.IndexByte(s, '|') < 0 {
		return false
	}
	if strings.IndexByte(s, 0x1b) >= 0 {
		s = ansiCodes.ReplaceAllString(s, "")
	}
	m := composePrefix.FindStringSubmatchIndex(s)
	if m == nil {
		return false
	}
	rest := strings.TrimSpace(s[m[1]:])
	labels := map[string]string{"service": s[m[2]:m[3]]}
	if m[4] >= 0 {
		labels["container"] = s[m[2]:m[5]]
	}
	if rest == "" {
		p.out.Ignored++
		return true
	}
	if rest[0] != '{' {
		// Only a line of a known text format: "INFO | started" is not
		// compose's.
		saved := p.labels
		p.labels = mergeLabels(saved, labels)
		ok := p.parseText([]byte(rest), src)
		p.labels = saved
		return ok
	}
	p.unwrapLine([]byte(rest), labels, src)
	return true
}
