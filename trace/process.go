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
// from another process (another input, or in an export of several, lines
// under other labels: another pod's) is not joined there: it starts a
// trip of its own for that id in its process, unless an outer tier (a proxy, a client)
// logged the id, which then carried it to both (the proxy's own retry).
// At any tier, an id logged by another process under another key is
// another trip too: the id was reused by two processes, not by a
// client. Within one process an id under two keys stays one delivery,
// which request-id-reused reports.
//
// Where the outer tier's line is read after the split, the trips are
// joined again once reading is over (rejoinProcesses); so are two
// inputs' lines of one trip (one process writing two files), which
// start together.

// procKey names the trip an id stands for in one process: one input (and
// the process its lines name, Observation.Process), and within an export
// of several, the labels the aggregator gave its lines (a pod's, a
// container's).
type procKey struct{ id, file, labels string }

// processFile is o's input and, where the line names it, the process
// that wrote it: two replicas logging to one file are two processes. It
// is what the correlator's source table keeps as a line's file
// (fileOf takes the process off again).
func processFile(o *model.Observation) string {
	if o.Process == "" {
		return o.Source.File
	}
	return o.Source.File + "\x00" + o.Process
}

// fileOf splits what processFile made.
func fileOf(s string) (file, process string) {
	file, process, _ = strings.Cut(s, "\x00")
	return file, process
}

// ownProcess returns the delivery line o (whose id found delivery di)
// belongs to: di, or the trip of that id in o's input.
func (c *Correlator) ownProcess(di int32, id string, o *model.Observation, p *prepared, source uint16, sourceOK bool) int32 {
	if strings.HasPrefix(id, "trace:") {
		return di // a tracer's id names one trace wherever it is logged
	}
	d := c.deliveries.at(di)
	if d.split {
		if si, ok := c.procs[procKey{id, processFile(o), o.Labels}]; ok {
			return si
		}
	}
	if !c.otherProcess(d, o, source, sourceOK) {
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
	c.procs[procKey{strings.Clone(id), strings.Clone(processFile(o)), strings.Clone(o.Labels)}] = si
	c.splits = append(c.splits, [2]int32{di, si})
	return si
}

// otherProcess reports whether delivery d's lines show o's id in another
// input, for another trip: a line of o's tier from another input, with
// no outer tier's line carrying the id, or under another key.
func (c *Correlator) otherProcess(d *cdelivery, o *model.Observation, source uint16, sourceOK bool) bool {
	other, outer, otherKey := false, false, false
	for j := d.first; j >= 0; j = c.obs.at(j).next {
		co := c.obs.at(j)
		if co.tier < o.Tier {
			outer = true
			continue
		}
		if co.tier != o.Tier || c.sameProcess(j, o, source, sourceOK) {
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

// sameProcess reports whether observation j and o were written by one
// process, as far as the logs tell: one input, with the same labels (a
// line with labels is kept whole; source is o's input's number).
func (c *Correlator) sameProcess(j int32, o *model.Observation, source uint16, sourceOK bool) bool {
	if f := c.full(j); f >= 0 {
		return c.fulls[f].Source.File == o.Source.File && c.fulls[f].Labels == o.Labels && c.fulls[f].Process == o.Process
	}
	co := c.obs.at(j)
	return o.Labels == "" && (sourceOK && co.source == source || c.sources.list[co.source][1] == processFile(o))
}

// sameStart is how close two inputs' lines of one id and tier must start
// to be one trip written to two files: a retry, even a client's
// immediate one, comes after the first send's answer or failure.
const sameStart = 50 * time.Millisecond

// rejoinProcesses joins, once everything is read, the trips of one id
// that ownProcess kept apart and that are one after all: an outer tier's
// line carried the id to both (the other has no line of that tier), or
// their lines start together, under one key, method and route. The trip
// joined is left empty, and counted as joined.
func (c *Correlator) rejoinProcesses() {
	for _, p := range c.splits {
		a, b := c.deliveries.at(p[0]), c.deliveries.at(p[1])
		if a.first < 0 || b.first < 0 || !c.oneTrip(a, b) {
			continue
		}
		c.obs.at(a.last).next = b.first
		a.last = b.last
		if b.keyed && !a.keyed {
			a.keyed = true
		} else if b.keyed {
			c.keyed--
		}
		if h, ok := c.keyHashes[p[1]]; ok {
			if _, has := c.keyHashes[p[0]]; !has {
				c.keyHashes[p[0]] = h
			}
			delete(c.keyHashes, p[1])
		}
		*b = cdelivery{first: -1, last: -1, next: -1}
		c.joined.Add(1)
	}
	c.splits, c.procs = nil, nil
}

// tripOf is what oneTrip compares of a compact delivery: its outermost
// tier, when that tier saw it start, its method, route and key.
type tripOf struct {
	edge          model.Tier
	start         int64
	method, route string
	key           aref
	tiers         [4]uint64
}

func (c *Correlator) trip(d *cdelivery) tripOf {
	t := tripOf{edge: 255}
	for j := d.first; j >= 0; j = c.obs.at(j).next {
		co := c.obs.at(j)
		t.tiers[co.tier>>6] |= 1 << (co.tier & 63)
		at := c.obsTime(j).UnixNano()
		if co.tier < t.edge || co.tier == t.edge && at < t.start {
			t.edge, t.start = co.tier, at
		}
		if m := c.methods.list[co.method][0]; t.method == "" && m != "" {
			t.method = m
		}
		if t.route == "" && co.route != 0 {
			t.route = c.arena.get(co.route)
		}
		if t.key == 0 {
			t.key = co.key
		}
	}
	return t
}

func (t *tripOf) has(tier model.Tier) bool { return t.tiers[tier>>6]&(1<<(tier&63)) != 0 }

// oneTrip reports whether two deliveries of one id, kept apart by input,
// are one trip (see rejoinProcesses).
func (c *Correlator) oneTrip(a, b *cdelivery) bool {
	ta, tb := c.trip(a), c.trip(b)
	if ta.key != 0 && tb.key != 0 && !c.arena.same(ta.key, tb.key) {
		return false
	}
	switch {
	case ta.edge < tb.edge:
		return !tb.has(ta.edge)
	case tb.edge < ta.edge:
		return !ta.has(tb.edge)
	}
	gap := time.Duration(ta.start - tb.start).Abs()
	return gap <= sameStart && ta.method == tb.method && ta.route == tb.route
}
