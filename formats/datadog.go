package formats

import (
	"strings"

	"github.com/idem-cli/idem/model"
	"github.com/tidwall/gjson"
)

// Datadog's log exports: the Logs API's answer (data[]) or one log per
// line.
var datadogFormat = &format{
	Name: "datadog", Kind: kindEnvelope,
	Doc:   "Datadog log exports (Logs API answers, logs per line)",
	match: func(r *record) bool { return isDatadogLog(r) || isDatadogPage(r) },
	expand: func(p *Parser, r *record, src model.Source) bool {
		if isDatadogLog(r) {
			whole((*Parser).datadogLog)(p, r, src)
		} else {
			entries("data", (*Parser).datadogLog)(p, r, src)
		}
		return true
	},
	Samples: []sample{{
		Origin: "fixtures/exports/datadog.json, a Logs API (v2) answer cut to two logs",
		Line: `{"data":[{"attributes":{"attributes":{"time":"2026-11-30T09:14:02.118Z","level":"INFO","msg":"idempotency reservation",` +
			`"request_id":"c9b2decb-ebc7-4a9b-99d6-69712772ef41","route":"/v1/orders","method":"POST","key_hash":"sha256:64a007e7bb1a1169","decision":"new",` +
			`"state":"in_progress","fingerprint":"sha256:0da6983d5be4c82203ac1bd602fa40926c7f8ce5c44253057c3d4618e3f7880e"},"host":"node-3",` +
			`"message":"{\"time\":\"2026-11-30T09:14:02.118Z\",\"level\":\"INFO\",\"msg\":\"idempotency reservation\",` +
			`\"request_id\":\"c9b2decb-ebc7-4a9b-99d6-69712772ef41\",\"route\":\"/v1/orders\",\"method\":\"POST\",\"key_hash\":\"sha256:64a007e7bb1a1169\",` +
			`\"decision\":\"new\",\"state\":\"in_progress\",\"fingerprint\":\"sha256:0da6983d5be4c82203ac1bd602fa40926c7f8ce5c44253057c3d4618e3f7880e\"}",` +
			`"service":"orders-api","status":"info","tags":["env:prod","kube_namespace:shop"],"timestamp":"2026-11-30T09:14:02.118Z"},` +
			`"id":"AQAAAZb11cf7157e0a83ff","type":"log"},{"attributes":{"attributes":{"time_iso8601":"2026-11-30T09:14:04+00:00","msec":"1796030044.512",` +
			`"remote_addr":"198.51.100.23","request_id":"14fe277217966d99b9a47cbebced2b9c","http_x_request_id":"c9b2decb-ebc7-4a9b-99d6-69712772ef41",` +
			`"http_idempotency_key":"0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41","request_method":"POST","request_uri":"/v1/orders","status":"499","body_bytes_sent":"0",` +
			`"request_length":"612","request_time":"2.398","upstream_addr":"10.0.2.15:8080","upstream_status":"201","upstream_response_time":"2.390",` +
			`"http_user_agent":"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36"},"host":"node-3",` +
			`"message":"{\"time_iso8601\":\"2026-11-30T09:14:04+00:00\",\"msec\":\"1796030044.512\",\"remote_addr\":\"198.51.100.23\",` +
			`\"request_id\":\"14fe277217966d99b9a47cbebced2b9c\",\"http_x_request_id\":\"c9b2decb-ebc7-4a9b-99d6-69712772ef41\",` +
			`\"http_idempotency_key\":\"0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41\",\"request_method\":\"POST\",\"request_uri\":\"/v1/orders\",\"status\":\"499\",` +
			`\"body_bytes_sent\":\"0\",\"request_length\":\"612\",\"request_time\":\"2.398\",\"upstream_addr\":\"10.0.2.15:8080\",\"upstream_status\":\"201\",` +
			`\"upstream_response_time\":\"2.390\",\"http_user_agent\":\"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/537.36 (KHTML, like Gecko) ` +
			`Chrome/131.0 Safari/537.36\"}","service":"ingress-nginx","status":"info","tags":["env:prod","kube_namespace:ingress-nginx"],` +
			`"timestamp":"2026-11-30T09:14:04.512Z"},"id":"AQAAAZd0538d4f58884720","type":"log"}],"meta":{"page":{}}}`,
		Count: 2,
		Want: model.Observation{Tier: model.TierServer, Format: "slog", Method: "POST", Route: "/v1/orders",
			RequestID: "c9b2decb-ebc7-4a9b-99d6-69712772ef41", KeyHash: "sha256:64a007e7bb1a1169", Decision: "new", State: "in_progress",
			Fingerprint: "sha256:0da6983d5be4c82203ac1bd602fa40926c7f8ce5c44253057c3d4618e3f7880e", Message: "idempotency reservation",
			Time:   mustTime("2026-11-30T09:14:02.118Z"),
			Labels: "env=prod,host=node-3,kube_namespace=shop,service=orders-api"},
	}, {
		Origin: "fixtures/exports/datadog.json, one log on its own line: the effect",
		Line: `{"attributes":{"attributes":{"time":"2026-11-30T09:14:04.490Z","level":"INFO","msg":"order created",` +
			`"request_id":"c9b2decb-ebc7-4a9b-99d6-69712772ef41","key_hash":"sha256:64a007e7bb1a1169","order_id":"ord_8H2kQ","effect":true},"host":"node-3",` +
			`"message":"{\"time\":\"2026-11-30T09:14:04.490Z\",\"level\":\"INFO\",\"msg\":\"order created\",` +
			`\"request_id\":\"c9b2decb-ebc7-4a9b-99d6-69712772ef41\",\"key_hash\":\"sha256:64a007e7bb1a1169\",\"order_id\":\"ord_8H2kQ\",\"effect\":true}",` +
			`"service":"orders-api","status":"info","tags":["env:prod","kube_namespace:shop"],"timestamp":"2026-11-30T09:14:04.490Z"},` +
			`"id":"AQAAAZd8f6a5751ed17d4f","type":"log"}`,
		Want: model.Observation{Tier: model.TierServer, Format: "slog", RequestID: "c9b2decb-ebc7-4a9b-99d6-69712772ef41",
			KeyHash: "sha256:64a007e7bb1a1169", ResultID: "ord_8H2kQ", Effect: true, Message: "order created",
			Time: mustTime("2026-11-30T09:14:04.49Z"), Labels: "env=prod,host=node-3,kube_namespace=shop,service=orders-api"},
	}},
}

func isDatadogLog(r *record) bool {
	return r.has("attributes") && (r.hasAny("service", "host") || r.has("type") && r.has("id")) ||
		r.has("content") && r.has("id") && len(r.keys) <= 3
}

func isDatadogPage(r *record) bool {
	return r.has("data") && r.hasAny("meta", "links") && len(r.keys) <= 3
}

func (p *Parser) datadogLog(e gjson.Result, src model.Source) {
	switch {
	case e.Get("content").IsObject():
		e = e.Get("content") // v1 API: {id, content}
	case e.Get("type").Str == "log" && e.Get("attributes").IsObject():
		e = e.Get("attributes") // v2 API: {id, type, attributes}
	}
	labels := stringLabels(e, "service", "host", "source")
	e.Get("tags").ForEach(func(_, t gjson.Result) bool {
		if k, v, ok := strings.Cut(t.Str, ":"); ok && len(labels) < 64 {
			labels[k] = capLen(v)
		}
		return true
	})
	attrs := e.Get("attributes")
	if a := attrs.Get("attributes"); a.IsObject() {
		attrs = a
	}
	msg := e.Get("message")
	if !msg.Exists() {
		msg = attrs.Get("message")
	}
	if s := strings.TrimSpace(msg.Str); strings.HasPrefix(s, "{") {
		p.unwrap(msg, labels, src, "datadog")
		return
	}
	if attrs.IsObject() {
		p.unwrap(attrs, labels, src, "datadog")
		return
	}
	p.unwrap(msg, labels, src, "datadog")
}
