package formats

import (
	"github.com/idem-cli/idem/trace"
)

// Fluent Bit, Fluentd and Vector records with Kubernetes metadata.
var fluentFormat = &Format{
	Name: "fluent", Aliases: []string{"fluentbit", "fluentd", "vector"}, Kind: KindEnvelope,
	Doc:   "Fluent Bit / Fluentd / Vector records with Kubernetes metadata",
	match: func(r *record) bool { return r.hasAny("log", "message") && r.has("kubernetes") },
	expand: func(p *Parser, r *record, src trace.Source) bool {
		expandFluent(p, r, src)
		return true
	},
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
