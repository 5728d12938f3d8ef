package formats

import (
	"github.com/idem-cli/idem/trace"
)

// zerolog's default field names: time, level, message.
var zerologFormat = &Format{
	Name: "zerolog", Kind: KindJSON, Tier: trace.TierServer,
	Doc:     "zerolog JSON logs (Go): time, level, message",
	match:   func(r *record) bool { return r.has("message") && r.has("level") && r.has("time") },
	extract: extractApp,
}
