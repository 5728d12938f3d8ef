package formats

import (
	"regexp"
	"strings"
	"time"

	"github.com/idem-cli/idem/model"
)

// docker compose logs (and docker-compose v1) put each service's name,
// padded, and " | " before its lines, coloured on a terminal:
//
//	caddy-1  | {"level":"info","ts":1732958042.1,"logger":"http.log.access",…}
//	api-1    | 10.0.0.7 - - [30/Nov/2026:09:14:04 +0000] "POST /v1/orders HTTP/1.1" 201 57
//
// The prefix is removed with its colour codes and the service is kept as
// a label (which names the tier when it names one: caddy, api, worker…).
var composeFormat = &format{
	Name: "compose", Aliases: []string{"docker-compose"}, Kind: kindEnvelope,
	Doc:  "docker compose logs lines (service | line), unwrapped",
	text: readCompose,
	Samples: []sample{{
		Origin: "docker compose logs of a Caddy service, colour codes as on a terminal",
		Line: "\x1b[36mcaddy-1  | \x1b[0m" + `{"level":"info","ts":1796030044.25,"logger":"http.log.access.log0","msg":"handled request","request":` +
			`{"remote_ip":"172.18.0.1","client_ip":"172.18.0.1","proto":"HTTP/1.1","method":"POST","host":"localhost","uri":"/v1/orders",` +
			`"headers":{"X-Request-Id":["c9b2decb-ebc7-4a9b-99d6-69712772ef41"]}},"duration":0.25,"size":57,"status":201,"resp_headers":{}}`,
		Want: model.Observation{Tier: model.TierProxy, Format: "caddy", Method: "POST", Route: "/v1/orders", Status: 201, Outcome: model.OutcomeOK,
			RequestID: "c9b2decb-ebc7-4a9b-99d6-69712772ef41", Client: "172.18.0.1", Labels: "container=caddy-1,service=caddy",
			Time: mustTime("2026-11-30T09:14:04Z"), Duration: 250 * time.Millisecond},
	}},
}

// composePrefix matches the service name, its padding and the bar.
var composePrefix = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9_.-]*?)(?:[-_](\d+))?\s+\| ?`)

// ansiCodes are the terminal's colour and style sequences.
var ansiCodes = regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]")

func readCompose(p *Parser, s string, src model.Source) bool {
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
