package formats

import "github.com/idem-cli/idem/model"

// zap's production encoder: ts (float seconds), level, msg.
var zapFormat = &format{
	vocabulary: true,
	Name:       "zap", Kind: kindJSON, Tier: model.TierServer,
	Doc:     "zap JSON logs (Go): ts, level, msg",
	match:   func(r *record) bool { return r.has("ts") && r.has("msg") && r.has("level") },
	extract: extractApp,
	// ts is epoch seconds (a float, e-notation in older zap); a
	// zap.Duration is float seconds.
	Samples: []sample{{
		Origin: "fixtures/formats/zap.jsonl: the production encoder",
		Line: `{"level":"info","ts":1700000000.123456,"caller":"pkg/file.go:42","msg":"order created","request_id":"z-1","idempotency_key":"k-zap-1",` +
			`"order_id":"ord_9","duration":0.25}`,
		Want: model.Observation{Tier: model.TierServer, Format: "zap", RequestID: "z-1", Key: "k-zap-1", ResultID: "ord_9",
			Effect: true, Message: "order created", Time: mustTime("2023-11-14T22:13:20.123456Z"), Duration: 250_000_000},
	}, {
		Origin: "fixtures/formats/zap.jsonl: older zap's e-notation ts",
		Known:  "e-notation epoch seconds are read through a float64: 1.572161051846623e+09 comes out 57ns early",
		Line: `{"level":"info","ts":1.572161051846623e+09,"caller":"pkg/file.go:43","msg":"request finished","request_id":"z-1","method":"POST","route":"/v1/orders",` +
			`"status":201}`,
		Want: model.Observation{Tier: model.TierServer, Format: "zap", Method: "POST", Route: "/v1/orders", Status: 201,
			Outcome: model.OutcomeOK, RequestID: "z-1", Message: "request finished", Time: mustTime("2019-10-27T07:24:11.846623Z")},
	}, {
		Origin: "a Go framework's logging documentation (zap with the ISO 8601 time encoder)",
		Line:   `{"level":"info","ts":"2024-05-30T09:43:19.89399056+07:00","caller":"cmd/main.go:56","msg":"Hello, World!","request_id":"0007d2f7-a767-43cf-ae48-9b2f9d3c099f"}`,
		Want: model.Observation{Tier: model.TierServer, Format: "zap", RequestID: "0007d2f7-a767-43cf-ae48-9b2f9d3c099f", Message: "Hello, World!",
			Time: mustTime("2024-05-30T02:43:19.89399056Z")},
	}},
}
