package diagnose

import (
	"regexp"
	"strings"

	"github.com/idem-cli/idem/trace"
)

// idem's own traffic: `idem replay` sends its requests with a request id
// "idem-replay-…", and its probes under keys derived from the captured
// one ("<key>-idem-<probe>-<8 hex>"). Those deliveries test the server;
// they are no incident, so the rules do not see them and the summary
// counts them apart.

// ownRequestPrefix starts the request id of every request idem replay sends.
const ownRequestPrefix = "idem-replay-"

// ownProbeKey matches a key idem replay derived for a probe.
var ownProbeKey = regexp.MustCompile(`-idem-[a-z][a-z-]*-[0-9a-f]{8}$`)

// ownDelivery reports whether idem replay sent d.
func ownDelivery(d *trace.Delivery) bool {
	return strings.HasPrefix(d.RequestID, ownRequestPrefix)
}

// withoutOwnTraffic returns the set the rules look at: idem's own
// deliveries left out of every intent, and intents under a probe's key
// left out whole. It also says how many deliveries were left out.
func withoutOwnTraffic(set *trace.Set) (*trace.Set, int) {
	own := 0
	var intents []*trace.Intent
	changed := false
	for _, in := range set.Intents {
		if ownProbeKey.MatchString(in.Key) {
			own += max(in.Total, len(in.Deliveries))
			changed = true
			continue
		}
		var kept []*trace.Delivery
		for _, d := range in.Deliveries {
			if ownDelivery(d) {
				own++
				continue
			}
			kept = append(kept, d)
		}
		switch {
		case len(kept) == len(in.Deliveries):
			intents = append(intents, in)
		case len(kept) > 0:
			cp := *in
			cp.Deliveries = kept
			cp.Total -= len(in.Deliveries) - len(kept)
			intents = append(intents, &cp)
			changed = true
		default:
			changed = true
		}
	}
	var unkeyed []*trace.Delivery
	for _, d := range set.Unkeyed {
		if ownDelivery(d) {
			own++
			changed = true
			continue
		}
		unkeyed = append(unkeyed, d)
	}
	if !changed {
		return set, 0
	}
	view := *set
	view.Intents, view.Unkeyed = intents, unkeyed
	return &view, own
}
