package formats

import (
	"github.com/idem-cli/idem/trace"
)

// Docker's json-file logging driver: {"log": …, "stream": …, "time": …}.
var dockerFormat = &Format{
	Name: "docker", Kind: KindEnvelope,
	Doc:   "Docker json-file driver lines",
	match: func(r *record) bool { return r.has("log") && r.has("stream") && r.has("time") && len(r.keys) <= 5 },
	expand: func(p *Parser, r *record, src trace.Source) bool {
		expandDocker(p, r, src)
		return true
	},
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
