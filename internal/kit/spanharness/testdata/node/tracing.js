'use strict';
// OpenTelemetry's Node SDK for one service: spans go over OTLP/HTTP (JSON)
// to the harness's collector (OTLP_URL); the http instrumentation records
// the Idempotency-Key request header on both sides, as the semantic
// conventions describe (http.request.header.idempotency-key). It is
// required first, so that the instrumentation patches http before anyone
// else loads it.
const { NodeTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-node');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http');
const { resourceFromAttributes } = require('@opentelemetry/resources');
const { registerInstrumentations } = require('@opentelemetry/instrumentation');
const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http');

module.exports = function tracing(service) {
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: process.env.OTLP_URL }))],
  });
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [new HttpInstrumentation({
      headersToSpanAttributes: {
        server: { requestHeaders: ['idempotency-key'] },
        client: { requestHeaders: ['idempotency-key'] },
      },
    })],
  });
  return provider;
};
