package appharness

// Reasons shared by several libraries.
const (
	gapEndTime = "an access line is written when the request ends, so its time is the end; idem takes it for the start " +
		"instead of subtracting the line's duration"
	gapPinoCounter = "pino-http's default req.id is a per-process counter (1, 2, ...) and idem prefers it to the propagated " +
		"req.headers[\"x-request-id\"], so the trip is named after a small integer that collides across pods and restarts"
	gapEcho = "echo's Logger middleware writes id, remote_ip, host, uri, latency (ns), latency_human, bytes_in/out; " +
		"idem has no echo format, reads it as plain json and does not take \"id\" as the request id"
	gapIDsNeverMeet = "hlog.RequestIDHandler makes its own xid and ignores the X-Request-Id nginx passes on, so the " +
		"proxy's id and the server's never meet: idem shows each trip as a proxy-only and a server-only delivery and does " +
		"not say why (the one-line fix: hlog.CustomHeaderHandler(\"request_id\", \"X-Request-Id\"))"
	gapTemporalSDK = "the Go SDK's own \"Activity error.\" and \"Activity complete after timeout.\" lines carry WorkflowID, " +
		"RunID, ActivityType and Attempt but no ActivityID; idem joins worker lines only by ActivityID, so the attempt's " +
		"error or late completion is in no delivery"
)

// knownGaps are the facts idem gets wrong today on real captures, keyed
// library/fact, each with why. The assertions they name log instead of
// failing; remove an entry once the reading code is fixed.
var knownGaps = map[string]string{
	"slog/start":      gapEndTime,
	"zap/start":       gapEndTime,
	"structlog/start": gapEndTime,
	"echo/start":      gapEndTime + " (echo's ${time_rfc3339_nano} is the end of the request)",

	"zerolog/format": "hlog.AccessHandler lines logged with Msg(\"\") have no \"message\" field, and idem recognises " +
		"zerolog only by message+level+time, so they are read as plain json",
	"zerolog/input-format": "the access lines read as json and the effect lines as zerolog, so the input is \"mixed\"",
	"zerolog/duration": "zerolog writes Dur fields in milliseconds by default (zerolog.DurationFieldUnit); idem reads a " +
		"float duration as seconds, so 250ms becomes 4m10s",

	"logrus-rfc1123/start": "a logrus JSONFormatter with TimestampFormat: time.RFC1123Z writes \"Tue, 01 Dec 2026 10:17:03 +0000\"; " +
		"idem does not parse RFC 1123 dates, so the line has no time",
	"logrus-timestring/start": "Go's time.String() layout (\"2026-12-01 10:17:03.169629696 +0000 UTC\", as old logrus wrote) " +
		"does not parse, so the line has no time",

	"nginx-zerolog/join":       gapIDsNeverMeet,
	"nginx-zerolog/delivery":   gapIDsNeverMeet,
	"nginx-zerolog/deliveries": gapIDsNeverMeet,

	"echo/format":        gapEcho,
	"echo/input-format":  gapEcho,
	"echo/request-id":    gapEcho,
	"echo/join":          gapEcho + ": the access line is in no delivery with the effect line of its request",
	"echo/effect-format": "echo's context logger (gommon) writes time, level, prefix, file, line, message: idem labels it zerolog",

	"pino-http/request-id":        gapPinoCounter,
	"pino-http/effect-request-id": gapPinoCounter,
	"pino-http/delivery":          gapPinoCounter,
	"pino-http/intent":            gapPinoCounter,

	"pino-http-restart/request-id":        gapPinoCounter,
	"pino-http-restart/effect-request-id": gapPinoCounter,
	"pino-http-restart/delivery":          gapPinoCounter,
	"pino-http-restart/intent":            gapPinoCounter,
	"pino-http-pods/deliveries": gapPinoCounter + ": two processes' logs read together merge their trips 1, 2, ... " +
		"into one delivery each",
	"pino-http-pods/intent": gapPinoCounter + ": an intent gets the other process's trip of the same number",

	"temporal/sdk-join": gapTemporalSDK,
	"temporal/effect-reserve": "\"stock reserved\" with reservation_id is not an effect: reservation_id is not a result-id alias " +
		"(the effect vocabulary knows order_id, charge_id, payment_id, ticket_id, receipt, result_id...)",
	"temporal/intent-effect-reserve": "the reservations' effects are not read (reservation_id is not a result-id alias), so the " +
		"attempt-scoped intents show no effect",
}
