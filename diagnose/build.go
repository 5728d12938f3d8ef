package diagnose

import (
	"time"

	"github.com/idem-cli/idem/trace"
)

// need is what a rule reads beyond what the correlator builds whatever it
// is told: the intents and deliveries an observation makes worth a look on
// its own (a loss, an error, a second delivery, a field beyond a plain
// answered request; see trace.Build). A rule whose need is empty reads
// only those.
type need struct {
	// followUp is how long after a lost delivery a plain intent from the
	// same client, method and route must be built, for these options.
	followUp func(Options) time.Duration
	// key accepts the keys of the plain intents that must be built.
	key func(key string) bool
	// keyBytes are bytes without which key accepts no key (see
	// trace.Build.KeyBytes); empty promises nothing.
	keyBytes string
}

// needs is what each rule needs built, by rule ID: every rule of the
// catalog has an entry (a test checks it), so that a new rule says what
// it reads instead of silently seeing nothing.
var needs = map[string]need{
	// Losses, effects, decisions, fingerprints, activities, provider
	// calls and second deliveries are each worth a look on their own.
	"response-lost":          {},
	"non-atomic-reservation": {},
	"payload-mismatch":       {},
	"in-progress-retry":      {},
	"external-duplicate":     {},
	"key-expired":            {},
	"late-completion":        {},
	"replay-divergence":      {},
	"unkeyed-retry":          {}, // compares fingerprinted deliveries only
	// retry-storm counts deliveries and request-id-reused reads one id
	// logged twice at a tier or with two keys: more than one observation
	// of a kind is worth a look, whatever the budget, deadline or gap.
	"retry-storm":       {},
	"request-id-reused": {},
	// proxy-retry reads a proxy line with an attempt count (a field
	// beyond a plain answer) or a delivery with effects: both built.
	"proxy-retry": {},
	// request-id-not-propagated reads keys with a proxy-only and a
	// server-only delivery: two deliveries, so built.
	"request-id-not-propagated": {},
	"secret-in-logs":            {}, // reads the inputs' counts
	// retry-new-key compares a lost delivery with the plain intents that
	// follow it from the same client, method and route (within a minute,
	// when no payload was logged: likelyNewKey). The retries it clusters
	// within the retry window carry fingerprints, worth a look on their
	// own; follow-ups are built as far as the window all the same, so
	// that a wider --retry-window never sees less.
	"retry-new-key": {followUp: func(o Options) time.Duration { return max(o.RetryWindow, likelyWindow) }},
	// duplicate-submission reads the same clusters as retry-new-key: its
	// intents have effects or a server's answer, so they are built.
	"duplicate-submission": {},
	// attempt-scoped-key groups keys that differ by an attempt suffix,
	// whatever else their intents say.
	"attempt-scoped-key": {key: attemptKey, keyBytes: "tT"}, // see stripAttempt
}

// attemptKey reports whether a key names an attempt, as attempt-scoped-key
// groups keys.
func attemptKey(key string) bool {
	base := stripAttempt(key)
	return base != key && base != ""
}

// Build is what the correlator must build for every rule to see its case
// with these options: what each rule needs, together. The thresholds widen
// it (a longer --retry-window builds follow-ups further after a loss).
func (o Options) Build() trace.Build {
	if o.RetryWindow <= 0 {
		o.RetryWindow = DefaultOptions().RetryWindow // as Run reads it
	}
	var b trace.Build
	var keys []func(string) bool
	keyBytes, promised := "", true
	for _, r := range catalog {
		n := needs[r.ID]
		if n.followUp != nil {
			b.FollowUp = max(b.FollowUp, n.followUp(o))
		}
		if n.key != nil {
			keys = append(keys, n.key)
			keyBytes += n.keyBytes
			promised = promised && n.keyBytes != ""
		}
	}
	if promised {
		b.KeyBytes = keyBytes // what any of the keys needs
	}
	if len(keys) > 0 {
		b.Key = func(key string) bool {
			for _, k := range keys {
				if k(key) {
					return true
				}
			}
			return false
		}
	}
	return b
}
