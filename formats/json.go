package formats

import (
	"github.com/idem-cli/idem/trace"
)

// Any other JSON object: the application aliases are tried on it. It
// comes last and takes every object.
var jsonFormat = &Format{
	Name: "json", Kind: KindJSON, Tier: trace.TierServer,
	Doc:     "any other JSON object, read with the application aliases",
	match:   func(r *record) bool { return true },
	extract: extractApp,
}
