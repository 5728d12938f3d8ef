package formats

import (
	"github.com/idem-cli/idem/trace"
)

// Go's log/slog JSONHandler: time, level, msg first.
var slogFormat = &Format{
	Name: "slog", Kind: KindJSON, Tier: trace.TierServer,
	Doc:     "log/slog's JSONHandler (Go): time, level, msg",
	match:   func(r *record) bool { return r.has("time") && r.has("level") && r.has("msg") },
	extract: extractApp,
}
