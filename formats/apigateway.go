package formats

import (
	"strings"
	"time"

	"github.com/idem-cli/idem/model"
)

// AWS API Gateway's access logs, as its CloudWatch JSON template writes
// them ($context variables under the names AWS's examples give them):
// requestId is API Gateway's id of one request (a delivery: a retry gets
// a new one), extendedRequestId a second id of the same request;
// requestTime is when the request arrived, in the Common Log Format
// (requestTimeEpoch the same in milliseconds); responseLatency is the
// milliseconds from then to the response, integrationLatency the
// backend's share of them. A REST API logs resourcePath (the route's
// template, "/pets/{petId}"), an HTTP API routeKey ("GET /pets").
var apiGatewayFormat = &format{
	Name: "apigateway", Aliases: []string{"api-gateway", "aws-apigateway"}, Kind: kindJSON, Tier: model.TierProxy,
	Doc: "AWS API Gateway access logs (the CloudWatch JSON template: requestId, requestTime, httpMethod, status)",
	match: func(r *record) bool {
		return r.has("requestId") && r.has("status") && r.hasAny("httpMethod", "routeKey") && r.hasAny("requestTime", "requestTimeEpoch")
	},
	extract: extractAPIGateway,
	Samples: []sample{{
		Origin: "elastic/integrations packages/aws/data_stream/apigateway_logs/_dev/test/pipeline/test-apigateway-rest.log (a REST API)",
		Line: `{"requestId":"48752d0f-c99d-4cfa-a5a7-f3c6834d19e5","ip":"1.128.0.0","caller":"-","user":"-","requestTime":"10/Jun/2023:15:36:28 +0000",` +
			`"httpMethod":"GET","resourcePath":"/pets","status":"200","protocol":"HTTP/1.1","responseLength":"184"}`,
		Want: model.Observation{Tier: model.TierProxy, Format: "apigateway", Method: "GET", Route: "/pets", Status: 200, Outcome: model.OutcomeOK,
			RequestID: "48752d0f-c99d-4cfa-a5a7-f3c6834d19e5", Client: "1.128.0.0", Time: mustTime("2023-06-10T15:36:28Z")},
	}, {
		Origin: "elastic/integrations packages/aws/data_stream/apigateway_logs/_dev/test/pipeline/test-apigateway.log (an HTTP API: routeKey, its own id form)",
		Line: `{"requestId":"GQIVriFLIAMEMsA=","ip":"1.128.0.0","requestTime":"09/Jun/2023:12:54:08 +0000","httpMethod":"GET","routeKey":"GET /",` +
			`"status":"200","protocol":"HTTP/1.1","responseLength":"47140"}`,
		Want: model.Observation{Tier: model.TierProxy, Format: "apigateway", Method: "GET", Route: "/", Status: 200, Outcome: model.OutcomeOK,
			RequestID: "GQIVriFLIAMEMsA=", Client: "1.128.0.0", Time: mustTime("2023-06-09T12:54:08Z")},
	}, {
		Origin: "built from the $context variables AWS API Gateway's access-logging documentation names (a 504 after the integration's 29 s timeout): no public line with the latencies was found",
		Line: `{"requestId":"6e8b3f4a-2c1d-4e5f-9a8b-7c6d5e4f3a2b","extendedRequestId":"Jh2kLFzJoAMFa1Q=","ip":"203.0.113.7","requestTime":"01/Dec/2026:09:00:00 +0000",` +
			`"requestTimeEpoch":"1796115600000","httpMethod":"POST","resourcePath":"/v1/orders","status":"504","protocol":"HTTP/1.1","responseLength":"41",` +
			`"integrationLatency":"29001","responseLatency":"29012"}`,
		Want: model.Observation{Tier: model.TierProxy, Format: "apigateway", Method: "POST", Route: "/v1/orders", Status: 504, Outcome: model.OutcomeUpstreamTimeout,
			RequestID: "6e8b3f4a-2c1d-4e5f-9a8b-7c6d5e4f3a2b", Client: "203.0.113.7", Time: mustTime("2026-12-01T09:00:00Z"), Duration: 29012 * time.Millisecond,
			Detail: "integrationLatency 29001ms"},
	}},
}

func extractAPIGateway(p *Parser, r *record, o *model.Observation) bool {
	if t, ok := model.ParseTime(r.str("requestTimeEpoch")); ok {
		o.Time = t
	} else {
		o.Time, _ = model.ParseTime(r.str("requestTime"))
	}
	o.Duration, _ = model.ParseDuration(r.str("responseLatency"), model.Milliseconds)
	o.Method = httpMethod(r.str("httpMethod"))
	o.Route = routePath(r.str("resourcePath", "path"))
	if rk := r.str("routeKey"); o.Route == "" && rk != "" {
		// "GET /pets", or "$default" for a catch-all route.
		if m, path, ok := strings.Cut(rk, " "); ok {
			if o.Method == "" {
				o.Method = httpMethod(m)
			}
			o.Route = routePath(path)
		}
	}
	o.RequestID = r.str("requestId", "extendedRequestId")
	o.Key = model.NormalizeKey(r.str("idempotencyKey", "idempotency_key"))
	o.Client = r.str("ip", "sourceIp")
	o.Status, _ = intValue(r.str("status"))
	o.Outcome = proxyOutcome(o.Status)
	if il := r.str("integrationLatency"); il != "" {
		o.Detail = "integrationLatency " + il + "ms"
	}
	return o.Method != "" || o.RequestID != ""
}
