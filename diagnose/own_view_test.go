package diagnose

import (
	"fmt"
	"strings"
	"testing"

	"github.com/idem-cli/idem/model"
)

// withoutOwnTrafficCopying is withoutOwnTraffic as it was, copying every
// list: the view it returns must read the same.
func withoutOwnTrafficCopying(set *model.Set) (*model.Set, int) {
	own := 0
	var intents []*model.Intent
	changed := false
	for _, in := range set.Built {
		if ownProbeKey.MatchString(in.Key) {
			own += in.Count()
			changed = true
			continue
		}
		var kept []*model.Delivery
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
	var unkeyed []*model.Delivery
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
	view.Built, view.Unkeyed = intents, unkeyed
	return &view, own
}

func TestWithoutOwnTrafficReadsAsTheCopy(t *testing.T) {
	// Every mix of ordinary (o) and own (x) deliveries, keyed and not, and
	// probes' keys (p).
	shapes := []string{"", "o", "x", "p", "oo", "ox", "xo", "xx", "oxo", "xox", "p|o", "o|p", "ox|xo|oo", "oo|oo", "x|o|p|xx"}
	for _, intents := range shapes {
		for _, unkeyed := range []string{"", "o", "x", "ox", "xo", "oxox", "oo"} {
			set := &model.Set{}
			n := 0
			delivery := func(c byte) *model.Delivery {
				n++
				if c == 'x' {
					return &model.Delivery{RequestID: fmt.Sprintf("idem-replay-%d", n)}
				}
				return &model.Delivery{RequestID: fmt.Sprintf("r-%d", n)}
			}
			for i, shape := range strings.Split(intents, "|") {
				in := &model.Intent{ID: fmt.Sprint(i), Key: fmt.Sprintf("k-%d", i), Total: len(shape) + 1}
				if strings.HasPrefix(shape, "p") {
					in.Key += "-idem-lost-0a1b2c3d"
					shape = shape[1:]
				}
				for j := 0; j < len(shape); j++ {
					in.Deliveries = append(in.Deliveries, delivery(shape[j]))
				}
				set.Built = append(set.Built, in)
			}
			for j := 0; j < len(unkeyed); j++ {
				set.Unkeyed = append(set.Unkeyed, delivery(unkeyed[j]))
			}
			got, gotOwn := withoutOwnTraffic(set)
			want, wantOwn := withoutOwnTrafficCopying(set)
			if g, w := describeView(got, gotOwn), describeView(want, wantOwn); g != w || (got == set) != (want == set) {
				t.Errorf("intents %q, unkeyed %q:\n got %s (the set itself: %v)\nwant %s (%v)", intents, unkeyed, g, got == set, w, want == set)
			}
		}
	}
}

func describeView(set *model.Set, own int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "own %d; intents", own)
	for _, in := range set.Built {
		fmt.Fprintf(&b, " %s/%d[", in.Key, in.Total)
		for _, d := range in.Deliveries {
			fmt.Fprintf(&b, "%s ", d.RequestID)
		}
		b.WriteString("]")
	}
	b.WriteString("; unkeyed")
	for _, d := range set.Unkeyed {
		fmt.Fprintf(&b, " %s", d.RequestID)
	}
	return b.String()
}
