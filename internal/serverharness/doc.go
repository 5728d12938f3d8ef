// Package serverharness proves idem's rules on the logs of a real
// Idempotency-Key server: an express app wired with express-idempotency as
// its README does it, logging with pino-http, behind Debian's nginx. The
// tests drive it through the retries that make duplicates (a lost
// response, a same-key retry, concurrent duplicates, another body under a
// key, a retry under a new key), record what was sent and how each request
// ended, and derive the rules that must fire from that record alone; idem's
// output is only what is checked.
//
// Where idem misses what the traffic says, the tests' knownGaps table
// names it, with why: those assertions log instead of failing.
package serverharness
