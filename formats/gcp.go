package formats

import (
	"strings"

	"github.com/idem-cli/idem/model"
	"github.com/tidwall/gjson"
)

// Google Cloud Logging entries (gcloud logging read --format json, or a
// sink's export): jsonPayload, textPayload or httpRequest.
var gcpFormat = &format{
	Name: "gcp", Aliases: []string{"gcloud", "stackdriver"}, Kind: kindEnvelope,
	Doc: "Google Cloud Logging entries (jsonPayload, textPayload, httpRequest)",
	match: func(r *record) bool {
		return r.hasAny("jsonPayload", "textPayload", "httpRequest", "protoPayload") && r.hasAny("timestamp", "receiveTimestamp", "insertId")
	},
	expand: func(p *Parser, r *record, src model.Source) bool {
		expandGCP(p, r, src)
		return true
	},
	Samples: []sample{{
		Origin: "fixtures/exports/gcloud.json, one entry of gcloud logging read --format json",
		Line: `{"insertId":"b11cf7157e0a83","jsonPayload":{"time":"2026-11-30T09:14:02.118Z","level":"INFO","msg":"idempotency reservation",` +
			`"request_id":"c9b2decb-ebc7-4a9b-99d6-69712772ef41","route":"/v1/orders","method":"POST","key_hash":"sha256:64a007e7bb1a1169","decision":"new",` +
			`"state":"in_progress","fingerprint":"sha256:0da6983d5be4c82203ac1bd602fa40926c7f8ce5c44253057c3d4618e3f7880e"},"labels":{"k8s-pod/app":"orders-api"},` +
			`"logName":"projects/shop-prod/logs/stdout","receiveTimestamp":"2026-11-30T09:14:02.118000Z","resource":{"labels":{"cluster_name":"prod",` +
			`"container_name":"orders-api","location":"europe-west1","namespace_name":"shop","pod_name":"orders-api-7d9f6b8c5-qm2lz","project_id":"shop-prod"},` +
			`"type":"k8s_container"},"severity":"INFO","timestamp":"2026-11-30T09:14:02.118000Z"}`,
		Want: model.Observation{Tier: model.TierServer, Format: "slog", Method: "POST", Route: "/v1/orders",
			RequestID: "c9b2decb-ebc7-4a9b-99d6-69712772ef41", KeyHash: "sha256:64a007e7bb1a1169", Decision: "new", State: "in_progress",
			Fingerprint: "sha256:0da6983d5be4c82203ac1bd602fa40926c7f8ce5c44253057c3d4618e3f7880e", Message: "idempotency reservation",
			Time: mustTime("2026-11-30T09:14:02.118Z")},
	}, {
		// timestamp is taken as when the load balancer answered, so the
		// request started latency before it.
		Origin: "gcloud logging read --format=json output quoted in a public repository: an external Application Load Balancer's 404",
		Line: `{"httpRequest":{"latency":"0.001511s","protocol":"HTTP/1.1","remoteIp":"185.177.72.30","requestMethod":"GET","requestSize":"371",` +
			`"requestUrl":"http://34.36.36.220/api/upload","responseSize":"144","status":404,"userAgent":"curl/8.7.1"},"insertId":"qyd7r1fe9hba2",` +
			`"jsonPayload":{"@type":"type.googleapis.com/google.cloud.loadbalancing.type.LoadBalancerLogEntry","backendTargetProjectNumber":"projects/88462385724",` +
			`"cacheDecision":["RESPONSE_HAS_CONTENT_TYPE","CACHE_MODE_USE_ORIGIN_HEADERS"],"remoteIp":"185.177.72.30"},` +
			`"logName":"projects/kd-ix-eur-dev-gke/logs/requests","receiveTimestamp":"2026-02-20T05:39:55.082969568Z",` +
			`"resource":{"labels":{"backend_service_name":"gkegw1-ta92-backstage-gw-serve404-80-xpo9ll5bm0fx",` +
			`"forwarding_rule_name":"gkegw1-ta92-backstage-backstage-dev-gateway-2100c95kykl4","project_id":"kd-ix-eur-dev-gke",` +
			`"target_proxy_name":"gkegw1-ta92-backstage-backstage-dev-gateway-sulvx5smiwt6",` +
			`"url_map_name":"gkegw1-ta92-backstage-backstage-dev-gateway-sulvx5smiwt6","zone":"global"},"type":"http_load_balancer"},"severity":"WARNING",` +
			`"spanId":"c1487ef38e268f02","timestamp":"2026-02-20T05:39:54.549693Z","trace":"projects/kd-ix-eur-dev-gke/traces/2d896f99c8857caa08c77f0d61954778"}`,
		Want: model.Observation{Tier: model.TierProxy, Format: "gcp", Method: "GET", Route: "/api/upload", Status: 404, Outcome: model.OutcomeOK,
			RequestID: "trace:2d896f99c8857caa08c77f0d61954778", Client: "185.177.72.30", Time: mustTime("2026-02-20T05:39:54.548182Z"), Duration: 1_511_000},
	}},
}

func expandGCP(p *Parser, r *record, src model.Source) {
	e := gjson.Parse(r.raw())
	labels := labelsOf(e.Get("labels"), "", nil)
	labelsOf(e.Get("resource.labels"), "resource.", labels)
	if t := e.Get("resource.type").Str; t != "" {
		labels["resource.type"] = t
	}
	switch {
	case e.Get("jsonPayload").IsObject() && !e.Get("httpRequest").Exists():
		p.unwrap(e.Get("jsonPayload"), labels, src, "gcp")
	case e.Get("httpRequest").Exists():
		// A load balancer's (or a serverless front end's) own request log.
		p.gcpRequest(e, labels, src)
	default:
		p.unwrap(e.Get("textPayload"), labels, src, "gcp")
	}
}

// gcpRequest maps LogEntry.httpRequest: a proxy tier observation.
func (p *Parser) gcpRequest(e gjson.Result, labels map[string]string, src model.Source) {
	saved, savedLabels := p.rec, p.labels
	defer func() { p.rec, p.labels = saved, savedLabels }()
	p.labels = mergeLabels(savedLabels, labels)
	h := e.Get("httpRequest")
	var o model.Observation
	o.Source, o.Format, o.Tier = src, "gcp", model.TierProxy
	o.Duration, _ = model.ParseDuration(h.Get("latency").String(), model.Seconds)
	if t, ok := model.ParseTime(e.Get("timestamp").String()); ok {
		o.Time = t.Add(-o.Duration)
	}
	o.Method = httpMethod(h.Get("requestMethod").Str)
	o.Route = routePath(h.Get("requestUrl").Str)
	o.Client = h.Get("remoteIp").Str
	o.Status = int(h.Get("status").Int())
	payload := e.Get("jsonPayload")
	o.RequestID = firstString(payload, "requestId", "request_id", "x_request_id")
	if o.RequestID == "" {
		o.RequestID = e.Get("labels.request_id").Str
	}
	if o.RequestID == "" {
		// The load balancer's own trace of the request
		// (projects/P/traces/ID): it names the delivery, and the
		// application's entries of the same request carry it too.
		o.RequestID = traceDelivery(e.Get("trace").Str)
	}
	o.Key = model.NormalizeKey(firstString(payload, "idempotencyKey", "idempotency_key"))
	details := payload.Get("statusDetails").Str
	o.Detail = details
	switch {
	case strings.HasPrefix(details, "client_disconnected"):
		o.Outcome, o.Status = model.OutcomeClientClosed, 0
	case details == "backend_timeout":
		o.Outcome = model.OutcomeUpstreamTimeout
	case strings.HasPrefix(details, "backend_connection_closed"):
		o.Outcome = model.OutcomeUpstreamReset
	default:
		o.Outcome = proxyOutcome(o.Status)
	}
	p.labelTier(&o, false)
	if o.Method == "" {
		p.out.Ignored++
		return
	}
	p.emit(&o)
}

func firstString(v gjson.Result, keys ...string) string {
	for _, k := range keys {
		if s := v.Get(k).String(); s != "" {
			return s
		}
	}
	return ""
}
