package formats

import (
	"github.com/idem-cli/idem/trace"
	"github.com/tidwall/gjson"
)

// AWS CloudWatch Logs: aws logs filter-log-events answers (events[]) or
// one event per line.
var cloudwatchFormat = &Format{
	Name: "cloudwatch", Kind: KindEnvelope,
	Doc:   "AWS CloudWatch Logs (filter-log-events answers, events per line)",
	match: func(r *record) bool { return isEventsPage(r) || r.has("message") && r.has("logStreamName") },
	expand: func(p *Parser, r *record, src trace.Source) bool {
		if isEventsPage(r) {
			entries("events", (*Parser).cloudWatchEvent)(p, r, src)
		} else {
			whole((*Parser).cloudWatchEvent)(p, r, src)
		}
		return true
	},
}

// isEventsPage recognises a filter-log-events answer.
func isEventsPage(r *record) bool {
	return r.has("events") && r.hasAny("searchedLogStreams", "nextToken", "events") && len(r.keys) <= 4
}

func (p *Parser) cloudWatchEvent(ev gjson.Result, src trace.Source) {
	p.unwrap(ev.Get("message"), stringLabels(ev, "logStreamName", "logGroupName"), src, "cloudwatch")
}
