// Package fiberharness proves idem's rules on the logs of Go Fiber's
// idempotency middleware (github.com/gofiber/fiber/v2/middleware/idempotency)
// behind Debian's Caddy. An order service wired as Fiber's documentation
// does it, with requestid and a JSON logger template, runs in the test
// process; the tests drive it through concurrent duplicates (which the
// middleware holds on its lock, then replays), a lost response, a retry
// after the key's Lifetime, another body under a key and a retry under a
// new key, record what was sent and what the ledger made of it, and derive
// the rules that must fire (with their severity), and the keys no rule may
// name, from that record alone. It records two variants: the access line
// as an operator writes it (fixtures/real/fiber), and the same with the
// body's hash (fixtures/real/fiber-payload-hash).
//
// Where the logs cannot show what the traffic did, or idem misses it, the
// tests' knownGaps table says why: those assertions log instead of failing.
// The machinery (Caddy, the client, the ledger, the checks) is
// internal/kit/capture's: the package says only what it drives.
package fiberharness
