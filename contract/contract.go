// Package contract names the variants of the Idempotency-Key contract that
// real servers implement: which status answers a reused key with another
// payload, a retry while the first delivery is still running, a missing
// key, and whether a replay is marked. The gateway serves a profile; replay
// checks a server against one.
package contract

import (
	"fmt"
	"strings"
)

// Profile is one server family's choice of answers.
type Profile struct {
	Name       string
	Conflict   int    // same key, another payload
	InProgress int    // the key's first delivery is still running
	MissingKey int    // no Idempotency-Key on a write
	Replayed   string // the header that marks a replayed response ("" when none)
}

// Profiles: the article the brief digests (409/409), the IETF draft
// (422 for a reused key, 409 in progress, no replay marker) and Stripe (400
// idempotency_error, 409 in use, Idempotent-Replayed).
var Profiles = map[string]Profile{
	"article": {Name: "article", Conflict: 409, InProgress: 409, MissingKey: 400, Replayed: "Idempotent-Replayed"},
	"ietf":    {Name: "ietf", Conflict: 422, InProgress: 409, MissingKey: 400},
	"stripe":  {Name: "stripe", Conflict: 400, InProgress: 409, MissingKey: 400, Replayed: "Idempotent-Replayed"},
}

// Names lists the profiles in a stable order.
func Names() []string { return []string{"article", "ietf", "stripe"} }

// Lookup finds a profile by name.
func Lookup(name string) (Profile, error) {
	p, ok := Profiles[name]
	if !ok {
		return Profile{}, fmt.Errorf("unknown profile %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return p, nil
}
