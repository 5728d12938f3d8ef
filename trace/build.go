package trace

import "time"

// Build tells a Correlator which intents and unkeyed deliveries Set builds
// in full, as the Intent and Delivery values of Set.Intents and
// Set.Unkeyed. What is not built is still counted, and FindIntent builds
// it on demand.
//
// Whatever Build says, Set builds every intent and delivery that an
// observation makes worth a look on its own: a lost response, an error, a
// second delivery, a field beyond a plain answered request (see notable).
// Build names what else the readers of the Set compare those with; the
// diagnose package derives it from its rules and their thresholds.
type Build struct {
	// All builds every intent and every unkeyed delivery. It predicts
	// nothing, so it is the reference the other fields are tested
	// against, at the cost of a rich object per request.
	All bool
	// FollowUp builds each plain intent that starts after a lost
	// delivery (see Delivery.Lost) of a built intent, at most this long
	// after it, and comes from the client, method and route of that
	// intent's first delivery: it may be the retry under a new key. 0
	// builds none.
	FollowUp time.Duration
	// Key, when set, builds the plain intents whose key it accepts. It
	// may be called from several goroutines at once, with a string that
	// is valid only during the call.
	Key func(key string) bool
	// KeyBytes, when not empty, promises that Key accepts no key holding
	// none of these bytes. Set then skips the keys stored packed (lower-
	// case hex digits and dashes) when none of these is among them,
	// without unpacking a million keys to ask.
	KeyBytes string
}

// DefaultFollowUp is the follow-up window NewCorrelator starts with: the
// default retry window of the rules that compare follow-ups.
const DefaultFollowUp = 10 * time.Minute

// DefaultBuild is what NewCorrelator builds unless told otherwise.
func DefaultBuild() Build { return Build{FollowUp: DefaultFollowUp} }
