package formats

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/idem-cli/idem/model"
)

// ingress-nginx's default access log, its log-format-upstream:
//
//	$remote_addr - $remote_user [$time_local] "$request" $status
//	$body_bytes_sent "$http_referer" "$http_user_agent" $request_length
//	$request_time [$proxy_upstream_name] [$proxy_alternative_upstream_name]
//	$upstream_addr $upstream_response_length $upstream_response_time
//	$upstream_status $req_id
//
// The combined part is read as combined; what follows is read by
// position, recognised by its two bracketed upstream names. When nginx
// tried several upstreams, the upstream fields are lists ("502, 201").
// $req_id is the X-Request-ID the request came with, else one nginx made.
var ingressNginxFormat = &Format{
	Name: "ingress-nginx", Aliases: []string{"ingress"}, Kind: KindText, Tier: model.TierProxy,
	Doc:   "ingress-nginx's default access log (log-format-upstream), read by position",
	Setup: "ingress-nginx logs $req_id, the request's X-Request-ID; add \"$http_idempotency_key\" at the end of log-format-upstream to log the key.",
	text:  readIngressNginx,
	Samples: []Sample{{
		Origin: "ingress-nginx's default log-format-upstream, a line quoted in a public README",
		Line: `192.168.0.139 - - [27/Nov/2020:10:04:38 +0000] "GET /api/v2.0/projects?page=1&page_size=15 HTTP/2.0" 200 760 ` +
			`"https://harbor.iisquare.com/harbor/projects" "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/86.0.4240.75 ` +
			`Safari/537.36" 50 1.279 [app-lvs-svr-harbor-harbor-core-80] [] 10.244.4.100:8080 760 1.279 200 e0726b2e0c22976ac8ccd04d52d7c83b`,
		Want: model.Observation{Tier: model.TierProxy, Format: "ingress-nginx", Method: "GET", Route: "/api/v2.0/projects", Status: 200,
			UpstreamStatus: 200, Outcome: model.OutcomeOK, RequestID: "e0726b2e0c22976ac8ccd04d52d7c83b", Client: "192.168.0.139",
			Time: mustTime("2020-11-27T10:04:36.721Z"), Duration: 1_279_000_000, Labels: "upstream=app-lvs-svr-harbor-harbor-core-80"},
	}, {
		Origin: "a 499 behind which nginx tried two upstreams; $request_length (301) comes before $request_time",
		Line: `10.1.2.3 - - [30/Nov/2026:09:14:04 +0000] "POST /v1/orders HTTP/1.1" 499 0 "-" "okhttp/4.12.0" 301 2.398 [shop-api-8080] [] ` +
			`10.244.1.7:8080, 10.244.2.9:8080 0, 0 1.000, 1.397 502, 201 c9b2decb-ebc7-4a9b-99d6-69712772ef41`,
		Want: model.Observation{Tier: model.TierProxy, Format: "ingress-nginx", Method: "POST", Route: "/v1/orders", UpstreamStatus: 201,
			Outcome: model.OutcomeClientClosed, Detail: "upstream_status 502, 201", UpstreamTries: 2, RequestID: "c9b2decb-ebc7-4a9b-99d6-69712772ef41",
			Client: "10.1.2.3", Time: mustTime("2026-11-30T09:14:01.602Z"), Duration: 2398 * time.Millisecond},
	}},
}

// ingressStock is ingress-nginx's default log-format-upstream as its
// documentation gives it (user-guide/nginx-configuration/log-format): what
// each field of the line means is the grammar's (grammar/nginx.go). The
// reader below reads the same fields by position, and more leniently (a
// line cut short, any fields appended); TestIngressHandReadsTheStockFormat
// holds its reading equal to the compiled format's on real lines.
const ingressStock = `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" ` +
	`$request_length $request_time [$proxy_upstream_name] [$proxy_alternative_upstream_name] $upstream_addr ` +
	`$upstream_response_length $upstream_response_time $upstream_status $req_id`

// ingressTail matches what ingress-nginx appends to the combined line;
// a quoted key may follow when the format was extended with it.
var ingressTail = regexp.MustCompile(`^ (\d+|-) ([\d.]+|-) \[([^\]]*)\] \[([^\]]*)\] (.*)$`)

func readIngressNginx(p *Parser, s string, src model.Source) bool {
	if !p.clfCould(s) || !strings.Contains(s, "] [") { // a combined line, then ingressTail's brackets
		return false
	}
	var m clfMatch
	if !clfLine(s, &m) && !clfCut(s, &m) || m[1] != "" { // clfCut: a 400 or 408 without a request
		return false
	}
	t := ingressTail.FindStringSubmatch(m[11])
	if t == nil {
		return false
	}
	up := listFields(t[5])
	if len(up) < 5 {
		return false
	}
	var o model.Observation
	o.Source, o.Format, o.Tier = src, "ingress-nginx", model.TierProxy
	o.Client = m[2]
	if m[5] != "" {
		o.Method = httpMethod(m[5])
		o.Route = routePath(m[6])
	} else {
		o.Method, o.Route = cutRequest(m[6])
	}
	o.Status, _ = strconv.Atoi(m[7])
	o.Duration, _ = model.ParseDuration(t[2], model.Seconds)
	if at, ok := clfTime(m[4]); ok {
		o.Time = at.Add(-o.Duration).UTC() // $time_local is when the log was written; in UTC, as reports write it
	}
	status := up[3]
	o.UpstreamStatus, _ = intValue(status)
	if strings.Contains(status, ",") || strings.Contains(status, ":") {
		o.Detail = "upstream_status " + status
		o.UpstreamTries = upstreamTries(status)
	}
	if rid := up[4]; rid != "-" {
		o.RequestID = rid
	}
	if len(up) > 5 {
		if k := strings.Trim(up[5], `"`); generatedID(k) { // appended to the stock format, unnamed
			o.Key = model.NormalizeKey(k)
		}
	}
	if t[3] != "" {
		o.Labels = "upstream=" + t[3]
	}
	o.Outcome = proxyOutcome(o.Status)
	if o.Status == 499 {
		o.Status = 0
		if o.Detail == "" {
			o.Detail = "499 client closed request"
		}
	}
	p.textDone(&o)
	return true
}

// listFields splits at spaces, keeping nginx's lists ("10.0.0.1:80,
// 10.0.0.2:80" or "502, 201", also joined by " : " across upstream
// groups) as one field.
func listFields(s string) []string {
	var out []string
	for _, f := range strings.Fields(s) {
		if n := len(out); n > 0 && (strings.HasSuffix(out[n-1], ",") || f == ":" || strings.HasSuffix(out[n-1], " :")) {
			out[n-1] += " " + f
			continue
		}
		out = append(out, f)
	}
	return out
}
