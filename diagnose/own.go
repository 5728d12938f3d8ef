package diagnose

import (
	"regexp"
	"slices"
	"strings"

	"github.com/idem-cli/idem/model"
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
func ownDelivery(d *model.Delivery) bool {
	return strings.HasPrefix(d.RequestID, ownRequestPrefix)
}

// withoutOwnTraffic returns the set the rules look at: idem's own
// deliveries left out of every intent, and intents under a probe's key
// left out whole. It also says how many deliveries were left out.
func withoutOwnTraffic(set *model.Set) (*model.Set, int) {
	own := 0
	// The lists are copied only from the first change on: most logs hold
	// none of idem's traffic, and the set is then returned as it is.
	var intents []*model.Intent
	changed := false
	change := func(i int) {
		if !changed {
			intents = append(make([]*model.Intent, 0, len(set.Built)), set.Built[:i]...)
			changed = true
		}
	}
	for i, in := range set.Built {
		// Every probe's key holds "-idem-": the regexp runs only then.
		if strings.Contains(in.Key, "-idem-") && ownProbeKey.MatchString(in.Key) {
			own += in.Count()
			change(i)
			continue
		}
		var kept []*model.Delivery // made at the first own delivery: nil while none is
		for j, d := range in.Deliveries {
			if ownDelivery(d) {
				own++
				if kept == nil {
					kept = append(make([]*model.Delivery, 0, len(in.Deliveries)), in.Deliveries[:j]...)
				}
				continue
			}
			if kept != nil {
				kept = append(kept, d)
			}
		}
		switch {
		case kept == nil:
			if changed {
				intents = append(intents, in)
			}
		case len(kept) > 0:
			change(i)
			cp := *in
			cp.Deliveries = kept
			cp.Total -= len(in.Deliveries) - len(kept)
			intents = append(intents, &cp)
		default:
			change(i)
		}
	}
	unkeyed := set.Unkeyed
	if j := slices.IndexFunc(set.Unkeyed, ownDelivery); j >= 0 {
		unkeyed = slices.Clip(set.Unkeyed[:j]) // appending copies: the set's own slice stays
		for _, d := range set.Unkeyed[j:] {
			if ownDelivery(d) {
				own++
			} else {
				unkeyed = append(unkeyed, d)
			}
		}
		changed = true
	}
	if !changed {
		return set, 0
	}
	if intents == nil && len(set.Built) > 0 {
		intents = set.Built // only unkeyed deliveries were idem's
	}
	view := *set
	view.Built, view.Unkeyed = intents, unkeyed
	return &view, own
}
