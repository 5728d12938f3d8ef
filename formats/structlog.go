package formats

import (
	"github.com/idem-cli/idem/trace"
)

// structlog's JSONRenderer with TimeStamper: event, timestamp.
var structlogFormat = &Format{
	Name: "structlog", Kind: KindJSON, Tier: trace.TierServer,
	Doc:     "structlog JSON logs (Python): event, timestamp",
	match:   func(r *record) bool { return r.has("event") && r.has("timestamp") },
	extract: extractApp,
	Samples: []Sample{{
		Origin: "fixtures/formats/structlog.jsonl",
		Line:   `{"event":"ticket created","timestamp":"2024-03-01T10:00:00.123456Z","level":"info","request_id":"st-1","idempotency_key":"k-st","ticket_id":"t_1"}`,
		Want: trace.Observation{Tier: trace.TierServer, Format: "structlog", RequestID: "st-1", Key: "k-st", ResultID: "t_1",
			Effect: true, Message: "ticket created", Time: mustTime("2024-03-01T10:00:00.123456Z")},
	}},
}
