package formats

import "github.com/idem-cli/idem/model"

// pino's default JSON lines: level, time (ms), pid, hostname, msg.
var pinoFormat = &format{
	vocabulary: true,
	Name:       "pino", Kind: kindJSON, Tier: model.TierServer,
	Doc:     "pino application logs (Node.js)",
	match:   func(r *record) bool { return r.has("pid") && r.has("hostname") && r.has("time") && r.has("msg") },
	extract: extractApp,
	// time is epoch milliseconds.
	Samples: []sample{{
		Origin: "fixtures/formats/pino.jsonl",
		Line:   `{"level":30,"time":1705312200000,"pid":12345,"hostname":"mac","msg":"payment created","reqId":"pn-1","idempotencyKey":"k-pino-2","paymentId":"pay_1"}`,
		Want: model.Observation{Tier: model.TierServer, Format: "pino", RequestID: "pn-1", Key: "k-pino-2", ResultID: "pay_1",
			Effect: true, Message: "payment created", Time: mustTime("2024-01-15T09:50:00Z")},
	}, {
		Origin: "Fastify's pino output in a public repository's README (incoming request, with pino's req serializer)",
		Line: `{"level":30,"time":1772351443757,"pid":20,"hostname":"entrana","reqId":"req-1","req":{"method":"GET","url":"/v1/dates/2025","host":"0.0.0.0:3000",` +
			`"remoteAddress":"127.0.0.1","remotePort":39904},"msg":"incoming request"}`,
		Want: model.Observation{Tier: model.TierServer, Format: "pino", Method: "GET", Route: "/v1/dates/2025", RequestID: "req-1", Client: "127.0.0.1",
			Message: "incoming request", Time: mustTime("2026-03-01T07:50:43.757Z")},
	}, {
		Origin: "the same log, the request completed (responseTime in milliseconds)",
		Line: `{"level":30,"time":1772351443761,"pid":20,"hostname":"entrana","reqId":"req-1","res":{"statusCode":404},"responseTime":3.37149600032717,` +
			`"msg":"request completed"}`,
		Want: model.Observation{Tier: model.TierServer, Format: "pino", Status: 404, Outcome: model.OutcomeOK, RequestID: "req-1",
			Message: "request completed", Time: mustTime("2026-03-01T07:50:43.757628504Z"), Duration: 3_371_496},
	}},
}
