package formats

import (
	"github.com/idem-cli/idem/model"
	"github.com/tidwall/gjson"
)

// AWS CloudWatch Logs: aws logs filter-log-events answers (events[]) or
// one event per line.
var cloudwatchFormat = &format{
	Name: "cloudwatch", Kind: kindEnvelope,
	Doc:   "AWS CloudWatch Logs (filter-log-events answers, events per line)",
	match: func(r *record) bool { return isEventsPage(r) || r.has("message") && r.has("logStreamName") },
	expand: func(p *Parser, r *record, src model.Source) bool {
		if isEventsPage(r) {
			entries("events", (*Parser).cloudWatchEvent)(p, r, src)
		} else {
			whole((*Parser).cloudWatchEvent)(p, r, src)
		}
		return true
	},
	Samples: []sample{{
		Origin: "fixtures/exports/cloudwatch.json, a filter-log-events answer cut to two events",
		Line: `{"events":[{"logStreamName":"orders-api/orders-api-7d9f6b8c5-qm2lz","timestamp":1796030042118,"message":"{\"time\":\"2026-11-30T09:14:02.118Z\",` +
			`\"level\":\"INFO\",\"msg\":\"idempotency reservation\",\"request_id\":\"c9b2decb-ebc7-4a9b-99d6-69712772ef41\",\"route\":\"/v1/orders\",` +
			`\"method\":\"POST\",\"key_hash\":\"sha256:64a007e7bb1a1169\",\"decision\":\"new\",\"state\":\"in_progress\",` +
			`\"fingerprint\":\"sha256:0da6983d5be4c82203ac1bd602fa40926c7f8ce5c44253057c3d4618e3f7880e\"}","ingestionTime":1796030042298,` +
			`"eventId":"37000000000000000000000001"},{"logStreamName":"ingress-nginx/ingress-nginx-controller-5d8b7c9f4-x2k8p","timestamp":1796030044512,` +
			`"message":"{\"time_iso8601\":\"2026-11-30T09:14:04+00:00\",\"msec\":\"1796030044.512\",\"remote_addr\":\"198.51.100.23\",` +
			`\"request_id\":\"14fe277217966d99b9a47cbebced2b9c\",\"http_x_request_id\":\"c9b2decb-ebc7-4a9b-99d6-69712772ef41\",` +
			`\"http_idempotency_key\":\"0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41\",\"request_method\":\"POST\",\"request_uri\":\"/v1/orders\",\"status\":\"499\",` +
			`\"body_bytes_sent\":\"0\",\"request_length\":\"612\",\"request_time\":\"2.398\",\"upstream_addr\":\"10.0.2.15:8080\",\"upstream_status\":\"201\",` +
			`\"upstream_response_time\":\"2.390\",\"http_user_agent\":\"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/537.36 (KHTML, like Gecko) ` +
			`Chrome/131.0 Safari/537.36\"}","ingestionTime":1796030044692,"eventId":"37000000000000000000000004"}],` +
			`"searchedLogStreams":[{"logStreamName":"ingress-nginx/ingress-nginx-controller-5d8b7c9f4-x2k8p","searchedCompletely":true},` +
			`{"logStreamName":"orders-api/orders-api-7d9f6b8c5-qm2lz","searchedCompletely":true}]}`,
		Count: 2,
		Want: model.Observation{Tier: model.TierServer, Format: "slog", Method: "POST", Route: "/v1/orders",
			RequestID: "c9b2decb-ebc7-4a9b-99d6-69712772ef41", KeyHash: "sha256:64a007e7bb1a1169", Decision: "new", State: "in_progress",
			Fingerprint: "sha256:0da6983d5be4c82203ac1bd602fa40926c7f8ce5c44253057c3d4618e3f7880e", Message: "idempotency reservation",
			Time:   mustTime("2026-11-30T09:14:02.118Z"),
			Labels: "logStreamName=orders-api/orders-api-7d9f6b8c5-qm2lz"},
	}, {
		Origin: "fixtures/exports/cloudwatch.json, one event on its own line",
		Line: `{"logStreamName":"ingress-nginx/ingress-nginx-controller-5d8b7c9f4-x2k8p","timestamp":1796030044512,` +
			`"message":"{\"time_iso8601\":\"2026-11-30T09:14:04+00:00\",\"msec\":\"1796030044.512\",\"remote_addr\":\"198.51.100.23\",` +
			`\"request_id\":\"14fe277217966d99b9a47cbebced2b9c\",\"http_x_request_id\":\"c9b2decb-ebc7-4a9b-99d6-69712772ef41\",` +
			`\"http_idempotency_key\":\"0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41\",\"request_method\":\"POST\",\"request_uri\":\"/v1/orders\",\"status\":\"499\",` +
			`\"body_bytes_sent\":\"0\",\"request_length\":\"612\",\"request_time\":\"2.398\",\"upstream_addr\":\"10.0.2.15:8080\",\"upstream_status\":\"201\",` +
			`\"upstream_response_time\":\"2.390\",\"http_user_agent\":\"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/537.36 (KHTML, like Gecko) ` +
			`Chrome/131.0 Safari/537.36\"}","ingestionTime":1796030044692,"eventId":"37000000000000000000000004"}`,
		Want: model.Observation{Tier: model.TierProxy, Format: "nginx", Method: "POST", Route: "/v1/orders", UpstreamStatus: 201,
			Outcome: model.OutcomeClientClosed, RequestID: "c9b2decb-ebc7-4a9b-99d6-69712772ef41", Key: "0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41",
			Client: "198.51.100.23", Time: mustTime("2026-11-30T09:14:02.114Z"), Duration: 2_398_000_000,
			Labels: "logStreamName=ingress-nginx/ingress-nginx-controller-5d8b7c9f4-x2k8p"},
	}},
}

// isEventsPage recognises a filter-log-events answer.
func isEventsPage(r *record) bool {
	return r.has("events") && r.hasAny("searchedLogStreams", "nextToken", "events") && len(r.keys) <= 4
}

func (p *Parser) cloudWatchEvent(ev gjson.Result, src model.Source) {
	p.unwrap(ev.Get("message"), stringLabels(ev, "logStreamName", "logGroupName"), src, "cloudwatch")
}
