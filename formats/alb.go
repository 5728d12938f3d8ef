package formats

import (
	"strconv"
	"strings"
	"time"

	"github.com/idem-cli/idem/model"
)

// AWS Application Load Balancer access logs: one space-separated line per
// request, with quoted request, user agent and a few more, as documented in
// "Access logs for your Application Load Balancer":
//
//	type time elb client:port target:port request_processing_time
//	target_processing_time response_processing_time elb_status_code
//	target_status_code received_bytes sent_bytes "request" "user_agent"
//	ssl_cipher ssl_protocol target_group_arn "trace_id" "domain_name"
//	"chosen_cert_arn" matched_rule_priority request_creation_time
//	"actions_executed" "redirect_url" "error_reason" …
//
// time is when the load balancer sent the response (or gave up);
// request_creation_time is when it received the request. A processing time
// of -1 means the load balancer could not send the request to a target, or
// the target (or the client) closed the connection before a response: the
// status codes then say who. The X-Amzn-Trace-Id ("Root=1-…") is the
// request id the ALB adds and passes on to the target.
var albFormat = &format{
	Name: "alb", Aliases: []string{"aws-alb"}, Kind: kindText, Tier: model.TierProxy,
	Doc:   "AWS Application Load Balancer access logs (X-Amzn-Trace-Id as the request id)",
	Setup: "The ALB logs the X-Amzn-Trace-Id it adds (trace_id); the application must log the same header to be joined.",
	text:  readALB,
	Samples: []sample{{
		Origin: "AWS documentation, Access logs for your Application Load Balancer (HTTP entry example)",
		Line: `http 2018-07-02T22:23:00.186641Z app/my-loadbalancer/50dc6c495c0c9188 192.168.131.39:2817 10.0.0.1:80 0.000 0.001 0.000 200 200 34 366 ` +
			`"GET http://www.example.com:80/ HTTP/1.1" "curl/7.46.0" - - arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/my-targets/73e2d6bc24d8a067 ` +
			`"Root=1-58337262-36d228ad5d99923122bbe354" "-" "-" 0 2018-07-02T22:22:48.364000Z "forward" "-" "-" "10.0.0.1:80" "200" "-" "-" TID_1234abcd5678ef90`,
		Want: model.Observation{Tier: model.TierProxy, Format: "alb", Method: "GET", Route: "/", Status: 200, UpstreamStatus: 200,
			Outcome: model.OutcomeOK, RequestID: "Root=1-58337262-36d228ad5d99923122bbe354", Client: "192.168.131.39",
			Time: mustTime("2018-07-02T22:22:48.364Z"), Duration: 11822641 * time.Microsecond},
	}, {
		Origin: "a target that closed the connection before answering (processing times -1, target status -)",
		Line: `https 2026-11-30T09:14:04.520000Z app/shop/50dc6c495c0c9188 203.0.113.7:51234 10.0.2.15:8080 0.000 -1 -1 502 - 412 293 ` +
			`"POST https://shop.example.com:443/v1/orders?src=app HTTP/1.1" "Mozilla/5.0" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2 ` +
			`arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/api/73e2d6bc24d8a067 "Root=1-6746d3c4-0f1e2d3c4b5a69788796a5b4" ` +
			`"shop.example.com" "arn:aws:acm:eu-west-1:123456789012:certificate/abc" 1 2026-11-30T09:14:02.120000Z "forward" "-" "-" "10.0.2.15:8080" "-" "-" "-"`,
		Want: model.Observation{Tier: model.TierProxy, Format: "alb", Method: "POST", Route: "/v1/orders", Status: 502,
			Outcome: model.OutcomeUpstreamReset, RequestID: "Root=1-6746d3c4-0f1e2d3c4b5a69788796a5b4", Client: "203.0.113.7",
			Time: mustTime("2026-11-30T09:14:02.12Z"), Duration: 2400 * time.Millisecond, Detail: "target_processing_time -1"},
	}, {
		Origin: "Elastic beats x-pack/filebeat/module/aws/elb/test/application-lb-http.log (460: the client left 5.7s after the ALB forwarded it)",
		Line: `http 2019-10-11T15:01:12.376735Z app/filebeat-aws-elb-test/c86a326e7dc14222 77.227.156.41:56398 10.0.0.192:80 -1 -1 -1 460 - 125 0 ` +
			`"GET http://filebeat-aws-elb-test-12030537.eu-central-1.elb.amazonaws.com:80/ HTTP/1.1" "curl/7.58.0" - - ` +
			`arn:aws:elasticloadbalancing:eu-central-1:627959692251:targetgroup/test-lb-instances/8f04c4fe71f5f794 "Root=1-5da09932-2c342a443bfb96249aa50ed7" ` +
			`"-" "-" 0 2019-10-11T15:01:06.657000Z "forward" "-" "-"`,
		Want: model.Observation{Tier: model.TierProxy, Format: "alb", Method: "GET", Route: "/", Outcome: model.OutcomeClientClosed,
			RequestID: "Root=1-5da09932-2c342a443bfb96249aa50ed7", Client: "77.227.156.41",
			Time: mustTime("2019-10-11T15:01:06.657Z"), Duration: 5719735 * time.Microsecond},
	}, {
		Origin: "Elastic beats x-pack/filebeat/module/aws/elb/test/application-lb-http.log (504: no answer from the target in 10s)",
		Line: `http 2019-10-11T15:01:50.492440Z app/filebeat-aws-elb-test/c86a326e7dc14222 77.227.156.41:56488 10.0.1.107:80 -1 -1 -1 504 - 125 308 ` +
			`"GET http://filebeat-aws-elb-test-12030537.eu-central-1.elb.amazonaws.com:80/ HTTP/1.1" "curl/7.58.0" - - ` +
			`arn:aws:elasticloadbalancing:eu-central-1:627959692251:targetgroup/test-lb-instances/8f04c4fe71f5f794 "Root=1-5da09954-2c342a443bfb96249aa50ed7" ` +
			`"-" "-" 0 2019-10-11T15:01:40.491000Z "forward" "-" "-"`,
		Want: model.Observation{Tier: model.TierProxy, Format: "alb", Method: "GET", Route: "/", Status: 504,
			Outcome: model.OutcomeUpstreamTimeout, RequestID: "Root=1-5da09954-2c342a443bfb96249aa50ed7", Client: "77.227.156.41",
			Time: mustTime("2019-10-11T15:01:40.491Z"), Duration: 10001440 * time.Microsecond},
	}},
}

// readALB reads one ALB line, reporting whether it was one.
func readALB(p *Parser, s string, src model.Source) bool {
	switch {
	case strings.HasPrefix(s, "http "), strings.HasPrefix(s, "https "), strings.HasPrefix(s, "h2 "),
		strings.HasPrefix(s, "grpcs "), strings.HasPrefix(s, "ws "), strings.HasPrefix(s, "wss "):
	default:
		return false
	}
	f := albFields(s)
	if len(f) < 18 || !strings.Contains(f[2], "/") {
		return false
	}
	end, ok := model.ParseTime(f[1])
	if !ok {
		return false
	}
	var o model.Observation
	if !readBalancerFields(&o, f[1:]) {
		return false
	}
	o.Source, o.Format = src, "alb"
	if f[17] != "-" {
		o.RequestID = f[17]
	}
	// time is the end: the start is request_creation_time when logged,
	// else the end less the three processing times.
	o.Time = end.Add(-o.Duration)
	if len(f) > 21 {
		if start, ok := model.ParseTime(f[21]); ok && !start.After(end) {
			o.Time = start
		}
	}
	o.Duration = end.Sub(o.Time)
	p.textDone(&o)
	return true
}

// readBalancerFields reads what the Application and the Classic Load
// Balancer both write, in the same order, from the time on:
//
//	time elb client:port target:port request_processing_time
//	target_processing_time response_processing_time elb_status_code
//	target_status_code received_bytes sent_bytes "request" …
//
// Duration is the three processing times added (those that are -1 left
// out: the load balancer could not send the request on, or a side
// closed the connection first, which the outcome says). It reports
// whether f holds a request line.
func readBalancerFields(o *model.Observation, f []string) bool {
	if len(f) < 12 {
		return false
	}
	method, path := splitRequestLine(f[11])
	if method == "" {
		return false
	}
	o.Tier = model.TierProxy
	o.Method, o.Route = method, path
	o.Client = hostOf(f[2])
	o.Status, _ = strconv.Atoi(f[7])
	o.UpstreamStatus, _ = strconv.Atoi(f[8])
	var spent time.Duration
	gone := ""
	for i, name := range []string{"request_processing_time", "target_processing_time", "response_processing_time"} {
		if strings.HasPrefix(f[4+i], "-1") {
			if gone == "" {
				gone = name + " -1"
			}
			continue
		}
		// Read as decimals, not floats: 0.000073 s is 73 µs exactly.
		if d, ok := model.ParseDuration(f[4+i], model.Seconds); ok {
			spent += d
		}
	}
	o.Duration = spent
	o.Detail = gone
	switch {
	case o.Status == 460: // the client closed the connection before the ALB could answer
		o.Outcome, o.Status = model.OutcomeClientClosed, 0
		o.Detail = strings.TrimSpace("460 client closed connection " + gone)
	case o.Status == 504 || o.Status == 561:
		o.Outcome = model.OutcomeUpstreamTimeout
	case o.Status == 502 || o.Status == 503 && gone != "":
		o.Outcome = model.OutcomeUpstreamReset
	case o.Status == 503 && o.UpstreamStatus == 0:
		o.Outcome = model.OutcomeNotDelivered
	default:
		o.Outcome = proxyOutcome(o.Status)
	}
	return true
}

// albFields splits an ALB line at spaces, keeping quoted fields whole
// (their quotes removed).
func albFields(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i >= len(s) {
			break
		}
		if s[i] == '"' {
			j := strings.IndexByte(s[i+1:], '"')
			if j < 0 {
				out = append(out, s[i+1:])
				break
			}
			out = append(out, s[i+1:i+1+j])
			i += j + 2
			continue
		}
		j := strings.IndexByte(s[i:], ' ')
		if j < 0 {
			out = append(out, s[i:])
			break
		}
		out = append(out, s[i:i+j])
		i += j
	}
	return out
}

// hostOf drops the port of host:port ("-" when the ALB had no target).
func hostOf(s string) string {
	if s == "-" {
		return ""
	}
	if i := strings.LastIndexByte(s, ':'); i > 0 && !strings.Contains(s[i:], "]") {
		return s[:i]
	}
	return s
}
