package replay

// Result is what a replay found.
type Result struct {
	Schema     string      `json:"schema"`
	Target     string      `json:"target"`
	Profile    string      `json:"profile"`
	Request    RequestInfo `json:"request"`
	Original   Original    `json:"original"`
	Assertions []Assertion `json:"assertions"`
	// Verdict is held, broken or inconclusive (see Verdict constants).
	Verdict      string   `json:"verdict"`
	Reason       *Reason  `json:"reason,omitempty"`
	NotRun       []string `json:"not_run,omitempty"` // steps not sent after an inconclusive replay
	Passed       int      `json:"passed"`
	Failed       int      `json:"failed"`
	Skipped      int      `json:"skipped"`
	Info         int      `json:"info"`
	Inconclusive int      `json:"inconclusive"`
	Duration     float64  `json:"duration_ms"`
}

// Verdicts: every assertion held; one failed (a fact about the server);
// or nothing failed but an answer tested nothing (it came from before the
// idempotency layer: credentials, route, rate limit, an upstream down, a
// target that refuses connections).
const (
	VerdictHeld         = "held"
	VerdictBroken       = "broken"
	VerdictInconclusive = "inconclusive"
)

// Reasons why an answer tested nothing.
const (
	ReasonCredentials = "credentials"  // 401, 403, 407
	ReasonRoute       = "route"        // 404, 405, 421
	ReasonRateLimited = "rate-limited" // 429
	ReasonUnavailable = "unavailable"  // 502, 503, 504 before any contract answer
	ReasonUnreachable = "unreachable"  // connection refused, no such host
	reasonRedirect    = "redirect"     // 3xx: the edge sends the request elsewhere
)

// Reason says why a step was inconclusive.
type Reason struct {
	Kind   string `json:"kind"`
	Probe  string `json:"probe,omitempty"`
	Status int    `json:"status,omitempty"`
	// Dropped names the captured credentials that were not resent.
	Dropped []string `json:"dropped,omitempty"`
	Error   string   `json:"error,omitempty"`
	// Location is where a redirect points.
	Location string `json:"location,omitempty"`
}

// RequestInfo describes the replayed request. It holds what was sent:
// renderers redact it.
type RequestInfo struct {
	Method    string            `json:"method"`
	URL       string            `json:"url"`
	Key       string            `json:"key"`
	RequestID string            `json:"request_id"`
	Headers   map[string]string `json:"headers"`
	BodyBytes int               `json:"body_bytes"`
	Source    string            `json:"source"`
}

// tally counts the assertions and sets the verdict.
func (res *Result) tally() {
	res.Passed, res.Failed, res.Skipped, res.Info, res.Inconclusive = 0, 0, 0, 0, 0
	for _, a := range res.Assertions {
		switch a.Status {
		case Inconclusive:
			res.Inconclusive++
		case Info:
			res.Info++
		case Skip:
			res.Skipped++
		case Pass:
			res.Passed++
		default:
			res.Failed++
		}
	}
	switch {
	case res.Failed > 0:
		res.Verdict = VerdictBroken
	case res.Inconclusive > 0:
		res.Verdict = VerdictInconclusive
	default:
		res.Verdict = VerdictHeld
	}
}

// reasonText is each reason as an inconclusive assertion says it.
var reasonText = map[string]string{
	ReasonCredentials: "the target wants credentials",
	ReasonRoute:       "the target has no such route",
	ReasonRateLimited: "rate-limited before the idempotency layer",
	ReasonUnavailable: "the target's upstream is unavailable",
	ReasonUnreachable: "the target cannot be reached",
	reasonRedirect:    "the target redirects",
}
