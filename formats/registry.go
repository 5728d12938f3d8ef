package formats

// registry is every format, in the order a record is tried against them:
// the first whose recognition answers yes reads it. Envelopes come first,
// since an export's wrapper is recognised before the line inside it; then
// the specific shapes before the generic ones: the last JSON format takes
// any object. Text formats are tried, in this order, on lines that are not
// JSON objects, after the config's own patterns.
//
// Adding a format: write its file (see nginx.go or alb.go), add it here
// where its shape is more specific than what follows, and add a fixture.
var registry []*format

func init() {
	registry = []*format{
		// Exports of log aggregators (JSON envelopes).
		lokiFormat, elasticsearchFormat, cloudwatchFormat, gcpFormat, datadogFormat, fluentFormat, dockerFormat, ecsFormat,
		// Browsers, OpenTelemetry logs and traces (OTLP, Jaeger, Zipkin), and proxies (JSON).
		otlpFormat, otlpTracesFormat, jaegerFormat, zipkinFormat, harFormat, otelFormat, envoyFormat, traefikFormat, caddyFormat, nginxFormat,
		apiGatewayFormat, bunyanFormat, pinoHTTPFormat,
		// Application and worker loggers (JSON), the catch-all last.
		temporalFormat, canonicalFormat, echoFormat, logrageFormat, pinoFormat, zapFormat, zerologFormat, structlogFormat, logrusFormat, slogFormat, jsonFormat,
		// Text lines, and the prefix that wraps lines of any format.
		w3cFormat, criFormat, albFormat, elbFormat, envoyTextFormat, composeFormat, ingressNginxFormat, squidFormat, apacheFormat, tomcatFormat, combinedFormat, haproxyFormat, logrageTextFormat, kubectlFormat,
		// Lines of key=value pairs, read by the vocabulary: after every named text layout.
		logfmtFormat,
		// Any other line holding an HTTP request line, read by its grammar: last, so that every named format keeps its lines.
		requestLineFormat,
	}
	for _, f := range registry {
		switch {
		case f.text != nil:
			textFormats = append(textFormats, f)
		case f.match != nil:
			jsonFormats = append(jsonFormats, f)
		}
	}
}

// jsonFormats and textFormats are the registry's JSON and text formats,
// each in registry order.
var jsonFormats, textFormats []*format
