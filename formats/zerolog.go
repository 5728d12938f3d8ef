package formats

import "github.com/idem-cli/idem/model"

// zerolog's default field names: time, level, message.
var zerologFormat = &format{
	vocabulary: true,
	Name:       "zerolog", Kind: kindJSON, Tier: model.TierServer,
	Doc: "zerolog JSON logs (Go): time, level, message",
	match: func(r *record) bool {
		return r.has("message") && r.has("level") && r.has("time") || r.has("level") && r.has("time") && !r.hasAny("msg", "message", "event", "tier")
	},
	extract: extractApp,
	// zerolog's Dur fields and hlog.AccessHandler's duration are
	// milliseconds unless zerolog.DurationFieldUnit says otherwise.
	durations: model.Milliseconds,
	Samples: []sample{{
		Origin: "fixtures/formats/zerolog.jsonl",
		Line:   `{"level":"info","time":"2023-07-18T13:44:17Z","message":"charge captured","requestId":"zl-1","chargeId":"ch_1","Idempotency-Key":"k-zl"}`,
		Want: model.Observation{Tier: model.TierServer, Format: "zerolog", RequestID: "zl-1", Key: "k-zl", ResultID: "ch_1",
			Effect: true, Message: "charge captured", Time: mustTime("2023-07-18T13:44:17Z")},
	}, {
		Origin: "zerolog README, hlog (the request id handler's output)",
		Line: `{"level":"info","time":"2001-02-03T04:05:06Z","role":"my-service","host":"local-hostname","req_id":"b4g0l5t6tfid6dtrapu0","user":"current user",` +
			`"status":"ok","message":"Something happened"}`,
		Want: model.Observation{Tier: model.TierServer, Format: "zerolog", RequestID: "b4g0l5t6tfid6dtrapu0",
			Message: "Something happened", Time: mustTime("2001-02-03T04:05:06Z")},
	}},
}
