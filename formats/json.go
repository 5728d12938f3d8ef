package formats

import "github.com/idem-cli/idem/model"

// Any other JSON object: the application aliases are tried on it. It
// comes last and takes every object.
var jsonFormat = &Format{
	Name: "json", Kind: KindJSON, Tier: model.TierServer,
	Doc:     "any other JSON object, read with the application aliases",
	match:   func(r *record) bool { return true },
	extract: extractApp,
	// Lograge's duration is milliseconds (Rails' "Completed 200 OK in
	// 58ms").
	Samples: []Sample{{
		Origin: "Datadog documentation, Ruby on Rails log collection (lograge's JSON line, on one line)",
		Known:  "a float duration is read as seconds whatever the logger (lograge writes milliseconds), and the line, written when the request ended, is timed at its end",
		Line: `{"timestamp":"2016-01-12T19:15:19.118829+01:00","level":"INFO","logger":"Rails","method":"GET","path":"/jobs/833552.json","format":"json",` +
			`"controller":"jobs","action":"show","status":200,"duration":58.33,"view":40.43,"db":15.26}`,
		Want: model.Observation{Tier: model.TierServer, Format: "json", Method: "GET", Route: "/jobs/833552.json", Status: 200,
			Outcome: model.OutcomeOK, Time: mustTime("2016-01-12T18:15:19.060499Z"), Duration: 58_330_000},
	}},
}
