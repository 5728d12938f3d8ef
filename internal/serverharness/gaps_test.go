package serverharness

// knownGaps are the rules idem misses today on the real capture, keyed
// rule/key-role (see expectations), each with why. The assertions they
// name log instead of failing; remove an entry once idem is fixed.
var knownGaps = map[string]string{}
