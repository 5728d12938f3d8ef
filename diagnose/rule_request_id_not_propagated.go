package diagnose

import (
	"fmt"

	"github.com/idem-cli/idem/model"
)

var requestIDNotPropagated = &Rule{
	ID:         "request-id-not-propagated",
	Title:      "The tiers name one trip by different request ids",
	Severity:   Info,
	Hygiene:    true,
	Symptom:    "The proxy's and the server's lines of one key never share a request id: each trip shows as two half-deliveries.",
	Hypothesis: "The server makes its own request id instead of reading the proxy's X-Request-Id (zerolog's hlog.RequestIDHandler makes an xid; many frameworks do likewise).",
	Check:      "Compare the proxy's request id with the server's for one request; look for the middleware that sets the server's.",
	Action:     "Have the server take the incoming X-Request-Id (and only make one when none came), or log the proxy's id beside its own.",
	Evidence:   "A key whose deliveries seen only by the proxy and deliveries seen only by the server overlap in time, pairwise, with no request id in common.",
	Proof:      "Proxy-only and server-only deliveries of one key, overlapping, with no request id in common.",
	Inference:  "Never: both tiers' ids are logged.",
	Example:    "request-id-not-propagated",
	Needs:      []model.Tier{model.TierProxy, model.TierServer},
	reads:      []requirement{needProxyServerIDs},
	run:        runRequestIDNotPropagated,
}

// runRequestIDNotPropagated makes one finding for the inputs: the
// logging is what is wrong, not each key.
func runRequestIDNotPropagated(c *context) []*Finding {
	var split []*model.Intent
	var example [2]*model.Delivery
	for _, in := range c.set.Built {
		// Counted first: most intents have trips of one tier only, and
		// need no lists.
		meet := false // one trip joined both tiers: the ids do meet
		np, ns := 0, 0
		for _, d := range in.Deliveries {
			p, s := d.At(model.TierProxy) != nil, d.At(model.TierServer) != nil
			switch {
			case p && s:
				meet = true
			case p:
				np++
			case s:
				ns++
			}
		}
		if meet || np == 0 || ns == 0 {
			continue
		}
		proxies, servers := make([]*model.Delivery, 0, np), make([]*model.Delivery, 0, ns)
		for _, d := range in.Deliveries {
			switch p, s := d.At(model.TierProxy) != nil, d.At(model.TierServer) != nil; {
			case p && !s:
				proxies = append(proxies, d)
			case s && !p:
				servers = append(servers, d)
			}
		}
		var pair [2]*model.Delivery
		for _, p := range proxies {
			ps := tierSpan(p, model.TierProxy)
			for _, s := range servers {
				// The two spans overlap (each tier's own clock; a millisecond
				// clock or skew may put the proxy's start after the server's).
				ss := tierSpan(s, model.TierServer)
				if !ps.start.IsZero() && !ss.start.IsZero() && !ss.start.After(ps.end) && !ps.start.After(ss.end) {
					pair = [2]*model.Delivery{p, s}
					break
				}
			}
			if pair[0] != nil {
				break
			}
		}
		if pair[0] == nil {
			continue
		}
		if example[0] == nil {
			example = pair
		}
		split = append(split, in)
	}
	if len(split) == 0 {
		return nil
	}
	var ev evidence
	ev.delivery(example[0])
	ev.delivery(example[1])
	first := split[0]
	return []*Finding{{Severity: Info, Intents: split, Evidence: ev.sorted(),
		Narrative: fmt.Sprintf("For %s the proxy and the server logged no request id in common: under key %s the proxy named a trip %s at %s and the server, while it ran, %s, so each trip shows as two deliveries.",
			plural(len(split), "key", "keys"), first.Key, example[0].RequestID, hhmmss(example[0].Start()), example[1].RequestID)}}
}
