package formats

import (
	"github.com/idem-cli/idem/trace"
)

// Go's log/slog JSONHandler: time, level, msg first.
var slogFormat = &Format{
	Name: "slog", Kind: KindJSON, Tier: trace.TierServer,
	Doc:     "log/slog's JSONHandler (Go): time, level, msg",
	match:   func(r *record) bool { return r.has("time") && r.has("level") && r.has("msg") },
	extract: extractApp,
	// A time.Duration attribute is integer nanoseconds.
	Samples: []Sample{{
		Origin: "fixtures/formats/slog.jsonl",
		Line: `{"time":"2022-11-08T15:28:26.5-05:00","level":"INFO","msg":"request completed","request_id":"s-1","method":"POST","route":"/v1/orders","status":201,` +
			`"duration":153000000,"idempotency_key":"k-slog-1"}`,
		Want: trace.Observation{Tier: trace.TierServer, Format: "slog", Method: "POST", Route: "/v1/orders", Status: 201,
			Outcome: trace.OutcomeOK, RequestID: "s-1", Key: "k-slog-1", Message: "request completed",
			Time: mustTime("2022-11-08T20:28:26.5Z"), Duration: 153_000_000},
	}},
}
