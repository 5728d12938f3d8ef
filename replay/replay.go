// Package replay resends a captured request with its Idempotency-Key (and
// a new request id) to a live server, and checks the replay contract: the
// same status and result id, a replay marker where the profile has one,
// and no new effect. Probes check the rest of the verification procedure:
// a changed payload under the key, concurrent deliveries, a lost response,
// a missing key, a delivery during a slow first one.
//
// Replay can create a second order or charge on a broken server. Nothing is
// sent without an explicit target; the command asks before sending; probes
// that may create effects use fresh keys derived from the captured one.
package replay

import (
	"net/url"
	"time"

	"github.com/idem-cli/idem/contract"
	"github.com/idem-cli/idem/model"
)

// Probe names, in the order they run.
const (
	probeMismatch     = "mismatch"
	probeConcurrent   = "concurrent"
	probeLostResponse = "lost-response"
	probeMissingKey   = "missing-key"
	probeInProgress   = "in-progress"
)

// ProbeNames lists the probes in their order.
func ProbeNames() []string {
	return []string{probeMismatch, probeConcurrent, probeLostResponse, probeMissingKey, probeInProgress}
}

// Options configure a replay.
type Options struct {
	Target          *url.URL
	Profile         contract.Profile
	RequestIDHeader string
	KeepAuth        bool
	// KeepHeaders names routing and trust headers (RoutingHeaders) to
	// resend as captured.
	KeepHeaders []string
	Headers     []model.Header // added or overriding, in order
	ResultPath  string         // gjson path of the result id in the response body
	EffectsURL  string         // GET it before and after to count effects
	EffectsPath string         // gjson path to a count or a list in that response
	Probes      []string
	Concurrency int
	Timeout     time.Duration
	Insecure    bool
	// Settle is how long the lost-response probe waits for the server to
	// finish after the connection is dropped.
	Settle time.Duration
	// RequireMarker makes an absent replay marker a failure; otherwise it
	// is reported as information (the IETF draft defines no marker, and
	// many servers send none).
	RequireMarker bool
	// NewID makes request ids and key suffixes; tests fix it.
	NewID func() string
}
