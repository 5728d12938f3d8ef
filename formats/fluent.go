package formats

import "github.com/idem-cli/idem/model"

// Fluent Bit, Fluentd and Vector records with Kubernetes metadata.
var fluentFormat = &format{
	Name: "fluent", Aliases: []string{"fluentbit", "fluentd", "vector"}, Kind: kindEnvelope,
	Doc:   "Fluent Bit / Fluentd / Vector records with Kubernetes metadata",
	match: func(r *record) bool { return r.hasAny("log", "message") && r.has("kubernetes") },
	expand: func(p *Parser, r *record, src model.Source) bool {
		expandFluent(p, r, src)
		return true
	},
	Samples: []sample{{
		Origin: "fixtures/exports/fluentbit.jsonl, Fluent Bit's kubernetes filter",
		Line: `{"date":1796030044.512,"log":"{\"time_iso8601\":\"2026-11-30T09:14:04+00:00\",\"msec\":\"1796030044.512\",\"remote_addr\":\"198.51.100.23\",` +
			`\"request_id\":\"14fe277217966d99b9a47cbebced2b9c\",\"http_x_request_id\":\"c9b2decb-ebc7-4a9b-99d6-69712772ef41\",` +
			`\"http_idempotency_key\":\"0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41\",\"request_method\":\"POST\",\"request_uri\":\"/v1/orders\",\"status\":\"499\",` +
			`\"body_bytes_sent\":\"0\",\"request_length\":\"612\",\"request_time\":\"2.398\",\"upstream_addr\":\"10.0.2.15:8080\",\"upstream_status\":\"201\",` +
			`\"upstream_response_time\":\"2.390\",\"http_user_agent\":\"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/537.36 (KHTML, like Gecko) ` +
			`Chrome/131.0 Safari/537.36\"}","stream":"stdout","kubernetes":{"pod_name":"ingress-nginx-controller-5d8b7c9f4-x2k8p","namespace_name":"ingress-nginx",` +
			`"container_name":"controller","labels":{"app":"ingress-nginx"},"host":"node-3"}}`,
		Want: model.Observation{Tier: model.TierProxy, Format: "nginx", Method: "POST", Route: "/v1/orders", UpstreamStatus: 201,
			Outcome: model.OutcomeClientClosed, RequestID: "c9b2decb-ebc7-4a9b-99d6-69712772ef41", Key: "0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41",
			Client: "198.51.100.23", Time: mustTime("2026-11-30T09:14:02.114Z"), Duration: 2_398_000_000,
			Labels: "kubernetes.container_name=controller,kubernetes.labels.app=ingress-nginx,kubernetes.namespace_name=ingress-nginx,kubernetes.pod_name=ingress-nginx-controller-5d8b7c9f4-x2k8p"},
	}},
}

func expandFluent(p *Parser, r *record, src model.Source) {
	labels := map[string]string{}
	k := r.get("kubernetes")
	for _, f := range []string{"container_name", "pod_name", "namespace_name"} {
		if v := k.Get(f).Str; v != "" {
			labels["kubernetes."+f] = capLen(v)
		}
	}
	labelsOf(k.Get("labels"), "kubernetes.labels.", labels)
	inner := r.get("log")
	if !inner.Exists() {
		inner = r.get("message")
	}
	p.unwrap(inner, labels, src, "fluent")
}
