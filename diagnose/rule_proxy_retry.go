package diagnose

import (
	"fmt"
	"strings"
	"time"

	"github.com/idem-cli/idem/model"
)

var proxyRetry = &Rule{
	ID:         "proxy-retry",
	Title:      "The proxy sent one request to the server twice",
	Severity:   Warning,
	Symptom:    "The client sent once; the server received the same request id and key twice, while the proxy waited on one request.",
	Hypothesis: "The proxy retries a write on the next upstream after a timeout or an error (nginx proxy_next_upstream ... non_idempotent, HAProxy retry-on with option redispatch, an Envoy retry policy, Caddy lb_retries with lb_retry_match), and the upstream that timed out had already done the work.",
	Check:      "Read the proxy's retry settings for the write's route, and whether the instances share one atomic key store.",
	Action: "Do not let the proxy retry non-idempotent requests: nginx, drop non_idempotent from proxy_next_upstream (or proxy_next_upstream off " +
		"where POSTs go); HAProxy, a retry-on without all-retryable-errors or response-timeout and no option redispatch for them; Envoy, " +
		"no retry policy on writes; Caddy, no lb_retry_match that matches them (Caddy 2.6 resends a POST without its body). Make the key record atomic and shared by every instance, so that a retry that gets through is replayed.",
	Evidence: "A proxy line that logged several upstream attempts for one request (nginx's $upstream_status list \"504, 201\", HAProxy's " +
		"retries %rc where its last attempt connected, Envoy's attempt count), or one proxy line while the server logged two effects under its request id, both begun while the proxy waited. " +
		"Critical when the server made two effects for the one delivery; a warning when the server was reached twice without proof of a second.",
	Proof:     "A proxy line with several upstream attempts for one request.",
	Inference: "Never: the proxy logged its attempts.",
	Example:   "proxy-retry",
	reads:     []requirement{needRequestIDs, needUpstreamAttempts},
	run:       runProxyRetry,
}

// retrySlack is how far a server's clock may stand from the proxy's for
// its lines to count as begun while the proxy waited.
const retrySlack = time.Second

// proxyRetried returns the proxy line of a delivery the proxy sent to the
// server more than once on its own, with the number of tries it shows:
// the line's own count of upstream attempts, or, where the proxy did not
// log one, the server's two effects under the delivery's request id, both
// begun while the proxy waited on its one line. nil where the client's
// side logged more than one send: a client that reuses its request id is
// request-id-reused's.
func proxyRetried(c *context, d *model.Delivery) (*model.Observation, int) {
	if d.Synthetic || !model.IsWrite(d.Method()) {
		return nil, 0
	}
	var p *model.Observation
	clients := 0
	for _, o := range d.Observations {
		switch o.Tier {
		case model.TierProxy:
			if p != nil {
				return nil, 0
			}
			p = o
		case model.TierClient:
			if clients++; clients > 1 {
				return nil, 0
			}
		}
	}
	if p == nil {
		return nil, 0
	}
	if p.UpstreamTries > 1 {
		return p, p.UpstreamTries
	}
	if p.Time.IsZero() || p.Duration <= 0 {
		return nil, 0
	}
	var inside []*model.Observation
	for _, o := range c.effects(d) {
		if o.Tier == model.TierServer && whileWaiting(p, o) {
			inside = append(inside, o)
		}
	}
	if n := effectCount(inside); n > 1 {
		return p, n
	}
	return nil, 0
}

// whileWaiting reports whether o began while the proxy line p waited on
// its upstreams, give or take retrySlack; any time does where p says not
// how long it waited. False for no p.
func whileWaiting(p, o *model.Observation) bool {
	if p == nil {
		return false
	}
	if p.Time.IsZero() || p.Duration <= 0 {
		return true
	}
	return !o.Time.Before(p.Time.Add(-retrySlack)) && !o.Time.After(p.End().Add(retrySlack))
}

func runProxyRetry(c *context) []*Finding {
	var out []*Finding
	for d := range allDeliveries(c.set) {
		p, tries := proxyRetried(c, d)
		if p == nil {
			continue
		}
		var ev evidence
		ev.add(p)
		effects := c.effects(d)
		for _, o := range effects {
			if o.Tier == model.TierServer {
				ev.add(o)
			}
		}
		var b strings.Builder
		fmt.Fprintf(&b, "The proxy (%s) sent delivery %s to the server %d times on its own", p.Format, d.RequestID, tries)
		if p.Detail != "" {
			fmt.Fprintf(&b, " (%s)", p.Detail)
		}
		severity := Warning
		if n := effectCount(effects); n > 1 {
			severity = Critical
			fmt.Fprintf(&b, ": the server made %s for it (%s), though the client sent once.", plural(n, "effect", "effects"), resultList(uniqueResults(effects)))
		} else if n == 1 {
			fmt.Fprintf(&b, ": the server made one effect for it (%s) and the logs show no other: the other attempt was replayed, did no work, or made an effect no line records.", resultList(uniqueResults(effects)))
		} else {
			b.WriteString(": the client sent once, and no log shows whether either attempt did the work.")
		}
		b.WriteString(" The proxy retries writes on the next upstream; stop it for non-idempotent requests.")
		out = append(out, &Finding{Severity: severity, Intents: intentsOf(c.set, d), Keys: d.Keys, Evidence: ev.sorted(), Narrative: b.String()})
	}
	return out
}

// intentsOf returns the intents a delivery belongs to.
func intentsOf(set *model.Set, d *model.Delivery) []*model.Intent {
	var out []*model.Intent
	for _, in := range set.Built {
		for _, x := range in.Deliveries {
			if x == d {
				out = append(out, in)
			}
		}
	}
	return out
}
