// Package spanharness proves idem's trace formats on real tracing
// libraries: an order service and its client, both instrumented with
// OpenTelemetry (Go's SDK with otelhttp on both sides; Node's SDK with its
// http instrumentation), go through the retries that make duplicates on
// 127.0.0.1, each capturing the Idempotency-Key request header as the
// semantic conventions describe (http.request.header.idempotency-key).
// Their spans go over OTLP to a collector the harness runs, which writes
// them as the OpenTelemetry Collector's file exporter does (pdata's JSON
// marshaler) and hands them on to a real Jaeger (v2, in memory), whose
// query API's answers are kept as Jaeger's JSON; Go's spans also go
// through OpenTelemetry's Zipkin exporter to an endpoint of the harness's,
// which keeps the JSON it receives.
//
// The tests then read each file with idem's own reader and correlator,
// alone and beside the others, and compare what they read with what the
// harness did: the requests it sent (each with the traceparent its client
// sent), how each ended for the client, and what the service recorded in
// its ledger. The expected facts never come from idem. What idem still
// misreads is listed, with why, in knownGaps. The machinery is
// internal/kit/capture's.
package spanharness
