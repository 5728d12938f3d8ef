package formats

import "github.com/idem-cli/idem/model"

// Go's log/slog JSONHandler: time, level, msg first.
var slogFormat = &format{
	vocabulary: true,
	Name:       "slog", Kind: kindJSON, Tier: model.TierServer,
	Doc:     "log/slog's JSONHandler (Go): time, level, msg",
	match:   func(r *record) bool { return r.has("time") && r.has("level") && r.has("msg") },
	extract: extractApp,
	// A time.Duration attribute is integer nanoseconds.
	Samples: []sample{{
		Origin: "fixtures/formats/slog.jsonl",
		Line: `{"time":"2022-11-08T15:28:26.5-05:00","level":"INFO","msg":"request completed","request_id":"s-1","method":"POST","route":"/v1/orders","status":201,` +
			`"duration":153000000,"idempotency_key":"k-slog-1"}`,
		Want: model.Observation{Tier: model.TierServer, Format: "slog", Method: "POST", Route: "/v1/orders", Status: 201,
			Outcome: model.OutcomeOK, RequestID: "s-1", Key: "k-slog-1", Message: "request completed",
			Time: mustTime("2022-11-08T20:28:26.347Z"), Duration: 153_000_000},
	}, {
		Origin: "fixtures/exports/app.jsonl: an idempotency reservation",
		Line: `{"time":"2026-11-30T09:14:02.118Z","level":"INFO","msg":"idempotency reservation","request_id":"c9b2decb-ebc7-4a9b-99d6-69712772ef41",` +
			`"route":"/v1/orders","method":"POST","key_hash":"sha256:64a007e7bb1a1169","decision":"new","state":"in_progress",` +
			`"fingerprint":"sha256:0da6983d5be4c82203ac1bd602fa40926c7f8ce5c44253057c3d4618e3f7880e"}`,
		Want: model.Observation{Tier: model.TierServer, Format: "slog", Method: "POST", Route: "/v1/orders",
			RequestID: "c9b2decb-ebc7-4a9b-99d6-69712772ef41", KeyHash: "sha256:64a007e7bb1a1169", Decision: "new", State: "in_progress",
			Fingerprint: "sha256:0da6983d5be4c82203ac1bd602fa40926c7f8ce5c44253057c3d4618e3f7880e", Message: "idempotency reservation",
			Time: mustTime("2026-11-30T09:14:02.118Z")},
	}, {
		Origin: "a Go proxy's README (its slog JSONHandler access line; the duration a string with its unit)",
		Line:   `{"time":"2026-07-14T09:28:49Z","level":"INFO","msg":"request","method":"GET","path":"/get","status":200,"duration":"815ms","ip":"10.0.2.100"}`,
		Want: model.Observation{Tier: model.TierServer, Format: "slog", Method: "GET", Route: "/get", Status: 200, Outcome: model.OutcomeOK,
			Client: "10.0.2.100", Message: "request", Time: mustTime("2026-07-14T09:28:48.185Z"), Duration: 815_000_000},
	}, {
		Origin: "a Go handler logging net/http's error when the client had gone before the response was written",
		Line: `{"time":"2026-12-02T04:10:00.5Z","level":"ERROR","msg":"write response","request_id":"s-9","method":"POST","route":"/v1/orders",` +
			`"status":201,"err":"write tcp 127.0.0.1:8080->127.0.0.1:51234: write: broken pipe"}`,
		Want: model.Observation{Tier: model.TierServer, Format: "slog", Method: "POST", Route: "/v1/orders", Status: 201, Outcome: model.OutcomeReset,
			RequestID: "s-9", Message: "write response", Detail: "write tcp 127.0.0.1:8080->127.0.0.1:51234: write: broken pipe",
			Time: mustTime("2026-12-02T04:10:00.5Z")},
	}},
}
