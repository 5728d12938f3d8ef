package formats

import (
	"github.com/idem-cli/idem/trace"
)

// Temporal workers' logs: the Go SDK with a JSON slog handler writes
// WorkflowID, RunID, ActivityID, ActivityType and Attempt; the TypeScript
// SDK camelCase names.
var temporalFormat = &Format{
	Name: "temporal", Kind: KindJSON, Tier: trace.TierWorker,
	Doc: "Temporal worker logs (WorkflowID, ActivityID, Attempt)",
	match: func(r *record) bool {
		return r.hasAny("WorkflowID", "ActivityID", "ActivityType", "workflowId", "activityId", "activityType")
	},
	extract: extractApp,
}
