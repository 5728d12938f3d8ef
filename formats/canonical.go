package formats

import "github.com/idem-cli/idem/model"

// idem's canonical schema (docs/log-schema.md): any tier, named by the
// line's own "tier" field.
var canonicalFormat = &format{
	vocabulary: true,
	Name:       "canonical", Kind: kindJSON, Tier: model.TierServer,
	Doc:     "idem's own schema (docs/log-schema.md); the line names its tier",
	match:   func(r *record) bool { return r.has("tier") && r.hasAny("time", "ts", "timestamp") },
	extract: extractApp,
	Samples: []sample{{
		Origin: "fixtures/formats/canonical.jsonl: a provider's effect",
		Line:   `{"time":"2026-11-30T10:00:00Z","tier":"provider","request_id":"ext-1","idempotency_key":"k-e","event":"effect","result_id":"pay_1"}`,
		Want: model.Observation{Tier: model.TierProvider, Format: "canonical", RequestID: "ext-1", Key: "k-e", ResultID: "pay_1",
			Effect: true, Time: mustTime("2026-11-30T10:00:00Z")},
	}, {
		Origin: "docs/log-schema.md example: the decision on a new key",
		Line: `{"time":"2026-11-30T09:14:02.118Z","tier":"server","request_id":"c9b2decb","key_hash":"sha256:64a007e7bb1a1169","method":"POST","route":"/v1/orders",` +
			`"decision":"new","state":"in_progress","fingerprint":"sha256:9c1e…"}`,
		Want: model.Observation{Tier: model.TierServer, Format: "canonical", Method: "POST", Route: "/v1/orders", RequestID: "c9b2decb",
			KeyHash: "sha256:64a007e7bb1a1169", Decision: "new", State: "in_progress", Fingerprint: "sha256:9c1e…",
			Time: mustTime("2026-11-30T09:14:02.118Z")},
	}, {
		Origin: "docs/log-schema.md example: the response, written when it was sent",
		Line: `{"time":"2026-11-30T09:14:04.501Z","tier":"server","request_id":"c9b2decb","key_hash":"sha256:64a007e7bb1a1169","state":"completed","status":201,` +
			`"result_id":"ord_8H2kQ","duration_ms":2383}`,
		Want: model.Observation{Tier: model.TierServer, Format: "canonical", RequestID: "c9b2decb", KeyHash: "sha256:64a007e7bb1a1169", State: "completed",
			Status: 201, Outcome: model.OutcomeOK, ResultID: "ord_8H2kQ", Time: mustTime("2026-11-30T09:14:02.118Z"), Duration: 2_383_000_000},
	}, {
		Origin: "docs/log-schema.md example: the replay",
		Line: `{"time":"2026-11-30T09:14:05.884Z","tier":"server","request_id":"5d1f7a80","key_hash":"sha256:64a007e7bb1a1169","decision":"replay",` +
			`"state":"completed","status":201,"result_id":"ord_8H2kQ"}`,
		Want: model.Observation{Tier: model.TierServer, Format: "canonical", RequestID: "5d1f7a80", KeyHash: "sha256:64a007e7bb1a1169", Decision: "replay",
			State: "completed", Status: 201, Outcome: model.OutcomeOK, ResultID: "ord_8H2kQ",
			Time: mustTime("2026-11-30T09:14:05.884Z")},
	}},
}
