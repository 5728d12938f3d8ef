package formats

import (
	"regexp"
	"strings"

	"github.com/idem-cli/idem/model"
)

// kubectl logs --prefix ("[pod/name/container] ") and --timestamps
// prefixes before a line of any format: the prefix is removed, its pod and
// container kept as labels.
var kubectlFormat = &Format{
	Name: "kubectl", Kind: KindEnvelope, Tier: model.TierUnknown,
	Doc: "kubectl logs --prefix/--timestamps lines, unwrapped",
	text: func(p *Parser, s string, src model.Source) bool {
		line := []byte(s)
		rest, labels := stripPrefix(line)
		if len(rest) == len(line) {
			return false
		}
		p.unwrapLine(rest, labels, src)
		return true
	},
	Samples: []Sample{{
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
