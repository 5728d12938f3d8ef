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
}
