package formats

import "github.com/idem-cli/idem/model"

// structlog's JSONRenderer with TimeStamper: event, timestamp.
var structlogFormat = &format{
	vocabulary: true,
	Name:       "structlog", Kind: kindJSON, Tier: model.TierServer,
	Doc:     "structlog JSON logs (Python): event, timestamp",
	match:   func(r *record) bool { return r.has("event") && r.has("timestamp") },
	extract: extractApp,
	Samples: []sample{{
		Origin: "fixtures/formats/structlog.jsonl",
		Line:   `{"event":"ticket created","timestamp":"2024-03-01T10:00:00.123456Z","level":"info","request_id":"st-1","idempotency_key":"k-st","ticket_id":"t_1"}`,
		Want: model.Observation{Tier: model.TierServer, Format: "structlog", RequestID: "st-1", Key: "k-st", ResultID: "t_1",
			Effect: true, Message: "ticket created", Time: mustTime("2024-03-01T10:00:00.123456Z")},
	}, {
		Origin: "a FastAPI service's structlog JSONRenderer output quoted in a public repository (request_started)",
		Line: `{"request_id": "b85ef8a41c3d4a0eaa36851e8cfb0db2", "method": "GET", "path": "/api/plans/fc5fa4c3-779f-4f67-ac67-67cb34325f70", "client_ip": ` +
			`"127.0.0.1", "event": "request_started", "level": "info", "timestamp": "2026-07-15T14:35:28.864747Z"}`,
		Want: model.Observation{Tier: model.TierServer, Format: "structlog", Method: "GET", Route: "/api/plans/fc5fa4c3-779f-4f67-ac67-67cb34325f70",
			RequestID: "b85ef8a41c3d4a0eaa36851e8cfb0db2", Client: "127.0.0.1", Message: "request_started",
			Time: mustTime("2026-07-15T14:35:28.864747Z")},
	}, {
		Origin: "the same log, request_finished (duration_ms a float)",
		Line: `{"request_id": "b85ef8a41c3d4a0eaa36851e8cfb0db2", "status_code": 200, "duration_ms": 1.75, "event": "request_finished", "level": "info", ` +
			`"timestamp": "2026-07-15T14:35:28.866478Z"}`,
		Want: model.Observation{Tier: model.TierServer, Format: "structlog", Status: 200, Outcome: model.OutcomeOK, RequestID: "b85ef8a41c3d4a0eaa36851e8cfb0db2",
			Message: "request_finished", Time: mustTime("2026-07-15T14:35:28.864728Z"), Duration: 1_750_000},
	}, {
		Origin: "a Python service's structlog line for the exception its server raised writing to a closed socket",
		Line:   `{"request_id": "st-9", "event": "response not sent", "exc_info": "BrokenPipeError: [Errno 32] Broken pipe", "level": "error", "timestamp": "2026-12-02T04:10:01Z"}`,
		Want: model.Observation{Tier: model.TierServer, Format: "structlog", Outcome: model.OutcomeReset, RequestID: "st-9", Message: "response not sent",
			Detail: "BrokenPipeError: [Errno 32] Broken pipe", Time: mustTime("2026-12-02T04:10:01Z")},
	}},
}
