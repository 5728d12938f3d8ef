package trace

import (
	"strings"
	"time"

	"github.com/idem-cli/idem/model"
)

// An id joins only where it is unique to one trip. Frameworks number
// requests per process (req-1, req-2): two replicas, or a restart, log
// the same id for different trips. So an application's line (a server's
// or a worker's) that finds its id already taken by a line of its tier
// from another input is not joined there: it starts a trip of its own
// for that id in its input, unless an outer tier (a proxy, a client)
// logged the id, which then carried it to both (the proxy's own retry).
// At any tier, an id logged by another input under another key is
// another trip too: the id was reused by two processes, not by a
// client. Within one input an id under two keys stays one delivery,
// which request-id-reused reports.
//
// Where the outer tier's line is read after the split, the trips are
// joined again when their intent is built (joinProcesses); so are two
// inputs' lines of one trip (one process writing two files), which
// start together.

// procKey names the trip an id stands for in one input.
type procKey struct{ id, file string }

// ownProcess returns the delivery line o (whose id found delivery di)
// belongs to: di, or the trip of that id in o's input.
func (c *Correlator) ownProcess(di int32, id string, o *model.Observation, p *prepared) int32 {
	if strings.HasPrefix(id, "trace:") {
		return di // a tracer's id names one trace wherever it is logged
	}
	d := c.deliveries.at(di)
	if d.split {
		if si, ok := c.procs[procKey{id, o.Source.File}]; ok {
			return si
		}
	}
	if !c.otherProcess(d, o) {
		return di
	}
	si := int32(c.deliveries.len())
	c.deliveries.add(cdelivery{first: -1, last: -1, next: -1, interesting: true})
	c.rids.add(c.arena.addPacked(id, p.rid))
	d = c.deliveries.at(di)
	d.split, d.interesting = true, true
	if c.procs == nil {
		c.procs = map[procKey]int32{}
	}
	c.procs[procKey{strings.Clone(id), strings.Clone(o.Source.File)}] = si
	return si
}

// otherProcess reports whether delivery d's lines show o's id in another
// input, for another trip: a line of o's tier from another input, with
// no outer tier's line carrying the id, or under another key.
func (c *Correlator) otherProcess(d *cdelivery, o *model.Observation) bool {
	other, outer, otherKey := false, false, false
	for j := d.first; j >= 0; j = c.obs.at(j).next {
		co := c.obs.at(j)
		if co.tier < o.Tier {
			outer = true
			continue
		}
		if co.tier != o.Tier || c.obsFile(j) == o.Source.File {
			continue
		}
		other = true
		if o.Key != "" && co.key != 0 && c.arena.get(co.key) != o.Key {
			otherKey = true
		}
	}
	switch {
	case !other:
		return false
	case otherKey:
		return true
	default:
		return !outer && o.Tier >= model.TierServer
	}
}

// obsFile is the input observation j was read from.
func (c *Correlator) obsFile(j int32) string {
	if f := c.full(j); f >= 0 {
		return c.fulls[f].Source.File
	}
	return c.sources.list[c.obs.at(j).source][1]
}

// SameStart is how close two inputs' lines of one id and tier must start
// to be one trip written to two files: a retry, even a client's
// immediate one, comes after the first send's answer or failure.
const SameStart = 50 * time.Millisecond

// joinProcesses joins the trips of one id that ownProcess kept apart
// where, once everything is read, they are one: an outer tier's line
// carried the id to both (the other has no line of that tier), or their
// lines start together. It returns how many it joined.
func joinProcesses(in *model.Intent) int {
	if len(in.Deliveries) < 2 {
		return 0
	}
	gone := map[*model.Delivery]bool{}
	for i, a := range in.Deliveries {
		if a.Synthetic || gone[a] {
			continue
		}
		for _, b := range in.Deliveries[i+1:] {
			if b.Synthetic || gone[b] || b.RequestID != a.RequestID || !oneTrip(a, b) {
				continue
			}
			absorbDelivery(a, b)
			gone[b] = true
		}
	}
	return dropJoined(in, gone)
}

// oneTrip reports whether two deliveries of one id, kept apart by input,
// are one trip (see joinProcesses).
func oneTrip(a, b *model.Delivery) bool {
	ea, eb := a.Edge(), b.Edge()
	if ea == nil || eb == nil {
		return false
	}
	switch {
	case ea.Tier < eb.Tier:
		return b.At(ea.Tier) == nil
	case eb.Tier < ea.Tier:
		return a.At(eb.Tier) == nil
	}
	return a.Start().Sub(b.Start()).Abs() <= SameStart && a.Method() == b.Method() && a.Route() == b.Route()
}
