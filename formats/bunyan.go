package formats

import (
	"time"

	"github.com/idem-cli/idem/model"
)

// bunyan's JSON lines (Node.js): v (0), name, hostname, pid, level, msg
// and time (ISO 8601, when the line was written) on every line; a child
// logger's fields beside them (restify's req_id on each request's lines).
// restify's audit logger writes one line per request when it has been
// answered, its req and res serialized and latency in milliseconds.
// Everything else a line says is read by the vocabulary: bunyan's own
// names (req_id, req, res) are no pino-http's, which it resembles.
var bunyanFormat = &format{
	vocabulary: true,
	Name:       "bunyan", Kind: kindJSON, Tier: model.TierServer,
	Doc: "bunyan JSON logs (Node.js, restify's audit logger): name, hostname, pid, req_id, latency (ms)",
	match: func(r *record) bool {
		return r.has("v") && r.has("name") && r.has("hostname") && r.has("pid") && r.has("msg") && r.has("time")
	},
	extract:   extractApp,
	durations: model.Milliseconds,
	Samples: []sample{{
		Origin: "restify 11 with bunyan 1.8 (restify.plugins.auditLogger), captured on this machine",
		Line: `{"name":"audit","hostname":"vm","pid":7950,"req_id":"66cb3dbb-83fb-4979-9920-a90c0b72c658","audit":true,"component":"after","level":30,` +
			`"remoteAddress":"127.0.0.1","remotePort":47684,"req":{"method":"POST","url":"/v1/orders","headers":{"host":"127.0.0.1:33687",` +
			`"content-type":"application/json","x-request-id":"rq-1","idempotency-key":"k1","content-length":"11"},"remoteAddress":"127.0.0.1",` +
			`"remotePort":47684},"res":{"statusCode":201,"header":"HTTP/1.1 201 Created\r\nServer: orders\r\nContent-Type: application/json\r\n\r\n"},` +
			`"latency":14,"_audit":true,"event":"after","msg":"handled: 201","time":"2026-12-02T03:49:06.347Z","v":0}`,
		Want: model.Observation{Tier: model.TierServer, Format: "bunyan", Method: "POST", Route: "/v1/orders", Status: 201, Outcome: model.OutcomeOK,
			RequestID: "66cb3dbb-83fb-4979-9920-a90c0b72c658", Key: "k1", Client: "127.0.0.1", Message: "handled: 201",
			Time: mustTime("2026-12-02T03:49:06.333Z"), Duration: 14 * time.Millisecond},
	}, {
		Origin: "the same service's request logger (req.log, a child with req_id)",
		Line:   `{"name":"orders","hostname":"vm","pid":7950,"req_id":"66cb3dbb-83fb-4979-9920-a90c0b72c658","level":30,"order_id":"o1","msg":"order created","time":"2026-12-02T03:49:06.337Z","v":0}`,
		Want: model.Observation{Tier: model.TierServer, Format: "bunyan", RequestID: "66cb3dbb-83fb-4979-9920-a90c0b72c658", ResultID: "o1", Effect: true,
			Message: "order created", Time: mustTime("2026-12-02T03:49:06.337Z")},
	}},
}
