// Package model is what idem knows of a request's path through a system,
// whatever log it was read from:
//
//   - an Observation is what one log line says about one request at one tier
//     (client, proxy, server, worker, provider), with its source file:line;
//   - a Delivery is one trip of one request: every observation sharing one
//     request id, ordered client → proxy → server → worker → provider;
//   - an Intent is every delivery sharing one Idempotency-Key within its
//     scope: the retries of one user action;
//   - an Effect is a business change (a created order, a sent email, a
//     charge), an observation attributed to the delivery and intent whose
//     ids its line carries;
//   - a Set is the intents and deliveries of some inputs, as the rules read
//     them, with what was read from each Input.
//
// It also holds what the readers and the rules share about these facts:
// keys as headers carry them and their hashes, payload fingerprints, and
// times and durations as logs write them. It reads no file and correlates
// nothing: readers fill Observations, a correlator groups them into a Set,
// and nothing here prints.
package model
