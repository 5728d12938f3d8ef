package trace

import (
	"slices"
	"time"

	"github.com/idem-cli/idem/model"
)

// A line with neither a request id nor a key (a proxy's line of an
// unkeyed request, a server's line) joins nothing by name: counted alone,
// one send seen at the proxy and at the server would be neither joined
// nor said. A proxy's write and a server's join as one unkeyed delivery
// where each is the other's only match: the same method, route and
// status, the same caller where both log one, the server's start within
// the proxy's span give or take the tiers' clock tolerance. The rest stay
// counted as lines without ids (model.Set.Idless): what could not be
// joined, never counted twice.

// idlessTolerance is how far apart a proxy's and a server's clocks, or a
// second-resolution time, may put one trip.
const idlessTolerance = time.Second

// idlessWrite reports whether an id-less line may be joined: a proxy's or
// a server's write, with its time and route.
func idlessWrite(o *model.Observation) bool {
	if o.Tier != model.TierProxy && o.Tier != model.TierServer || o.Time.IsZero() || o.Route == "" {
		return false
	}
	switch o.Method {
	case "POST", "PUT", "PATCH", "DELETE":
		return true
	}
	return false
}

// idlessMatch reports whether proxy line p and server line s may be one
// trip.
func idlessMatch(p, s *model.Observation) bool {
	if p.Method != s.Method || p.Route != s.Route {
		return false
	}
	if p.Status > 0 && s.Status > 0 && p.Status != s.Status && p.UpstreamStatus != s.Status {
		return false
	}
	if p.Client != "" && s.Client != "" && p.Client != s.Client {
		return false
	}
	return !s.Time.Before(p.Time.Add(-idlessTolerance)) && !s.Time.After(p.End().Add(idlessTolerance))
}

// joinIdless joins the id-less proxy and server writes that match one
// each way, each pair one delivery under a name of idem's (shown as no
// tier's id), and counts them out of the lines without ids.
func (c *Correlator) joinIdless() {
	var proxies, servers []*model.Observation
	for _, o := range c.idlessWrites {
		if o.Tier == model.TierProxy {
			proxies = append(proxies, o)
		} else {
			servers = append(servers, o)
		}
	}
	c.idlessWrites = nil
	if len(proxies) == 0 || len(servers) == 0 {
		return
	}
	slices.SortStableFunc(servers, func(a, b *model.Observation) int { return a.Time.Compare(b.Time) })
	match := make([]int, len(proxies)) // the proxy's one server, -1 for none or several
	seen := make([]int, len(servers))  // how many proxies each server matched
	for i, p := range proxies {
		match[i] = -1
		from, _ := slices.BinarySearchFunc(servers, p.Time.Add(-idlessTolerance), func(s *model.Observation, t time.Time) int { return s.Time.Compare(t) })
		n := 0
		for j := from; j < len(servers) && !servers[j].Time.After(p.End().Add(idlessTolerance)); j++ {
			if idlessMatch(p, servers[j]) {
				n++
				seen[j]++
				match[i] = j
			}
		}
		if n != 1 {
			match[i] = -1
		}
	}
	c.joiningIdless = true
	defer func() { c.joiningIdless = false }()
	for i, j := range match {
		if j < 0 || seen[j] != 1 {
			continue
		}
		p, s := proxies[i], servers[j]
		name := "idless:" + p.Source.String()
		p.RequestID, s.RequestID = name, name
		c.Add(p)
		c.Add(s)
		di := int32(c.deliveries.len() - 1)
		d := c.deliveries.at(di)
		d.synthetic = true
		for k := d.first; k >= 0; k = c.obs.at(k).next {
			if f := c.full(k); f >= 0 {
				c.fulls[f].RequestID = "" // no tier logged it
			}
		}
		c.idless[model.TierProxy]--
		c.idless[model.TierServer]--
	}
}
