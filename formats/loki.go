package formats

import (
	"github.com/idem-cli/idem/trace"
)

// Grafana Loki's exports: logcli --output jsonl and Grafana's "download
// logs" (an array of {line, timestamp, date, fields}).
var lokiFormat = &Format{
	Name: "loki", Kind: KindEnvelope,
	Doc: "Grafana Loki exports (logcli jsonl, Grafana downloads)",
	match: func(r *record) bool {
		return r.has("line") && r.hasAny("labels", "stream", "timestamp", "fields", "tsNs")
	},
	expand: func(p *Parser, r *record, src trace.Source) bool {
		expandLoki(p, r, src)
		return true
	},
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
