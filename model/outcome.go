package model

// Outcome says how a delivery ended as seen from one tier.
type Outcome uint8

// Outcomes. Everything but OutcomeOK and OutcomeNotDelivered means "the
// response may have been lost": the effect may or may not have happened.
const (
	OutcomeUnknown         Outcome = iota
	OutcomeOK                      // a response was sent or received
	OutcomeTimeout                 // the client stopped waiting
	OutcomeReset                   // the connection dropped before a full response
	OutcomeAborted                 // the client aborted (navigation, user action)
	OutcomeClientClosed            // a proxy saw the client go away (499, DC, CH)
	OutcomeUpstreamTimeout         // a proxy gave up on the server (504, UT, sH)
	OutcomeUpstreamReset           // the server's connection dropped (502, UC, SH)
	OutcomeNotDelivered            // the request never reached a server (refused, no route)
	OutcomeError                   // some other transport error
)

var outcomeNames = [...]string{"unknown", "ok", "timeout", "reset", "aborted", "client_closed",
	"upstream_timeout", "upstream_reset", "not_delivered", "error"}

func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "unknown"
}

// MarshalText makes outcomes render by name in JSON.
func (o Outcome) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// ParseOutcome reads an outcome name as written by String.
func ParseOutcome(s string) Outcome {
	for i, n := range outcomeNames {
		if n == s {
			return Outcome(i)
		}
	}
	return OutcomeUnknown
}

// Lost reports whether this outcome means the response did not reach the
// caller although the request may have been processed.
func (o Outcome) Lost() bool {
	switch o {
	case OutcomeTimeout, OutcomeReset, OutcomeAborted, OutcomeClientClosed,
		OutcomeUpstreamTimeout, OutcomeUpstreamReset, OutcomeError:
		return true
	}
	return false
}
