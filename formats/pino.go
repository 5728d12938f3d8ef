package formats

import (
	"github.com/idem-cli/idem/trace"
)

// pino's default JSON lines: level, time (ms), pid, hostname, msg.
var pinoFormat = &Format{
	Name: "pino", Kind: KindJSON, Tier: trace.TierServer,
	Doc:     "pino application logs (Node.js)",
	match:   func(r *record) bool { return r.has("pid") && r.has("hostname") && r.has("time") && r.has("msg") },
	extract: extractApp,
	// time is epoch milliseconds.
	Samples: []Sample{{
		Origin: "fixtures/formats/pino.jsonl",
		Line:   `{"level":30,"time":1705312200000,"pid":12345,"hostname":"mac","msg":"payment created","reqId":"pn-1","idempotencyKey":"k-pino-2","paymentId":"pay_1"}`,
		Want: trace.Observation{Tier: trace.TierServer, Format: "pino", RequestID: "pn-1", Key: "k-pino-2", ResultID: "pay_1",
			Effect: true, Message: "payment created", Time: mustTime("2024-01-15T09:50:00Z")},
	}},
}
