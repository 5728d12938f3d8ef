package formats

import (
	"strings"
	"time"

	"github.com/idem-cli/idem/formats/grammar"
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
// Its lines are read by that format compiled by the grammar (ingressStock),
// recognised by its two bracketed upstream names. When nginx tried several
// upstreams, the upstream fields are lists ("502, 201"). $req_id is the
// X-Request-ID the request came with, else one nginx made.
var ingressNginxFormat = &format{
	Name: "ingress-nginx", Aliases: []string{"ingress"}, Kind: kindText, Tier: model.TierProxy,
	Doc:   "ingress-nginx's default access log (log-format-upstream), read by its stock format",
	Setup: "ingress-nginx logs $req_id, the request's X-Request-ID; add \"$http_idempotency_key\" at the end of log-format-upstream to log the key.",
	text:  readIngressNginx,
	Samples: []sample{{
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
// documentation gives it (user-guide/nginx-configuration/log-format),
// compiled by the grammar: what each field means is the grammar's
// (grammar/nginx.go: $time_local the end, $request_time seconds, the
// upstream fields lists where nginx tried several, $req_id the request's
// X-Request-ID, $proxy_upstream_name the upstream). The key follows it
// where the Setup's "$http_idempotency_key" is appended, quoted or not.
const ingressStock = `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" ` +
	`$request_length $request_time [$proxy_upstream_name] [$proxy_alternative_upstream_name] $upstream_addr ` +
	`$upstream_response_length $upstream_response_time $upstream_status $req_id`

// ingressPrograms are the stock format and the stock format with the key
// appended, compiled; they are the package's own, so one that does not
// compile is a bug.
var ingressPrograms = func() []*grammar.Program {
	var out []*grammar.Program
	for _, f := range []string{ingressStock, ingressStock + ` "$http_idempotency_key"`, ingressStock + ` $http_idempotency_key`} {
		p, err := grammar.Compile(grammar.Nginx, f, grammar.Options{})
		if err != nil {
			panic("formats: ingress-nginx's stock format: " + err.Error())
		}
		out = append(out, p)
	}
	return out
}()

func readIngressNginx(p *Parser, s string, src model.Source) bool {
	if !strings.Contains(s, "] [") { // the upstream names' brackets
		return false
	}
	v := &p.values
	read := false
	for _, prog := range ingressPrograms {
		if prog.Could(s) && prog.Read(s, v) == nil {
			read = true
			break
		}
	}
	// nginx writes every bare field ("-" for one it does not have), a
	// three-digit status and $time_local's date: a line without them is
	// not its.
	if !read || v.Unwritten() > 0 {
		return false
	}
	if st, _ := v.Get(grammar.Status); len(st) != 3 {
		return false
	}
	if at, _ := v.Get(grammar.End); !validTimeLocal(at) {
		return false
	}
	var o model.Observation
	o.Source, o.Format, o.Tier = src, "ingress-nginx", model.TierProxy
	p.observeValues(&o, v, grammar.Nginx)
	// The key is appended to the stock format, unnamed: it is one only
	// where it is shaped like a generated id.
	if k, _ := v.Get(grammar.Key); !generatedID(k) {
		o.Key = ""
	}
	o.Time = o.Time.UTC() // as reports write it
	// One note: nginx's tries where it made several, else a 499's.
	o.Detail = ""
	if up, _ := v.Get(grammar.UpstreamStatus); listsStatuses(up) {
		o.Detail = "upstream_status " + up
	} else if st, _ := v.Get(grammar.Status); st == "499" {
		o.Detail = "499 client closed request"
	}
	p.textDone(&o)
	return true
}

// validTimeLocal reports whether s is $time_local's date as nginx writes
// it (10/Oct/2000:13:55:36 -0700).
func validTimeLocal(s string) bool {
	_, ok := timeLocal(s)
	return ok
}
