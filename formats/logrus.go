package formats

import "github.com/idem-cli/idem/model"

// logrus's JSONFormatter (Go) writes level, msg and time, with the
// fields in alphabetical order: a key set slog also writes, but slog
// leads with time. Its lines are read like every application logger's.
var logrusFormat = &format{
	vocabulary: true,
	Name:       "logrus", Kind: kindJSON, Tier: model.TierServer,
	Doc: "logrus JSONFormatter logs (Go): level, msg, time in key order",
	match: func(r *record) bool {
		return r.has("time") && r.has("level") && r.has("msg") && len(r.keys) > 0 && r.keys[0] != "time" && sortedKeys(r.keys)
	},
	extract: extractApp,
	Samples: []sample{{
		Origin: "a petstore orchestrator's logrus output quoted in a public repository's README",
		Line: `{"level":"info","method":"POST","msg":"request received","path":"/rpc/listPets","query":"","time":"2026-02-21T21:17:04.585656683Z",` +
			`"trace_id":"cf20050ba8e173690e878d1acb9fba49","traceparent":"00-cf20050ba8e173690e878d1acb9fba49-4eed18446c0c6ef4-01",` +
			`"x_request_id":"4fbed3ca-62f2-474d-9c02-d6edeca96822"}`,
		Want: model.Observation{Tier: model.TierServer, Format: "logrus", Method: "POST", Route: "/rpc/listPets",
			RequestID: "4fbed3ca-62f2-474d-9c02-d6edeca96822", Message: "request received", Time: mustTime("2026-02-21T21:17:04.585656683Z")},
	}, {
		Origin: "the same log, the response of that request",
		Line: `{"duration_ms":2,"level":"info","method":"POST","msg":"response sent","path":"/rpc/listPets","status":200,"time":"2026-02-21T21:17:04.587748415Z",` +
			`"trace_id":"cf20050ba8e173690e878d1acb9fba49"}`,
		Want: model.Observation{Tier: model.TierServer, Format: "logrus", Method: "POST", Route: "/rpc/listPets", Status: 200,
			Outcome: model.OutcomeOK, Message: "response sent", Time: mustTime("2026-02-21T21:17:04.585748415Z"), Duration: 2_000_000},
	}},
}

// sortedKeys reports whether the names are in byte order, as
// encoding/json writes a map.
func sortedKeys(keys []string) bool {
	for i := 1; i < len(keys); i++ {
		if keys[i-1] > keys[i] {
			return false
		}
	}
	return true
}
