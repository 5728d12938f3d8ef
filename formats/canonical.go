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
	Samples: []Sample{{
		Origin: "fixtures/formats/canonical.jsonl: a provider's effect",
		Line:   `{"time":"2026-11-30T10:00:00Z","tier":"provider","request_id":"ext-1","idempotency_key":"k-e","event":"effect","result_id":"pay_1"}`,
		Want: trace.Observation{Tier: trace.TierProvider, Format: "canonical", RequestID: "ext-1", Key: "k-e", ResultID: "pay_1",
			Effect: true, Time: mustTime("2026-11-30T10:00:00Z")},
	}},
}
