package formats

import (
	"github.com/idem-cli/idem/trace"
)

// logrus's JSONFormatter (Go) writes level, msg and time, with the
// fields in alphabetical order: a key set slog also writes, but slog
// leads with time. Its lines are read like every application logger's.
var logrusFormat = &Format{
	Name: "logrus", Kind: KindJSON, Tier: trace.TierServer,
	Doc: "logrus JSONFormatter logs (Go): level, msg, time in key order",
	match: func(r *record) bool {
		return r.has("time") && r.has("level") && r.has("msg") && len(r.keys) > 0 && r.keys[0] != "time" && sortedKeys(r.keys)
	},
	extract: extractApp,
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
