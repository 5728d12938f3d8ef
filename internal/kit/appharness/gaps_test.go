package appharness

import (
	"testing"

	"github.com/idem-cli/idem/internal/kit/capture"
)

// Reasons shared by several libraries.
const (
	gapEndTime = "an access line is written when the request ends, so its time is the end; idem takes it for the start " +
		"instead of subtracting the line's duration"
	gapPinoCounter = "pino-http's default req.id is a per-process counter (1, 2, ...) and idem prefers it to the propagated " +
		"req.headers[\"x-request-id\"], so the trip is named after a small integer that collides across pods and restarts"
	gapEcho = "echo's Logger middleware writes id, remote_ip, host, uri, latency (ns), latency_human, bytes_in/out; " +
		"idem has no echo format, reads it as plain json and does not take \"id\" as the request id"
	gapIDsNeverMeet = "hlog.RequestIDHandler makes its own xid and ignores the X-Request-Id nginx passes on, so the " +
		"proxy's id and the server's never meet: the log cannot join them, so each trip stays a proxy-only and a server-only " +
		"delivery; idem says why (the request-id-not-propagated finding, checked in TestBehindNginxNamesTheSplit)"
	gapTemporalSDK = "the Go SDK's own \"Activity error.\" and \"Activity complete after timeout.\" lines carry WorkflowID, " +
		"RunID, ActivityType and Attempt but no ActivityID; idem joins worker lines only by ActivityID, so the attempt's " +
		"error or late completion is in no delivery"
)

// knownGaps are the facts idem gets wrong today on real captures, keyed
// library/fact, each with why. The assertions they name log instead of
// failing; remove an entry once the reading code is fixed (the test fails
// while it stays).
var knownGaps = capture.Gaps{

	"nginx-log4js/unexpected/replay-divergence": "log4js's connect logger writes its line when the connection closes if that " +
		"comes first, with the status the response had so far (express's default 200) and no sign that nothing was sent: the " +
		"lost step reads as answered 200, so its same-key retry's 201 looks like a replay that differs",
	"nginx-zerolog/join":       gapIDsNeverMeet,
	"nginx-zerolog/delivery":   gapIDsNeverMeet,
	"nginx-zerolog/deliveries": gapIDsNeverMeet,
}

func TestKnownGapsAreWellFormed(t *testing.T) { knownGaps.Lint(t) }
