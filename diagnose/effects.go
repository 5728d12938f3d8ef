package diagnose

import "github.com/idem-cli/idem/model"

// Effects returns an intent's business effects as the rules count them,
// so that `idem trace`, the report's narratives, diagrams and JSON agree:
// effect lines at the server and worker tiers (or, where no input logs an
// effect line at all, a server's non-replayed 2xx to a write), plus the
// provider's records, each result id once per tier.
func Effects(set *model.Set, in *model.Intent) []*model.Observation {
	c := &context{set: set}
	c.effectInputs, c.firstSeen = effectIndex(set)
	var out []*model.Observation
	type seenKey struct {
		tier model.Tier
		id   string
	}
	seen := map[seenKey]bool{}
	keep := func(o *model.Observation) {
		if o.ResultID != "" {
			k := seenKey{o.Tier, o.ResultID}
			if seen[k] {
				return
			}
			seen[k] = true
		}
		out = append(out, o)
	}
	for _, d := range in.Deliveries {
		for _, o := range c.effects(d) {
			keep(o)
		}
		for _, o := range d.Observations {
			if o.Effect && o.Tier == model.TierProvider {
				keep(o)
			}
		}
	}
	return out
}
