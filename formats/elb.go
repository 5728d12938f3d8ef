package formats

import (
	"strings"
	"time"

	"github.com/idem-cli/idem/model"
)

// AWS Classic Load Balancer access logs ("Access logs for your Classic
// Load Balancer"): one space-separated line per request,
//
//	timestamp elb client:port backend:port request_processing_time
//	backend_processing_time response_processing_time elb_status_code
//	backend_status_code received_bytes sent_bytes "request" "user_agent"
//	ssl_cipher ssl_protocol
//
// the same fields, in the same order, as an Application Load Balancer's
// line after its type, and read by the same reader (alb.go). What
// differs: timestamp is when the load balancer received the request
// (the ALB's time is the response's), there is no type before it and no
// trace id after it, so a classic line carries no request id and joins
// by key, method, route and time only. A TCP listener's line logs "- - - "
// for the request: a connection, not an HTTP request, it is read and
// set aside. Under the name elb, an ALB line is read too (as alb): the
// name stands for both.
var elbFormat = &format{
	Name: "elb", Aliases: []string{"aws-elb", "elb-classic", "clb"}, Kind: kindText, Tier: model.TierProxy,
	Doc:   "AWS Classic Load Balancer access logs (no request id: joined by key, method, route and time); ALB lines too under this name",
	Setup: "A Classic Load Balancer logs no request id and no header: the application must log the key, method and route for its lines to be joined.",
	text:  readELB,
	Samples: []sample{{
		Origin: "AWS documentation, Access logs for your Classic Load Balancer (HTTP entry example)",
		Line: `2015-05-13T23:39:43.945958Z my-loadbalancer 192.168.131.39:2817 10.0.0.1:80 0.000073 0.001048 0.000057 200 200 0 29 ` +
			`"GET http://www.example.com:80/ HTTP/1.1" "curl/7.38.0" - -`,
		Want: model.Observation{Tier: model.TierProxy, Format: "elb", Method: "GET", Route: "/", Status: 200, UpstreamStatus: 200,
			Outcome: model.OutcomeOK, Client: "192.168.131.39", Time: mustTime("2015-05-13T23:39:43.945958Z"), Duration: 1178 * time.Microsecond},
	}, {
		Origin: "AWS documentation, Access logs for your Classic Load Balancer (HTTPS entry example)",
		Line: `2015-05-13T23:39:43.945958Z my-loadbalancer 192.168.131.39:2817 10.0.0.1:80 0.000086 0.001048 0.001337 200 200 0 57 ` +
			`"GET https://www.example.com:443/ HTTP/1.1" "curl/7.38.0" DHE-RSA-AES128-SHA TLSv1.2`,
		Want: model.Observation{Tier: model.TierProxy, Format: "elb", Method: "GET", Route: "/", Status: 200, UpstreamStatus: 200,
			Outcome: model.OutcomeOK, Client: "192.168.131.39", Time: mustTime("2015-05-13T23:39:43.945958Z"), Duration: 2471 * time.Microsecond},
	}, {
		Origin: "a backend that never answered: the processing times -1, the ELB's own 504, no backend status",
		Line: `2026-11-30T09:14:02.120000Z shop-lb 203.0.113.7:51234 10.0.2.15:8080 0.000041 -1 -1 504 0 412 0 ` +
			`"POST https://shop.example.com:443/v1/orders?src=app HTTP/1.1" "Mozilla/5.0" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2`,
		Want: model.Observation{Tier: model.TierProxy, Format: "elb", Method: "POST", Route: "/v1/orders", Status: 504,
			Outcome: model.OutcomeUpstreamTimeout, Client: "203.0.113.7", Time: mustTime("2026-11-30T09:14:02.12Z"),
			Duration: 41 * time.Microsecond, Detail: "backend_processing_time -1"},
	}},
}

// readELB reads one Classic Load Balancer line, or an ALB line (the name
// elb stands for both).
func readELB(p *Parser, s string, src model.Source) bool {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return readALB(p, s, src)
	}
	f := albFields(s)
	if len(f) < 13 || strings.Contains(f[1], "/") || !strings.Contains(f[2], ":") {
		return false
	}
	for _, t := range f[4:7] { // the three processing times, in seconds
		if _, ok := model.ParseDuration(t, model.Seconds); !ok && t != "-1" {
			return false
		}
	}
	start, ok := model.ParseTime(f[0])
	if !ok || !strings.Contains(f[0], "T") {
		return false
	}
	if strings.TrimSpace(strings.ReplaceAll(f[11], "-", "")) == "" {
		// A TCP listener's connection: no HTTP request to read.
		p.out.Ignored++
		p.countFormat("elb")
		return true
	}
	var o model.Observation
	if !readBalancerFields(&o, f) {
		return false
	}
	o.Source, o.Format, o.Time = src, "elb", start
	o.Detail = strings.Replace(o.Detail, "target_", "backend_", 1)
	p.textDone(&o)
	return true
}
