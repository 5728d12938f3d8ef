package trace

import (
	"hash/maphash"
	"slices"
	"strconv"
	"strings"

	"github.com/idem-cli/idem/model"
)

// Prepare works out, on a reader's parallel worker, what Add would
// otherwise compute on the one goroutine that correlates: each id's hash
// and packed form, and whether the observation is plain or notable.
func (c *Correlator) Prepare(b *model.Batch) {
	pre, _ := b.Scratch.([]prepared)
	pre = slices.Grow(pre[:0], len(b.Obs))[:len(b.Obs)]
	for i := range b.Obs {
		prepare(&b.Obs[i], &pre[i])
	}
	b.Scratch = pre
}

// Consume adds a prepared batch's observations, in order.
func (c *Correlator) Consume(b *model.Batch) {
	pre, _ := b.Scratch.([]prepared)
	if len(pre) != len(b.Obs) {
		c.Prepare(b)
		pre = b.Scratch.([]prepared)
	}
	for i := range b.Obs {
		if i%prefetchWindow == 0 {
			end := min(i+prefetchWindow, len(b.Obs))
			c.prefetch(b.Obs[i:end], pre[i:end])
		}
		c.add(&b.Obs[i], &pre[i])
	}
}

// prefetchWindow is how many observations are fetched ahead at once: few
// enough that what is fetched is still in the cache when it is used.
const prefetchWindow = 128

// prefetch touches the request-id index where a run of observations will
// look (see hashIndex.touch); Prepare has hashed their ids already.
func (c *Correlator) prefetch(obs []model.Observation, pre []prepared) {
	if len(obs) < 16 {
		return // too few to be worth it
	}
	var sum uint64
	for i := range obs {
		o := &obs[i]
		sum += c.byID.touch(pre[i].ridHash)
		// The observations were written on other cores: reading a field
		// in each cache line Add reads (and the first byte of the strings
		// it stores) fetches them all at once instead of one by one.
		sum += uint64(len(o.Method)+len(o.Detail)+len(o.Key)+len(o.Client)+len(o.Message)) + uint64(o.Source.Line)
		if o.Route != "" {
			sum += uint64(o.Route[0])
		}
		if o.Client != "" {
			sum += uint64(o.Client[0])
		}
	}
	c.touched += sum
}

// Add attributes one observation to its delivery. The observation is
// copied; the caller may reuse it. Add may not be called after Set.
func (c *Correlator) Add(o *model.Observation) {
	var p prepared
	prepare(o, &p)
	c.add(o, &p)
}

// add is Add with the observation's preparation done.
func (c *Correlator) add(o *model.Observation, p *prepared) {
	id := o.RequestID
	if model.IsSpanRef(id) && c.holdSpan(o) {
		return // named once the whole trace is read (spans.go)
	}
	c.tiers[o.Tier>>6] |= 1 << (o.Tier & 63)
	if !c.joiningIdless {
		c.supplied(o, p.fields) // a joined id-less line was counted as read
	}
	synthetic := false
	if id == "" {
		switch {
		case o.ActivityID() != "" && o.WorkflowID() != "":
			// A workflow activity attempt is the worker's delivery.
			id = "activity:" + o.WorkflowID() + "/" + o.ActivityID() + "#" + strconv.Itoa(o.Attempt)
			c.learnActivity(o)
		case o.WorkflowID() != "" && o.ActivityType() != "":
			// The Temporal SDK's own lines ("Activity error.", "Activity
			// complete after timeout.") name the workflow, run, activity
			// type and attempt but not the activity id: they join the
			// attempt of that type last seen in that run.
			aid := c.activityOf(o)
			if !strings.HasPrefix(aid, "type:") {
				o.Workflow.ActivityID = aid // the line is about that attempt: say so
			}
			id = "activity:" + o.WorkflowID() + "/" + aid + "#" + strconv.Itoa(o.Attempt)
		case o.Key != "" || o.KeyHash != "":
			id = o.Tier.String() + "@" + o.Source.String()
			synthetic = true
		default:
			if o.Effect {
				c.orphans = append(c.orphans, o.Clone())
			} else if o.Tier < model.TierWorker {
				c.idless[o.Tier]++
				if idlessWrite(o) {
					c.idlessWrites = append(c.idlessWrites, o.Clone())
				}
			}
			return
		}
	}
	if synthetic || id != o.RequestID {
		p.rid, p.ridHash = pack(id), maphash.String(idSeed, id)
	}
	di, ok := c.byID.findOrAdd(p.ridHash, int32(c.deliveries.len()), func(di int32) bool {
		return c.arena.is(*c.rids.at(di), id, p.rid)
	})
	source, sourceOK := c.sources.id(o.Format, processFile(o))
	if ok && !synthetic && id == o.RequestID {
		di = c.ownProcess(di, id, o, p, source, sourceOK) // an id taken in another input may be another trip
	}
	if !ok {
		c.deliveries.add(cdelivery{first: -1, last: -1, next: -1, synthetic: synthetic})
		c.rids.add(c.arena.addPacked(id, p.rid))
	}
	d := c.deliveries.at(di)
	method, methodOK := c.methodID(o.Method, p.method)
	co := cobs{time: 0, dur: durBits(o.Duration), route: c.routes.ref(o.Route, p.routeID), client: c.arena.addPacked(o.Client, p.client),
		method: uint8(method), source: source, status: int16(o.Status), upstream: int16(o.UpstreamStatus), line: int32(o.Source.Line),
		next: -1, tier: o.Tier, outcome: o.Outcome}
	if !o.Time.IsZero() {
		co.time = o.Time.UnixNano()
	}
	if o.Replayed {
		co.flags |= flagReplayed
	}
	if o.RetryAfter {
		co.flags |= flagRetryAfter
	}
	if o.EndOrStart {
		co.flags |= flagEndOrStart
		c.endOrStart = true
	}
	full := int32(-1)
	extra := false
	if t, ok := c.texts.id(o.Detail, o.Message); ok && p.plain && methodOK && sourceOK {
		co.text = t
		extra = p.extra
	} else {
		cp := o.Clone()
		if !synthetic {
			cp.RequestID = c.arena.own(*c.rids.at(di)) // a line shows only an id its tier logged
		}
		full = int32(len(c.fulls))
		c.fulls = append(c.fulls, cp)
		co.flags |= flagFull
	}
	if p.notable || !extra && p.extra {
		// A browser's line kept whole is worth a look, as before.
		d.interesting = true
	}
	if o.Scope != "" {
		c.anyScope = true
	}
	if o.PreviousKey != "" && o.PreviousKey != o.Key {
		if c.prevKeys == nil {
			c.prevKeys = map[string]bool{}
		}
		c.prevKeys[strings.Clone(o.PreviousKey)] = true
	}
	if o.Key != "" {
		// Compared as stored: unpacking the first key would allocate.
		first := c.deliveryKeyRef(d)
		if first == 0 {
			// The delivery's first key names its intent, unless a scope
			// does too (see namedWhileRead).
			d.name = p.name
		}
		if first != 0 && !c.arena.is(first, o.Key, p.key) {
			d.interesting = true
			if !d.multiKey {
				d.multiKey = true
				if c.extraKeys == nil {
					c.extraKeys = map[int32][]string{}
				}
				// Its own copy: the rich delivery keeps it after the
				// store is released.
				c.extraKeys[di] = []string{c.arena.own(first)}
			}
			if !slices.Contains(c.extraKeys[di], o.Key) {
				c.extraKeys[di] = append(c.extraKeys[di], strings.Clone(o.Key))
			}
		}
		co.key = c.arena.addPacked(o.Key, p.key)
	}
	if (o.Key != "" || o.KeyHash != "") && !d.keyed {
		d.keyed = true
		c.keyed++
	}
	if o.KeyHash != "" && c.keyHash(di) == 0 {
		if c.keyHashes == nil {
			c.keyHashes = map[int32]aref{}
		}
		c.keyHashes[di] = c.arena.add(o.KeyHash)
	}
	if extra {
		c.addExtra(o, &co, int32(c.obs.len()))
	}
	oi := c.obs.add(co)
	if p.fpHash != 0 && (extra || full >= 0) {
		c.fpSeen.add(fpSeen{hash: p.fpHash, di: di, oi: oi})
	}
	if p.altHash != 0 || c.alts.len() > 0 {
		c.addAlt(oi, p.altHash)
	}
	if full >= 0 {
		c.fullObs = append(c.fullObs, oi)
	}
	if d.first < 0 {
		d.first = oi
	} else {
		c.obs.at(d.last).next = oi
		d.interesting = d.interesting || c.sameTierTwice(d, o.Tier, oi)
	}
	d.last = oi
}

// addAlt keeps the hash of observation oi's other request id: all the
// join needs (see joinByAltID), in 4 bytes a line where the id would take
// 24. The list is made when the first line carries one: most logs have
// none, and pay nothing.
func (c *Correlator) addAlt(oi int32, h uint32) {
	for int32(c.alts.len()) < oi {
		c.alts.add(0)
	}
	c.alts.add(h)
}

// altOf is the hash of observation i's other request id; 0 for none.
func (c *Correlator) altOf(i int32) uint32 {
	if int(i) >= c.alts.len() {
		return 0
	}
	return *c.alts.at(i)
}

// supplied adds what o carries to its input's supply at its tier. Lines
// come in runs of one file and tier: the last supply is tried first.
func (c *Correlator) supplied(o *model.Observation, f model.Field) {
	if i := c.lastSupply; i < len(c.supplies) && c.supplies[i].Tier == o.Tier && c.supplies[i].File == o.Source.File {
		c.supplies[i].Fields |= f
		c.supplies[i].Lines++
		c.supplies[i].Saw(o.Time)
		return
	}
	for i := range c.supplies {
		if c.supplies[i].Tier == o.Tier && c.supplies[i].File == o.Source.File {
			c.supplies[i].Fields |= f
			c.supplies[i].Lines++
			c.supplies[i].Saw(o.Time)
			c.lastSupply = i
			return
		}
	}
	c.lastSupply = len(c.supplies)
	c.supplies = append(c.supplies, model.Supply{File: strings.Clone(o.Source.File), Tier: o.Tier, Lines: 1, Fields: f})
	c.supplies[c.lastSupply].Saw(o.Time)
}

// methodID is c.methods.id(m, ""), by the method's code where it has one.
func (c *Correlator) methodID(m string, code uint8) (uint16, bool) {
	if code != 0 {
		if id := c.methodIDs[code]; id != 0 {
			return id - 1, true
		}
	}
	id, ok := c.methods.id(m, "")
	if ok && code != 0 {
		c.methodIDs[code] = id + 1
	}
	return id, ok
}

// activityKey names an activity attempt by what the SDK's own lines log.
type activityKey struct {
	workflow, run, typ string
	attempt            int
}

// learnActivity remembers which activity id ran an attempt of a type.
func (c *Correlator) learnActivity(o *model.Observation) {
	if o.ActivityType() == "" {
		return
	}
	if c.activities == nil {
		c.activities = map[activityKey]string{}
	}
	k := activityKey{o.WorkflowID(), o.RunID(), o.ActivityType(), o.Attempt}
	if c.activities[k] != o.ActivityID() {
		c.activities[activityKey{strings.Clone(k.workflow), strings.Clone(k.run), strings.Clone(k.typ), k.attempt}] = strings.Clone(o.ActivityID())
	}
}

// activityOf is the activity id of the attempt o's line is about, or its
// type when no line of the attempt named the id (yet).
func (c *Correlator) activityOf(o *model.Observation) string {
	if id, ok := c.activities[activityKey{o.WorkflowID(), o.RunID(), o.ActivityType(), o.Attempt}]; ok {
		return id
	}
	return "type:" + o.ActivityType()
}

// sameTierTwice reports whether the delivery already had an observation at
// tier: a request id seen twice by one tier may be reused.
func (c *Correlator) sameTierTwice(d *cdelivery, t model.Tier, except int32) bool {
	for i := d.first; i >= 0 && i != except; i = c.obs.at(i).next {
		if c.obs.at(i).tier == t {
			return true
		}
	}
	return false
}
