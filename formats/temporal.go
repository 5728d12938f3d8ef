package formats

import "github.com/idem-cli/idem/model"

// Temporal workers' logs: the Go SDK with a JSON slog handler writes
// WorkflowID, RunID, ActivityID, ActivityType and Attempt; the TypeScript
// SDK camelCase names.
var temporalFormat = &format{
	vocabulary: true,
	Name:       "temporal", Kind: kindJSON, Tier: model.TierWorker,
	Doc: "Temporal worker logs (WorkflowID, ActivityID, Attempt)",
	match: func(r *record) bool {
		return r.hasAny("WorkflowID", "ActivityID", "ActivityType", "workflowId", "activityId", "activityType")
	},
	extract: extractApp,
	Samples: []sample{{
		Origin: "fixtures/formats/temporal.jsonl: the Go SDK's activity tags through a JSON slog handler",
		Line: `{"time":"2024-01-15T10:30:45.123Z","level":"ERROR","msg":"Activity error.","Namespace":"default","TaskQueue":"orders","WorkerID":"123@host@",` +
			`"ActivityID":"5","ActivityType":"ChargeCard","Attempt":2,"WorkflowType":"Checkout","WorkflowID":"order-991","RunID":"run-7","Error":"context deadline ` +
			`exceeded"}`,
		Want: model.Observation{Tier: model.TierWorker, Format: "temporal", Workflow: &model.Workflow{ID: "order-991", RunID: "run-7", ActivityID: "5",
			ActivityType: "ChargeCard"}, Attempt: 2, Message: "Activity error.", Time: mustTime("2024-01-15T10:30:45.123Z")},
	}, {
		Origin: "fixtures/formats/temporal.jsonl: the activity finished after its timeout, with its Result",
		Line: `{"time":"2024-01-15T10:30:50.000Z","level":"INFO","msg":"Activity complete after timeout.","Namespace":"default","TaskQueue":"orders",` +
			`"WorkerID":"123@host@","ActivityID":"5","ActivityType":"ChargeCard","Attempt":1,"WorkflowType":"Checkout","WorkflowID":"order-991","RunID":"run-7",` +
			`"Result":"ch_77"}`,
		Want: model.Observation{Tier: model.TierWorker, Format: "temporal", Workflow: &model.Workflow{ID: "order-991", RunID: "run-7", ActivityID: "5",
			ActivityType: "ChargeCard"}, Attempt: 1, ResultID: "ch_77", Message: "Activity complete after timeout.",
			Time: mustTime("2024-01-15T10:30:50Z")},
	}},
}
