package formats

import "github.com/idem-cli/idem/model"

// Grafana Loki's exports: logcli --output jsonl and Grafana's "download
// logs" (an array of {line, timestamp, date, fields}).
var lokiFormat = &format{
	Name: "loki", Kind: kindEnvelope,
	Doc: "Grafana Loki exports (logcli jsonl, Grafana downloads)",
	match: func(r *record) bool {
		return r.has("line") && r.hasAny("labels", "stream", "timestamp", "fields", "tsNs")
	},
	expand: func(p *Parser, r *record, src model.Source) bool {
		expandLoki(p, r, src)
		return true
	},
	// The nginx line inside is read on its own; the labels come from the
	// envelope and say the ingress wrote it.
	Samples: []sample{{
		Origin: "fixtures/exports/loki.jsonl, logcli --output jsonl",
		Line: `{"labels":{"app":"ingress-nginx","namespace":"ingress-nginx","pod":"ingress-nginx-controller-5d8b7c9f4-x2k8p","container":"controller",` +
			`"job":"ingress-nginx/ingress-nginx"},"line":"{\"time_iso8601\":\"2026-11-30T09:14:04+00:00\",\"msec\":\"1796030044.512\",` +
			`\"remote_addr\":\"198.51.100.23\",\"request_id\":\"14fe277217966d99b9a47cbebced2b9c\",\"http_x_request_id\":\"c9b2decb-ebc7-4a9b-99d6-69712772ef41\",` +
			`\"http_idempotency_key\":\"0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41\",\"request_method\":\"POST\",\"request_uri\":\"/v1/orders\",\"status\":\"499\",` +
			`\"body_bytes_sent\":\"0\",\"request_length\":\"612\",\"request_time\":\"2.398\",\"upstream_addr\":\"10.0.2.15:8080\",\"upstream_status\":\"201\",` +
			`\"upstream_response_time\":\"2.390\",\"http_user_agent\":\"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/537.36 (KHTML, like Gecko) ` +
			`Chrome/131.0 Safari/537.36\"}","timestamp":"2026-11-30T09:14:04.512000000Z"}`,
		Want: model.Observation{Tier: model.TierProxy, Format: "nginx", Method: "POST", Route: "/v1/orders", UpstreamStatus: 201,
			Outcome: model.OutcomeClientClosed, RequestID: "c9b2decb-ebc7-4a9b-99d6-69712772ef41", Key: "0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41",
			Client: "198.51.100.23", Time: mustTime("2026-11-30T09:14:02.114Z"), Duration: 2_398_000_000,
			Labels: "app=ingress-nginx,container=controller,job=ingress-nginx/ingress-nginx,namespace=ingress-nginx,pod=ingress-nginx-controller-5d8b7c9f4-x2k8p"},
	}, {
		Origin: "fixtures/exports/grafana.json, one entry of Grafana's Download logs (JSON)",
		Line: `{"line":"{\"time_iso8601\":\"2026-11-30T09:15:11+00:00\",\"msec\":\"1796030111.204\",\"remote_addr\":\"198.51.100.23\",` +
			`\"request_id\":\"d4c3b2a1f9e7d5c8b3a4f1d08b6a4c2e\",\"http_x_request_id\":\"e2c4a6b8-0d1f-4a3b-8c5d-7e9f1a2b3c4d\",` +
			`\"http_idempotency_key\":\"6f2a8d44-1c3e-4b5a-9d7f-8e0a1b2c3d4e\",\"request_method\":\"POST\",\"request_uri\":\"/v1/orders\",\"status\":\"201\",` +
			`\"body_bytes_sent\":\"96\",\"request_length\":\"618\",\"request_time\":\"0.187\",\"upstream_addr\":\"10.0.2.15:8080\",\"upstream_status\":\"201\",` +
			`\"upstream_response_time\":\"0.183\",\"http_user_agent\":\"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0\"}",` +
			`"timestamp":"1796030111204000000","date":"2026-11-30T09:15:11.204Z","fields":{"app":"ingress-nginx","namespace":"ingress-nginx",` +
			`"pod":"ingress-nginx-controller-5d8b7c9f4-x2k8p","container":"controller","job":"ingress-nginx/ingress-nginx"}}`,
		Want: model.Observation{Tier: model.TierProxy, Format: "nginx", Method: "POST", Route: "/v1/orders", Status: 201, UpstreamStatus: 201,
			Outcome: model.OutcomeOK, RequestID: "e2c4a6b8-0d1f-4a3b-8c5d-7e9f1a2b3c4d", Key: "6f2a8d44-1c3e-4b5a-9d7f-8e0a1b2c3d4e",
			Client: "198.51.100.23", Time: mustTime("2026-11-30T09:15:11.017Z"), Duration: 187_000_000},
	}},
}

// expandLoki reads logcli's jsonl lines and Grafana's "Download logs" JSON
// (an array of {line, timestamp, date, fields}); labels are in "labels",
// "stream" or, from Grafana, "fields".
func expandLoki(p *Parser, r *record, src model.Source) {
	labels := labelsOf(r.get("labels"), "", nil)
	labelsOf(r.get("stream"), "", labels)
	labelsOf(r.get("fields"), "", labels)
	p.unwrap(r.get("line"), labels, src, "loki")
}
