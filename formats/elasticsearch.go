package formats

import (
	"strings"

	"github.com/idem-cli/idem/model"
	"github.com/tidwall/gjson"
)

// Elasticsearch and OpenSearch: a search API's answer (hits.hits[]) or an
// NDJSON export of hits; ECS documents on their own.
var elasticsearchFormat = &format{
	Name: "elasticsearch", Aliases: []string{"opensearch"}, Kind: kindEnvelope,
	Doc:   "Elasticsearch/OpenSearch search answers and exported hits",
	match: func(r *record) bool { return isSearchPage(r) || r.has("_source") && r.hasAny("_index", "_id") },
	expand: func(p *Parser, r *record, src model.Source) bool {
		if isSearchPage(r) {
			entries("hits.hits", (*Parser).esHit)(p, r, src)
		} else {
			whole((*Parser).esHit)(p, r, src)
		}
		return true
	},
	Samples: []sample{{
		Origin: "fixtures/exports/elasticsearch-search.json, a _search answer cut to two hits",
		Line: `{"took":12,"timed_out":false,"_shards":{"total":2,"successful":2,"skipped":0,"failed":0},"hits":{"total":{"value":14,"relation":"eq"},` +
			`"max_score":null,"hits":[{"_index":".ds-logs-orders-api-default-2026.11.30-000001","_id":"b11cf7157e0a83ff14f3","_score":null,` +
			`"_source":{"@timestamp":"2026-11-30T09:14:02.118Z","message":"{\"time\":\"2026-11-30T09:14:02.118Z\",\"level\":\"INFO\",\"msg\":\"idempotency ` +
			`reservation\",\"request_id\":\"c9b2decb-ebc7-4a9b-99d6-69712772ef41\",\"route\":\"/v1/orders\",\"method\":\"POST\",` +
			`\"key_hash\":\"sha256:64a007e7bb1a1169\",\"decision\":\"new\",\"state\":\"in_progress\",` +
			`\"fingerprint\":\"sha256:0da6983d5be4c82203ac1bd602fa40926c7f8ce5c44253057c3d4618e3f7880e\"}","service":{"name":"orders-api"},` +
			`"log":{"file":{"path":"/var/log/containers/orders-api-7d9f6b8c5-qm2lz.log"}},"ecs":{"version":"8.11.0"}},"sort":[1796030042118]},` +
			`{"_index":".ds-logs-ingress-nginx-default-2026.11.30-000001","_id":"d0538d4f58884720e20f","_score":null,` +
			`"_source":{"@timestamp":"2026-11-30T09:14:04.512Z","message":"{\"time_iso8601\":\"2026-11-30T09:14:04+00:00\",\"msec\":\"1796030044.512\",` +
			`\"remote_addr\":\"198.51.100.23\",\"request_id\":\"14fe277217966d99b9a47cbebced2b9c\",\"http_x_request_id\":\"c9b2decb-ebc7-4a9b-99d6-69712772ef41\",` +
			`\"http_idempotency_key\":\"0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41\",\"request_method\":\"POST\",\"request_uri\":\"/v1/orders\",\"status\":\"499\",` +
			`\"body_bytes_sent\":\"0\",\"request_length\":\"612\",\"request_time\":\"2.398\",\"upstream_addr\":\"10.0.2.15:8080\",\"upstream_status\":\"201\",` +
			`\"upstream_response_time\":\"2.390\",\"http_user_agent\":\"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/537.36 (KHTML, like Gecko) ` +
			`Chrome/131.0 Safari/537.36\"}","service":{"name":"ingress-nginx"},` +
			`"log":{"file":{"path":"/var/log/containers/ingress-nginx-controller-5d8b7c9f4-x2k8p.log"}},"ecs":{"version":"8.11.0"}},"sort":[1796030044512]}]}}`,
		Count: 2,
		Want: model.Observation{Tier: model.TierServer, Format: "slog", Method: "POST", Route: "/v1/orders",
			RequestID: "c9b2decb-ebc7-4a9b-99d6-69712772ef41", KeyHash: "sha256:64a007e7bb1a1169", Decision: "new", State: "in_progress",
			Fingerprint: "sha256:0da6983d5be4c82203ac1bd602fa40926c7f8ce5c44253057c3d4618e3f7880e", Message: "idempotency reservation",
			Time:   mustTime("2026-11-30T09:14:02.118Z"),
			Labels: "_index=.ds-logs-orders-api-default-2026.11.30-000001,log.file.path=/var/log/containers/orders-api-7d9f6b8c5-qm2lz.log,service.name=orders-api"},
	}, {
		Origin: "fixtures/exports/elasticsearch-search.json, one hit exported on its own line",
		Line: `{"_index":".ds-logs-ingress-nginx-default-2026.11.30-000001","_id":"d0538d4f58884720e20f","_score":null,` +
			`"_source":{"@timestamp":"2026-11-30T09:14:04.512Z","message":"{\"time_iso8601\":\"2026-11-30T09:14:04+00:00\",\"msec\":\"1796030044.512\",` +
			`\"remote_addr\":\"198.51.100.23\",\"request_id\":\"14fe277217966d99b9a47cbebced2b9c\",\"http_x_request_id\":\"c9b2decb-ebc7-4a9b-99d6-69712772ef41\",` +
			`\"http_idempotency_key\":\"0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41\",\"request_method\":\"POST\",\"request_uri\":\"/v1/orders\",\"status\":\"499\",` +
			`\"body_bytes_sent\":\"0\",\"request_length\":\"612\",\"request_time\":\"2.398\",\"upstream_addr\":\"10.0.2.15:8080\",\"upstream_status\":\"201\",` +
			`\"upstream_response_time\":\"2.390\",\"http_user_agent\":\"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/537.36 (KHTML, like Gecko) ` +
			`Chrome/131.0 Safari/537.36\"}","service":{"name":"ingress-nginx"},` +
			`"log":{"file":{"path":"/var/log/containers/ingress-nginx-controller-5d8b7c9f4-x2k8p.log"}},"ecs":{"version":"8.11.0"}},"sort":[1796030044512]}`,
		Want: model.Observation{Tier: model.TierProxy, Format: "nginx", Method: "POST", Route: "/v1/orders", UpstreamStatus: 201,
			Outcome: model.OutcomeClientClosed, RequestID: "c9b2decb-ebc7-4a9b-99d6-69712772ef41", Key: "0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41",
			Client: "198.51.100.23", Time: mustTime("2026-11-30T09:14:02.114Z"), Duration: 2_398_000_000,
			Labels: "_index=.ds-logs-ingress-nginx-default-2026.11.30-000001,log.file.path=/var/log/containers/ingress-nginx-controller-5d8b7c9f4-x2k8p.log,service.name=ingress-nginx"},
	}},
}

// ecsFormat is an Elastic Common Schema document on its own (Filebeat's
// or an ECS logger's output).
var ecsFormat = &format{
	Name: "ecs", Kind: kindEnvelope,
	Doc: "Elastic Common Schema documents (Filebeat, ECS loggers)",
	match: func(r *record) bool {
		return r.has("@timestamp") && r.has("message") && r.hasAny("ecs", "service", "host", "log", "event")
	},
	expand: func(p *Parser, r *record, src model.Source) bool {
		whole(func(p *Parser, doc gjson.Result, src model.Source) { p.unwrapECS(doc, nil, src, "ecs") })(p, r, src)
		return true
	},
	Samples: []sample{{
		Origin: "fixtures/exports/elasticsearch.ndjson, an ECS document whose message is the slog line",
		Line: `{"@timestamp":"2026-11-30T09:14:02.118Z","message":"{\"time\":\"2026-11-30T09:14:02.118Z\",\"level\":\"INFO\",\"msg\":\"idempotency reservation\",` +
			`\"request_id\":\"c9b2decb-ebc7-4a9b-99d6-69712772ef41\",\"route\":\"/v1/orders\",\"method\":\"POST\",\"key_hash\":\"sha256:64a007e7bb1a1169\",` +
			`\"decision\":\"new\",\"state\":\"in_progress\",\"fingerprint\":\"sha256:0da6983d5be4c82203ac1bd602fa40926c7f8ce5c44253057c3d4618e3f7880e\"}",` +
			`"service":{"name":"orders-api"},"log":{"file":{"path":"/var/log/containers/orders-api-7d9f6b8c5-qm2lz.log"}},"ecs":{"version":"8.11.0"}}`,
		Want: model.Observation{Tier: model.TierServer, Format: "slog", Method: "POST", Route: "/v1/orders",
			RequestID: "c9b2decb-ebc7-4a9b-99d6-69712772ef41", KeyHash: "sha256:64a007e7bb1a1169", Decision: "new", State: "in_progress",
			Fingerprint: "sha256:0da6983d5be4c82203ac1bd602fa40926c7f8ce5c44253057c3d4618e3f7880e", Message: "idempotency reservation",
			Time:   mustTime("2026-11-30T09:14:02.118Z"),
			Labels: "log.file.path=/var/log/containers/orders-api-7d9f6b8c5-qm2lz.log,service.name=orders-api"},
	}},
}

// isSearchPage recognises a _search answer.
func isSearchPage(r *record) bool {
	return r.has("hits") && (r.has("took") || r.has("_shards") || len(r.keys) == 1)
}

func (p *Parser) esHit(hit gjson.Result, src model.Source) {
	p.unwrapECS(hit.Get("_source"), stringLabels(hit, "_index"), src, "elasticsearch")
}

// unwrapECS reads an Elastic Common Schema document: its message is the
// original line when it holds one; otherwise the document's own fields
// (http.request.method, url.path, ...) are the record.
func (p *Parser) unwrapECS(doc gjson.Result, labels map[string]string, src model.Source, format string) {
	if labels == nil {
		labels = map[string]string{}
	}
	for _, k := range []string{"service.name", "kubernetes.labels.app", "container.name", "kubernetes.container.name", "event.dataset", "log.file.path"} {
		if v := doc.Get(escapeDots(k)); v.Exists() && v.String() != "" {
			labels[k] = capLen(v.String())
		} else if v := doc.Get(k); v.Exists() && v.String() != "" {
			labels[k] = capLen(v.String())
		}
	}
	msg := doc.Get("message")
	if s := strings.TrimSpace(msg.Str); strings.HasPrefix(s, "{") || msg.IsObject() {
		p.unwrap(msg, labels, src, format)
		return
	}
	if doc.Get("http.request.method").Exists() || doc.Get("http\\.request\\.method").Exists() {
		// The document's own fields hold the request: read them with the
		// application aliases, not as an ECS envelope again.
		p.as = jsonFormat
		p.unwrap(doc, labels, src, format)
		p.as = nil
		return
	}
	p.unwrap(msg, labels, src, format)
}

func escapeDots(k string) string { return strings.ReplaceAll(k, ".", `\.`) }
