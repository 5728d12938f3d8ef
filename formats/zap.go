package formats

import (
	"github.com/idem-cli/idem/trace"
)

// zap's production encoder: ts (float seconds), level, msg.
var zapFormat = &Format{
	Name: "zap", Kind: KindJSON, Tier: trace.TierServer,
	Doc:     "zap JSON logs (Go): ts, level, msg",
	match:   func(r *record) bool { return r.has("ts") && r.has("msg") && r.has("level") },
	extract: extractApp,
}
