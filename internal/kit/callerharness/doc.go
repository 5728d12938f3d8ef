// Package callerharness proves that idem tells a caller's log from a
// server's by what its lines say, not by the logger's shape: a Node
// service's own JSON log of the calls it makes to an orders API (the
// absolute URL it calls, the status it received, ETIMEDOUT and a retry
// count, ECONNREFUSED), written with no logging library, beside the
// orders API's own log (Go's log/slog, JSON). Both run on 127.0.0.1; the
// caller records each send and how it ended for it, the API each request
// it received and the order it made or replayed. What the tests expect
// comes from those two records, never from idem's reading of the logs.
//
// It also runs four logging libraries at their default prefixes (Python's
// logging.basicConfig, Ruby's Logger, logback's BasicConfigurator, Go's
// log) logging a plan of effects the harness gives them, and checks that
// each line of the plan is read, by its key and its order, from the
// message's key=value pairs after the prefix.
package callerharness
