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
}
