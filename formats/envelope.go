package formats

import (
	"bytes"
	"sort"
	"strings"

	"github.com/idem-cli/idem/trace"

	"github.com/tidwall/gjson"
)

// Log aggregators wrap each original line in an envelope of their own:
// Loki, Elasticsearch/OpenSearch, Google Cloud Logging, CloudWatch Logs,
// Docker's json-file driver, Fluent Bit/Vector/Fluentd, Datadog. An export
// mixes every tier in one file, so each envelope is unwrapped where it is
// found, its labels are kept, and the original line (a JSON object, a JSON
// string holding one, or text) is read as if it stood alone. The labels say
// which tier wrote the line when they name one (an ingress, a worker).

var envelopeFormats []*format

func init() {
	envelopeFormats = []*format{
		{name: "loki", match: func(r *record) bool {
			return r.has("line") && r.hasAny("labels", "stream", "timestamp", "fields", "tsNs")
		}, expand: expandLoki},
		{name: "elasticsearch", match: func(r *record) bool { return r.has("hits") && (r.has("took") || r.has("_shards") || len(r.keys) == 1) }, expand: entries("hits.hits", (*Parser).esHit)},
		{name: "elasticsearch", match: func(r *record) bool { return r.has("_source") && r.hasAny("_index", "_id") }, expand: whole((*Parser).esHit)},
		{name: "cloudwatch", match: func(r *record) bool {
			return r.has("events") && r.hasAny("searchedLogStreams", "nextToken", "events") && len(r.keys) <= 4
		}, expand: entries("events", (*Parser).cloudWatchEvent)},
		{name: "cloudwatch", match: func(r *record) bool { return r.has("message") && r.has("logStreamName") }, expand: whole((*Parser).cloudWatchEvent)},
		{name: "gcp", match: func(r *record) bool {
			return r.hasAny("jsonPayload", "textPayload", "httpRequest", "protoPayload") && r.hasAny("timestamp", "receiveTimestamp", "insertId")
		}, expand: expandGCP},
		{name: "datadog", match: func(r *record) bool {
			return r.has("attributes") && (r.hasAny("service", "host") || r.has("type") && r.has("id")) ||
				r.has("content") && r.has("id") && len(r.keys) <= 3
		}, expand: whole((*Parser).datadogLog)},
		{name: "datadog", match: func(r *record) bool { return r.has("data") && r.hasAny("meta", "links") && len(r.keys) <= 3 }, expand: entries("data", (*Parser).datadogLog)},
		{name: "fluent", match: func(r *record) bool { return r.hasAny("log", "message") && r.has("kubernetes") }, expand: expandFluent},
		{name: "docker", match: func(r *record) bool { return r.has("log") && r.has("stream") && r.has("time") && len(r.keys) <= 5 }, expand: expandDocker},
		{name: "ecs", match: func(r *record) bool {
			return r.has("@timestamp") && r.has("message") && r.hasAny("ecs", "service", "host", "log", "event")
		}, expand: whole(func(p *Parser, doc gjson.Result, src trace.Source) { p.unwrapECS(doc, nil, src, "ecs") })},
	}
	formats = append(append([]*format(nil), envelopeFormats...), formats...)
}

// unwrap reads an envelope's original line with its labels. inner is a
// JSON object, a JSON string holding one, or text.
func (p *Parser) unwrap(inner gjson.Result, labels map[string]string, src trace.Source, format string) {
	saved, savedLabels := p.rec, p.labels
	defer func() { p.rec, p.labels = saved, savedLabels }()
	p.labels = mergeLabels(savedLabels, labels)
	p.countFormat(format)
	p.rec = record{}
	switch {
	case inner.IsObject():
		p.rec.load(inner)
		p.parseRecord(src)
	case inner.Type == gjson.String:
		line := bytes.TrimSpace([]byte(inner.Str))
		switch {
		case len(line) == 0:
			p.out.Ignored++
		case line[0] == '{' && p.rec.scanObject(line):
			p.parseRecord(src)
		case p.parseText(line, src):
		default:
			// Text the patterns do not know: an application's plain
			// message. The envelope was sound, so it is not a bad line.
			p.out.Ignored++
		}
	default:
		p.out.Ignored++
	}
}

func mergeLabels(outer, inner map[string]string) map[string]string {
	if len(outer) == 0 {
		return inner
	}
	m := map[string]string{}
	for k, v := range outer {
		m[k] = v
	}
	for k, v := range inner {
		m[k] = v
	}
	return m
}

// labelsOf reads a flat object of labels.
func labelsOf(v gjson.Result, prefix string, into map[string]string) map[string]string {
	if into == nil {
		into = map[string]string{}
	}
	v.ForEach(func(k, x gjson.Result) bool {
		switch {
		case x.IsObject():
			if len(into) < 64 {
				labelsOf(x, prefix+k.Str+".", into)
			}
		case x.Type == gjson.String || x.Type == gjson.Number:
			if len(into) < 64 {
				into[prefix+k.Str] = capLen(x.String())
			}
		}
		return true
	})
	return into
}

// expandLoki reads logcli's jsonl lines and Grafana's "Download logs" JSON
// (an array of {line, timestamp, date, fields}); labels are in "labels",
// "stream" or, from Grafana, "fields".
func expandLoki(p *Parser, r *record, src trace.Source) {
	labels := labelsOf(r.get("labels"), "", nil)
	labelsOf(r.get("stream"), "", labels)
	labelsOf(r.get("fields"), "", labels)
	p.unwrap(r.get("line"), labels, src, "loki")
}

// entries expands a page whose entries are the array at path (a search
// API's answer), each read by entry.
func entries(path string, entry func(*Parser, gjson.Result, trace.Source)) func(*Parser, *record, trace.Source) {
	return func(p *Parser, r *record, src trace.Source) {
		r.path(path).ForEach(func(_, e gjson.Result) bool {
			entry(p, e, src)
			return true
		})
	}
}

// whole expands a record that is one entry (an NDJSON export), read by entry.
func whole(entry func(*Parser, gjson.Result, trace.Source)) func(*Parser, *record, trace.Source) {
	return func(p *Parser, r *record, src trace.Source) {
		entry(p, gjson.Parse(r.raw()), src)
	}
}

// stringLabels keeps the named string members of e as labels.
func stringLabels(e gjson.Result, keys ...string) map[string]string {
	labels := map[string]string{}
	for _, k := range keys {
		if v := e.Get(k).Str; v != "" {
			labels[k] = capLen(v)
		}
	}
	return labels
}

func (p *Parser) esHit(hit gjson.Result, src trace.Source) {
	p.unwrapECS(hit.Get("_source"), stringLabels(hit, "_index"), src, "elasticsearch")
}

// unwrapECS reads an Elastic Common Schema document: its message is the
// original line when it holds one; otherwise the document's own fields
// (http.request.method, url.path, ...) are the record.
func (p *Parser) unwrapECS(doc gjson.Result, labels map[string]string, src trace.Source, format string) {
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
		p.unwrap(doc, labels, src, format)
		return
	}
	p.unwrap(msg, labels, src, format)
}

func escapeDots(k string) string { return strings.ReplaceAll(k, ".", `\.`) }

func (p *Parser) cloudWatchEvent(ev gjson.Result, src trace.Source) {
	p.unwrap(ev.Get("message"), stringLabels(ev, "logStreamName", "logGroupName"), src, "cloudwatch")
}

func expandGCP(p *Parser, r *record, src trace.Source) {
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
func (p *Parser) gcpRequest(e gjson.Result, labels map[string]string, src trace.Source) {
	saved, savedLabels := p.rec, p.labels
	defer func() { p.rec, p.labels = saved, savedLabels }()
	p.labels = mergeLabels(savedLabels, labels)
	h := e.Get("httpRequest")
	var o trace.Observation
	o.Source, o.Format, o.Tier = src, "gcp", trace.TierProxy
	o.Duration, _ = trace.ParseDuration(h.Get("latency").String(), trace.Seconds)
	if t, ok := trace.ParseTime(e.Get("timestamp").String()); ok {
		o.Time = t.Add(-o.Duration)
	}
	o.Method = strings.ToUpper(h.Get("requestMethod").Str)
	o.Route = routePath(h.Get("requestUrl").Str)
	o.Client = h.Get("remoteIp").Str
	o.Status = int(h.Get("status").Int())
	payload := e.Get("jsonPayload")
	o.RequestID = firstString(payload, "requestId", "request_id", "x_request_id")
	if o.RequestID == "" {
		o.RequestID = e.Get("labels.request_id").Str
	}
	o.Key = trace.NormalizeKey(firstString(payload, "idempotencyKey", "idempotency_key"))
	details := payload.Get("statusDetails").Str
	o.Detail = details
	switch {
	case strings.HasPrefix(details, "client_disconnected"):
		o.Outcome, o.Status = trace.OutcomeClientClosed, 0
	case details == "backend_timeout":
		o.Outcome = trace.OutcomeUpstreamTimeout
	case strings.HasPrefix(details, "backend_connection_closed"):
		o.Outcome = trace.OutcomeUpstreamReset
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

func (p *Parser) datadogLog(e gjson.Result, src trace.Source) {
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

func expandFluent(p *Parser, r *record, src trace.Source) {
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

func expandDocker(p *Parser, r *record, src trace.Source) {
	labels := map[string]string{}
	for _, k := range []string{"container_name", "tag"} {
		if v := r.get(k).Str; v != "" {
			labels[k] = capLen(v)
		}
	}
	labelsOf(r.get("attrs"), "", labels)
	p.unwrap(r.get("log"), labels, src, "docker")
}

// labelTiers maps words found in label values to tiers: the default
// mapping, extended by the config's "tiers".
var labelTiers = []struct {
	word string
	tier trace.Tier
}{
	{"ingress", trace.TierProxy}, {"nginx", trace.TierProxy}, {"envoy", trace.TierProxy}, {"istio-proxy", trace.TierProxy},
	{"haproxy", trace.TierProxy}, {"caddy", trace.TierProxy}, {"traefik", trace.TierProxy}, {"load-balancer", trace.TierProxy},
	{"http_load_balancer", trace.TierProxy}, {"alb", trace.TierProxy},
	{"temporal", trace.TierWorker}, {"worker", trace.TierWorker}, {"sidekiq", trace.TierWorker}, {"celery", trace.TierWorker},
	{"provider", trace.TierProvider}, {"browser", trace.TierClient},
}

// labelKeys are the labels that name what wrote a line, in the order they
// are trusted.
var labelKeys = []string{"tier", "app", "service", "service_name", "service.name", "kubernetes.labels.app",
	"kubernetes.labels.app.kubernetes.io/name", "kubernetes.container_name", "container_name", "container",
	"kubernetes.container.name", "container.name", "job", "logStreamName", "logGroupName", "resource.labels.container_name",
	"resource.labels.service_name", "resource.type", "source", "event.dataset", "_index"}

// labelTier sets o's tier from the envelope's labels, when they name one,
// unless the line said its own tier (idem's canonical schema).
func (p *Parser) labelTier(o *trace.Observation, ownTier bool) {
	if len(p.labels) == 0 || ownTier {
		return
	}
	if o.Labels == "" {
		o.Labels = labelString(p.labels)
	}
	for _, k := range labelKeys {
		v := strings.ToLower(p.labels[k])
		if v == "" {
			continue
		}
		if p.cfg != nil {
			if t, ok := p.cfg.tierLabels[v]; ok {
				o.Tier = t
				return
			}
		}
		if t, err := trace.ParseTier(v); err == nil {
			o.Tier = t
			return
		}
		for _, lt := range labelTiers {
			if strings.Contains(v, lt.word) {
				o.Tier = lt.tier
				return
			}
		}
	}
}

// labelString writes labels as "k=v,k=v", sorted, bounded.
func labelString(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		if b.Len() > 400 {
			b.WriteString(",…")
			break
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(m[k])
	}
	return b.String()
}
