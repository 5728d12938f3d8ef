// Package serverharness proves idem's rules on the logs of real
// Idempotency-Key servers: express apps wired with express-idempotency and
// with @node-idempotency/core as their READMEs do it, logging with
// pino-http, behind Debian's nginx. The tests drive each through the
// retries that make duplicates (a lost response, a same-key retry,
// concurrent duplicates, another body under a key, a retry under a new
// key; for node-idempotency also a key past its TTL, two answered
// submissions under two keys and an unkeyed retry), record what was sent
// and how each request ended, and derive the rules that must fire from
// that record alone; idem's output is only what is checked.
//
// Where idem misses what the traffic says, the tests' knownGaps table
// names it, with why: those assertions log instead of failing. The
// machinery (nginx, the client, the ledger, the checks) is
// internal/kit/capture's: the package says only what it drives.
package serverharness
