package formats

import (
	"github.com/idem-cli/idem/trace"
)

// idem's canonical schema (docs/log-schema.md): any tier, named by the
// line's own "tier" field.
var canonicalFormat = &Format{
	Name: "canonical", Kind: KindJSON, Tier: trace.TierServer,
	Doc:     "idem's own schema (docs/log-schema.md); the line names its tier",
	match:   func(r *record) bool { return r.has("tier") && r.hasAny("time", "ts", "timestamp") },
	extract: extractApp,
}
