package formats

import "github.com/idem-cli/idem/model"

// Docker's json-file logging driver: {"log": …, "stream": …, "time": …}.
var dockerFormat = &format{
	Name: "docker", Kind: kindEnvelope,
	Doc:   "Docker json-file driver lines",
	match: func(r *record) bool { return r.has("log") && r.has("stream") && r.has("time") && len(r.keys) <= 5 },
	expand: func(p *Parser, r *record, src model.Source) bool {
		expandDocker(p, r, src)
		return true
	},
	Samples: []sample{{
		Origin: "fixtures/exports/docker.jsonl, the json-file driver",
		Line: `{"log":"{\"time_iso8601\":\"2026-11-30T09:14:04+00:00\",\"msec\":\"1796030044.512\",\"remote_addr\":\"198.51.100.23\",` +
			`\"request_id\":\"14fe277217966d99b9a47cbebced2b9c\",\"http_x_request_id\":\"c9b2decb-ebc7-4a9b-99d6-69712772ef41\",` +
			`\"http_idempotency_key\":\"0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41\",\"request_method\":\"POST\",\"request_uri\":\"/v1/orders\",\"status\":\"499\",` +
			`\"body_bytes_sent\":\"0\",\"request_length\":\"612\",\"request_time\":\"2.398\",\"upstream_addr\":\"10.0.2.15:8080\",\"upstream_status\":\"201\",` +
			`\"upstream_response_time\":\"2.390\",\"http_user_agent\":\"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/537.36 (KHTML, like Gecko) ` +
			`Chrome/131.0 Safari/537.36\"}\n","stream":"stdout","time":"2026-11-30T09:14:04.512000000Z"}`,
		Want: model.Observation{Tier: model.TierProxy, Format: "nginx", Method: "POST", Route: "/v1/orders", UpstreamStatus: 201,
			Outcome: model.OutcomeClientClosed, RequestID: "c9b2decb-ebc7-4a9b-99d6-69712772ef41", Key: "0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41",
			Client: "198.51.100.23", Time: mustTime("2026-11-30T09:14:02.114Z"), Duration: 2_398_000_000},
	}, {
		Origin: "an nginx container's -json.log quoted in a public repository (the access line inside, its $time_local the log time)",
		Line: `{"log":"172.17.0.1 - - [13/Nov/2022:20:39:06 +0000] \"GET / HTTP/1.1\" 200 353 \"-\" \"curl/7.68.0\" \"-\"\n","stream":"stdout",` +
			`"time":"2022-11-13T20:39:06.5747771Z"}`,
		Want: model.Observation{Tier: model.TierProxy, Format: "combined", Method: "GET", Route: "/", Status: 200, Outcome: model.OutcomeOK,
			Client: "172.17.0.1", Time: mustTime("2022-11-13T20:39:06Z")},
	}},
}

func expandDocker(p *Parser, r *record, src model.Source) {
	labels := map[string]string{}
	for _, k := range []string{"container_name", "tag"} {
		if v := r.get(k).Str; v != "" {
			labels[k] = capLen(v)
		}
	}
	labelsOf(r.get("attrs"), "", labels)
	p.unwrap(r.get("log"), labels, src, "docker")
}
