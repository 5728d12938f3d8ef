package formats

import (
	"bytes"
	"sort"
	"strings"

	"github.com/idem-cli/idem/model"
	"github.com/tidwall/gjson"
)

// Log aggregators wrap each original line in an envelope of their own:
// Loki, Elasticsearch/OpenSearch, Google Cloud Logging, CloudWatch Logs,
// Docker's json-file driver, Fluent Bit/Vector/Fluentd, Datadog. An export
// mixes every tier in one file, so each envelope is unwrapped where it is
// found, its labels are kept, and the original line (a JSON object, a JSON
// string holding one, or text) is read as if it stood alone. The labels say
// which tier wrote the line when they name one (an ingress, a worker).
// Each envelope's own file says how it is recognised and unwrapped; this
// one holds what they share.

// unwrap reads an envelope's original line with its labels. inner is a
// JSON object, a JSON string holding one, or text.
func (p *Parser) unwrap(inner gjson.Result, labels map[string]string, src model.Source, format string) {
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

// entries expands a page whose entries are the array at path (a search
// API's answer), each read by entry.
func entries(path string, entry func(*Parser, gjson.Result, model.Source)) func(*Parser, *record, model.Source) {
	return func(p *Parser, r *record, src model.Source) {
		r.path(path).ForEach(func(_, e gjson.Result) bool {
			entry(p, e, src)
			return true
		})
	}
}

// whole expands a record that is one entry (an NDJSON export), read by entry.
func whole(entry func(*Parser, gjson.Result, model.Source)) func(*Parser, *record, model.Source) {
	return func(p *Parser, r *record, src model.Source) {
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

// labelTiers maps words found in label values to tiers: the default
// mapping, extended by the config's "tiers".
var labelTiers = []struct {
	word string
	tier model.Tier
}{
	{"ingress", model.TierProxy}, {"nginx", model.TierProxy}, {"envoy", model.TierProxy}, {"istio-proxy", model.TierProxy},
	{"haproxy", model.TierProxy}, {"caddy", model.TierProxy}, {"traefik", model.TierProxy}, {"load-balancer", model.TierProxy},
	{"http_load_balancer", model.TierProxy}, {"alb", model.TierProxy},
	{"temporal", model.TierWorker}, {"worker", model.TierWorker}, {"sidekiq", model.TierWorker}, {"celery", model.TierWorker},
	{"provider", model.TierProvider}, {"browser", model.TierClient},
}

// labelKeys are the labels that name what wrote a line, in the order they
// are trusted.
var labelKeys = []string{"tier", "app", "service", "service_name", "service.name", "kubernetes.labels.app",
	"kubernetes.labels.app.kubernetes.io/name", "kubernetes.container_name", "container_name", "container",
	"kubernetes.container.name", "container.name", "job", "logStreamName", "logGroupName", "resource.labels.container_name",
	"resource.labels.service_name", "resource.type", "source", "event.dataset", "_index"}

// labelTier sets o's tier from the envelope's labels, when they name one,
// unless the line said its own tier (idem's canonical schema).
func (p *Parser) labelTier(o *model.Observation, ownTier bool) {
	if len(p.labels) == 0 || ownTier {
		return
	}
	if o.Labels == "" {
		o.Labels = labelString(p.labels)
	} else {
		o.Labels = labelString(p.labels) + "," + o.Labels // the export's labels, then the line's own
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
		if t, err := model.ParseTier(v); err == nil {
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
