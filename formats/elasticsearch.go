package formats

import (
	"strings"

	"github.com/idem-cli/idem/trace"
	"github.com/tidwall/gjson"
)

// Elasticsearch and OpenSearch: a search API's answer (hits.hits[]) or an
// NDJSON export of hits; ECS documents on their own.
var elasticsearchFormat = &Format{
	Name: "elasticsearch", Aliases: []string{"opensearch"}, Kind: KindEnvelope,
	Doc:   "Elasticsearch/OpenSearch search answers and exported hits",
	match: func(r *record) bool { return isSearchPage(r) || r.has("_source") && r.hasAny("_index", "_id") },
	expand: func(p *Parser, r *record, src trace.Source) bool {
		if isSearchPage(r) {
			entries("hits.hits", (*Parser).esHit)(p, r, src)
		} else {
			whole((*Parser).esHit)(p, r, src)
		}
		return true
	},
}

// ecsFormat is an Elastic Common Schema document on its own (Filebeat's
// or an ECS logger's output).
var ecsFormat = &Format{
	Name: "ecs", Kind: KindEnvelope,
	Doc: "Elastic Common Schema documents (Filebeat, ECS loggers)",
	match: func(r *record) bool {
		return r.has("@timestamp") && r.has("message") && r.hasAny("ecs", "service", "host", "log", "event")
	},
	expand: func(p *Parser, r *record, src trace.Source) bool {
		whole(func(p *Parser, doc gjson.Result, src trace.Source) { p.unwrapECS(doc, nil, src, "ecs") })(p, r, src)
		return true
	},
}

// isSearchPage recognises a _search answer.
func isSearchPage(r *record) bool {
	return r.has("hits") && (r.has("took") || r.has("_shards") || len(r.keys) == 1)
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
