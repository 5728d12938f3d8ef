package trace

import (
	"hash/maphash"

	"github.com/idem-cli/idem/model"
)

// prepared is what Correlator.Prepare works out for Add.
type prepared struct {
	method  uint8  // methodCode(Method)
	routeID bool   // idLike(Route)
	plain   bool   // o can be kept compact: simple(o) or browserLine(o), and fits(o) for each value
	extra   bool   // o is a browser's line with what cextra holds (see browserLine)
	notable bool   // notable(o), but for what cextra holds
	fpHash  uint32 // fpHash(Fingerprint), 0 for none
	name    uint32 // the top half of nameSum for the key alone (see namedWhileRead)
	fields  model.Field
	ridHash uint64
	rid     packed
	altHash uint32 // the top half of the other request id's hash; 0 for none
	key     packed
	client  packed
}

// idSeed hashes request ids; the parser and the correlator share it.
var idSeed = maphash.MakeSeed()

// prepare works out p for o.
func prepare(o *model.Observation, p *prepared) {
	// Field by field: a composite literal is built aside and copied.
	simple := simple(o) // once: plain and notable both ask
	p.extra, p.fpHash = !simple && browserLine(o), 0
	if o.Fingerprint != "" {
		p.fpHash = fpHash(o.Fingerprint)
	}
	// A browser's line is worth a look as a plain one is; one whose
	// payload another delivery logged too is marked so in Set.
	quiet := simple || p.extra
	p.method, p.routeID, p.plain, p.notable = methodCode(o.Method), idLike(o.Route), quiet && fits(o), notableSimple(o, quiet)
	p.ridHash = maphash.String(idSeed, o.RequestID)
	p.fields = model.FieldsOf(o)
	p.rid.set(o.RequestID)
	p.altHash = 0
	if o.AltRequestID != "" {
		p.altHash = altHash(o.AltRequestID)
	}
	p.key.set(o.Key)
	p.client.set(o.Client)
	p.name = 0
	if o.Key != "" && o.Scope == "" {
		p.name = uint32(nameSum("", p.key.stored(o.Key), int(p.key.kind)) >> 32)
	}
}

// altHash is what the correlator keeps of a line's other request id: the
// top half of its hash, never 0. It is compared with the ids of the other
// deliveries of one intent, a few at a time, so 32 bits tell them apart.
func altHash(id string) uint32 {
	return uint32(maphash.String(idSeed, id)>>32) | 1
}

// methodCode numbers the usual methods, 0 for others: the workers work it
// out, so that the correlator looks a method up in a map only the first
// time it sees it.
func methodCode(m string) uint8 {
	switch m {
	case "GET":
		return 1
	case "POST":
		return 2
	case "PUT":
		return 3
	case "PATCH":
		return 4
	case "DELETE":
		return 5
	case "HEAD":
		return 6
	case "OPTIONS":
		return 7
	}
	return 0
}

// methodCodes is how many methodCode numbers (0 included).
const methodCodes = 8

// idLike reports whether a path holds an id: a run of three digits or a
// long segment, as in /v1/orders/48213 or /v1/orders/ord_8H2kQa9x.
func idLike(s string) bool {
	digits := 0
	seg := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			if digits++; digits >= 3 {
				return true
			}
		default:
			digits = 0
		}
		if c == '/' {
			seg = 0
		} else if seg++; seg > 24 {
			return true
		}
	}
	return false
}
