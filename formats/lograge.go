package formats

import (
	"time"

	"github.com/idem-cli/idem/trace"
)

// lograge's one line per Rails request (Ruby), in its JSON formatter:
// method, path, format, controller, action, status, duration, view and
// db, the times in milliseconds (Rails' "Completed 201 Created in
// 12ms"), plus what the application's custom_options add. The line is
// written when the request is done.
var logrageFormat = &Format{
	Name: "lograge", Kind: KindJSON, Tier: trace.TierServer,
	Doc: "lograge's Rails request lines (Ruby): method, path, controller, action, status, duration (ms)",
	match: func(r *record) bool {
		return r.has("controller") && r.has("action") && r.has("status") && r.hasAny("method", "path")
	},
	extract:   extractApp,
	durations: trace.Milliseconds,
	Samples: []Sample{{
		Origin: "Datadog documentation, Ruby on Rails log collection (lograge's JSON line, on one line)",
		Line: `{"timestamp":"2016-01-12T19:15:19.118829+01:00","level":"INFO","logger":"Rails","method":"GET","path":"/jobs/833552.json","format":"json",` +
			`"controller":"jobs","action":"show","status":200,"duration":58.33,"view":40.43,"db":15.26}`,
		Want: trace.Observation{Tier: trace.TierServer, Format: "lograge", Method: "GET", Route: "/jobs/833552.json", Status: 200,
			Outcome: trace.OutcomeOK, Time: mustTime("2016-01-12T18:15:19.060499Z"), Duration: 58_330 * time.Microsecond},
	}},
}
