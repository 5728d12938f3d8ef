package formats

import (
	"strings"
	"time"

	"github.com/idem-cli/idem/model"
)

// lograge's one line per Rails request (Ruby), in its JSON formatter:
// method, path, format, controller, action, status, duration, view and
// db, the times in milliseconds (Rails' "Completed 201 Created in
// 12ms"), plus what the application's custom_options add. The line is
// written when the request is done.
var logrageFormat = &format{
	vocabulary: true,
	Name:       "lograge", Kind: kindJSON, Tier: model.TierServer,
	Doc: "lograge's Rails request lines (Ruby): method, path, controller, action, status, duration (ms)",
	match: func(r *record) bool {
		return r.has("controller") && r.has("action") && r.has("status") && r.hasAny("method", "path")
	},
	extract:   extractApp,
	durations: model.Milliseconds,
	Samples: []sample{{
		Origin: "Datadog documentation, Ruby on Rails log collection (lograge's JSON line, on one line)",
		Line: `{"timestamp":"2016-01-12T19:15:19.118829+01:00","level":"INFO","logger":"Rails","method":"GET","path":"/jobs/833552.json","format":"json",` +
			`"controller":"jobs","action":"show","status":200,"duration":58.33,"view":40.43,"db":15.26}`,
		Want: model.Observation{Tier: model.TierServer, Format: "lograge", Method: "GET", Route: "/jobs/833552.json", Status: 200,
			Outcome: model.OutcomeOK, Time: mustTime("2016-01-12T18:15:19.060499Z"), Duration: 58_330 * time.Microsecond},
	}},
}

// lograge's default KeyValue formatter writes the same fields as
// key=value pairs on one line ("method=POST path=/v1/orders format=json
// controller=OrdersController action=create status=201 duration=12.34
// view=0.00 db=1.23"), after what Rails' logger puts before it: its
// "I, [2026-12-02T04:14:33.247636 #123]  INFO -- : " prefix, and the
// tags of config.log_tags in brackets ("[req-…] ", the request id first
// where it is tagged).
var logrageTextFormat = &format{
	Name: "lograge-kv", Kind: kindText, Tier: model.TierServer,
	Doc:  "lograge's key=value Rails request lines (Ruby), after Rails' logger prefix and log tags",
	text: readLogrageKV,
	Samples: []sample{{
		Origin: "lograge's README (its KeyValue example line), behind Rails' default logger prefix and a request_id log tag",
		Line: `I, [2026-12-02T04:14:33.247636 #4242]  INFO -- : [5f8a2c1e-0b7d-4d8e-9a61-3c2b1d0e9f87] method=GET path=/jobs/833552.json ` +
			`format=json controller=JobsController action=show status=200 duration=58.33 view=40.43 db=15.26`,
		Want: model.Observation{Tier: model.TierServer, Format: "lograge-kv", Method: "GET", Route: "/jobs/833552.json", Status: 200,
			Outcome: model.OutcomeOK, RequestID: "5f8a2c1e-0b7d-4d8e-9a61-3c2b1d0e9f87",
			Time: mustTime("2026-12-02T04:14:33.189306Z"), Duration: 58_330 * time.Microsecond},
	}},
}

// readLogrageKV reads a lograge key=value line.
func readLogrageKV(p *Parser, line string, src model.Source) bool {
	i := strings.Index(line, "method=")
	if i < 0 || !strings.Contains(line[i:], " status=") || !strings.Contains(line[i:], " controller=") {
		return false
	}
	var o model.Observation
	o.Source, o.Format, o.Tier = src, "lograge-kv", model.TierServer
	prefix := line[:i]
	if a, b := strings.Index(prefix, "["), strings.Index(prefix, " #"); a >= 0 && b > a {
		o.Time, _ = model.ParseTime(prefix[a+1 : b])
	}
	if j := strings.LastIndex(prefix, "-- : "); j >= 0 {
		prefix = prefix[j+len("-- : "):]
	}
	if strings.HasPrefix(prefix, "[") {
		if j := strings.Index(prefix, "]"); j > 1 && taggedID(prefix[1:j]) {
			o.RequestID = prefix[1:j]
		}
	}
	for _, kv := range strings.Fields(line[i:]) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		switch k {
		case "method":
			o.Method = httpMethod(v)
		case "path":
			o.Route = routePath(v)
		case "status":
			o.Status, _ = intValue(v)
		case "duration":
			o.Duration, _ = model.ParseDuration(v, model.Milliseconds)
		case "request_id":
			o.RequestID = v
		case "idempotency_key":
			o.Key = model.NormalizeKey(v)
		}
	}
	if o.Status > 0 {
		o.Outcome = model.OutcomeOK
	}
	if !o.Time.IsZero() && o.Duration > 0 {
		o.Time = o.Time.Add(-o.Duration) // written when the request was done
	}
	p.textDone(&o)
	return true
}
