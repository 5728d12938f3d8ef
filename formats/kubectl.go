package formats

import (
	"strings"

	"github.com/idem-cli/idem/model"
)

// kubectl logs --prefix ("[pod/name/container] ") and --timestamps
// prefixes before a line of any format: the prefix is removed, its pod and
// container kept as labels.
var kubectlFormat = &format{
	Name: "kubectl", Kind: kindEnvelope, Tier: model.TierUnknown,
	Doc: "kubectl logs --prefix/--timestamps lines, unwrapped",
	text: func(p *Parser, s string, src model.Source) bool {
		rest, labels := stripPrefix(s)
		if len(rest) == len(s) {
			return false
		}
		// --timestamps' time is when the line was written: the time of
		// a line inside that gives none of its own (a logfmt or text
		// line whose logger writes no time). A line of no named format
		// keeps the time it began with (requestline.go reads it).
		prefix := strings.TrimSpace(s[:len(s)-len(rest)])
		when, _ := model.ParseTime(prefix[strings.LastIndexByte(prefix, ' ')+1:])
		first := len(p.out.Obs)
		p.reqline.stripped = s[:len(s)-len(rest)]
		p.unwrapLine(stringBytes(rest), labels, src)
		p.reqline.stripped = ""
		if !when.IsZero() {
			for i := first; i < len(p.out.Obs); i++ {
				if p.out.Obs[i].Time.IsZero() {
					p.out.Obs[i].Time = when
				}
			}
		}
		return true
	},
	Samples: []sample{{
		Origin: "fixtures/exports/kubectl.log, kubectl logs --prefix --timestamps",
		Line: `[pod/ingress-nginx-controller-5d8b7c9f4-x2k8p/controller] 2026-11-30T09:14:04.512000000Z {"time_iso8601":"2026-11-30T09:14:04+00:00",` +
			`"msec":"1796030044.512","remote_addr":"198.51.100.23","request_id":"14fe277217966d99b9a47cbebced2b9c",` +
			`"http_x_request_id":"c9b2decb-ebc7-4a9b-99d6-69712772ef41","http_idempotency_key":"0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41","request_method":"POST",` +
			`"request_uri":"/v1/orders","status":"499","body_bytes_sent":"0","request_length":"612","request_time":"2.398","upstream_addr":"10.0.2.15:8080",` +
			`"upstream_status":"201","upstream_response_time":"2.390","http_user_agent":"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/537.36 (KHTML, ` +
			`like Gecko) Chrome/131.0 Safari/537.36"}`,
		Want: model.Observation{Tier: model.TierProxy, Format: "nginx", Method: "POST", Route: "/v1/orders", UpstreamStatus: 201,
			Outcome: model.OutcomeClientClosed, RequestID: "c9b2decb-ebc7-4a9b-99d6-69712772ef41", Key: "0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41",
			Client: "198.51.100.23", Time: mustTime("2026-11-30T09:14:02.114Z"), Duration: 2_398_000_000,
			Labels: "container=controller,pod=ingress-nginx-controller-5d8b7c9f4-x2k8p"},
	}, {
		Origin: "an incident write-up in a public repository: kubectl logs --prefix --timestamps of ingress-nginx (its default log-format-upstream)",
		Line: `[pod/ingress-nginx-controller-6c9f8d4b7-7mlxz/controller] 2026-10-05T22:04:57.764907358Z 10.224.0.37 - - [05/Oct/2026:22:04:57 +0000] "POST ` +
			`/api/checkout HTTP/2.0" 503 87 "https://shop.example.com/cart" "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like ` +
			`Gecko) Chrome/141.0.0.0 Safari/537.36" 628 0.025 [shop-frontend-3000] [] 10.244.1.8:3000 87 0.025 503 fa44081918d16948066f14e7ba70ee25`,
		Want: model.Observation{Tier: model.TierProxy, Format: "ingress-nginx", Method: "POST", Route: "/api/checkout", Status: 503, UpstreamStatus: 503,
			Outcome: model.OutcomeOK, RequestID: "fa44081918d16948066f14e7ba70ee25", Client: "10.224.0.37",
			Time: mustTime("2026-10-05T22:04:56.975Z"), Duration: 25_000_000, Labels: "container=controller,pod=ingress-nginx-controller-6c9f8d4b7-7mlxz,upstream=shop-frontend-3000"},
	}},
}

// stripPrefix removes kubectl's prefixes, `kubectl logs --prefix`
// ("[pod/name/container] ") and `--timestamps`
// ("2026-11-30T10:00:00.123456789Z "), each where it is, and returns the
// labels they give. Read byte by byte: it is tried on every text line
// that no format before it read.
func stripPrefix(line string) (string, map[string]string) {
	i := 0
	var labels map[string]string
	if strings.HasPrefix(line, "[pod/") {
		if n := strings.IndexAny(line[5:], "] "); n > 0 && line[5+n] == ']' && len(line) > 6+n && line[6+n] == ' ' {
			parts := strings.Split(line[1:5+n], "/")
			labels = map[string]string{"pod": parts[1]}
			if len(parts) > 2 {
				labels["container"] = parts[len(parts)-1]
			}
			i = 7 + n
		}
	}
	return line[i+timestampPrefix(line[i:]):], labels
}

// timestampPrefix is the length of the RFC 3339 time and space that
// --timestamps writes at the start of s (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d,
// a fraction, Z or an offset), or 0.
func timestampPrefix(s string) int {
	const shape = "dddd-dd-ddTdd:dd:dd"
	if len(s) < len(shape)+2 {
		return 0
	}
	for i := 0; i < len(shape); i++ {
		if c := s[i]; shape[i] == 'd' && (c < '0' || c > '9') || shape[i] != 'd' && c != shape[i] {
			return 0
		}
	}
	i := len(shape)
	if s[i] == '.' {
		j := i + 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i+1 {
			return 0
		}
		i = j
	}
	switch {
	case i < len(s) && s[i] == 'Z':
		i++
	case i+6 <= len(s) && (s[i] == '+' || s[i] == '-') && digits2(s[i+1:]) && s[i+3] == ':' && digits2(s[i+4:]):
		i += 6
	default:
		return 0
	}
	if i < len(s) && s[i] == ' ' {
		return i + 1
	}
	return 0
}

func digits2(s string) bool {
	return len(s) >= 2 && s[0] >= '0' && s[0] <= '9' && s[1] >= '0' && s[1] <= '9'
}
