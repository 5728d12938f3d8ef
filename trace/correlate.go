// Package trace correlates observations (see the model package) into a
// model.Set: deliveries by request id, intents by key, with a compact
// store for what is only counted.
package trace

import (
	"cmp"
	"hash/maphash"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idem-cli/idem/model"
)

// MaxDeliveriesBuilt and MaxObservationsBuilt bound what one intent or
// delivery keeps in full: the first and last halves are kept, the rest
// counted.
const (
	MaxDeliveriesBuilt   = 200
	MaxObservationsBuilt = 200
)

// Correlator builds a Set from observations added in input order. The
// order of Add calls decides tie-breaks, so the same inputs always give the
// same Set. It keeps plain observations compact (see store.go) and builds
// rich deliveries and intents only for those worth a rule's look.
type Correlator struct {
	// ScopeRoute and ScopeMethod add the route and method to each intent's
	// scope (see Config.Scope).
	ScopeRoute, ScopeMethod bool
	// Build says what Set builds besides what is worth a look on its own;
	// NewCorrelator sets DefaultBuild.
	Build Build

	obs        chunked[cobs]
	fulls      []*model.Observation
	deliveries chunked[cdelivery]
	rids       chunked[aref] // each delivery's request id
	// extraKeys holds the keys of the few deliveries whose request id
	// carried several (cdelivery.multiKey).
	extraKeys map[int32][]string
	// anyScope says an observation carried a scope: names are then
	// worked out after reading (see namedWhileRead).
	anyScope bool
	// singles has a bit for each delivery that is the only, plain
	// delivery of its intent, which has no cintent (see Set).
	singles bitset
	// intentExtras holds the scopes and hash-only keys of compact intents.
	intentExtras []intentExtra
	// byID finds a delivery by a 64-bit hash of its request id.
	byID hashIndex
	// tiers has a bit for each tier seen (Set.Tiers is made from it).
	tiers [4]uint64
	keyed int // deliveries that carry a key or a key hash
	// keyHashes holds the first key hash each delivery logged, for the
	// few logs that carry hashes.
	keyHashes map[int32]aref
	touched   uint64 // what prefetch read, kept so that the reads are not optimised away
	arena     arena
	methods   pairTable
	sources   pairTable
	// fullObs[i] is the observation kept whole as fulls[i]; both grow in
	// observation order, so a binary search finds one (4 bytes each,
	// where application logs keep most lines whole).
	fullObs []int32
	texts   pairTable
	// methodIDs[code] is methods' number for methodCode code, plus one;
	// 0 until that method is first seen.
	methodIDs [methodCodes]uint16
	routes    interner
	orphans   []*model.Observation
	// activities maps an activity attempt to its id, learned from the
	// lines that name both (see activityOf).
	activities map[activityKey]string
	// joined counts the browser entries joined to a delivery by key (see
	// joinByKey): each is one delivery fewer.
	joined atomic.Int64
	// idless counts the client, proxy and server lines with no id at all.
	idless [model.TierWorker]int
	// unkeyedCount counts the deliveries without a key (see unkeyed).
	unkeyedCount int
}

// Expect sizes the request-id index for inputs of this many bytes (about
// one request per 500 bytes of a plain file), so that it does not grow by
// rehashing a million times over. Readers call it before the first batch.
func (c *Correlator) Expect(size int64) {
	if n := size / 500; n > 1024 && c.byID.n == 0 {
		c.byID = newHashIndex(int(min(n, 32<<20)))
	}
}

// NewCorrelator makes an empty correlator that builds what DefaultBuild
// says. scope lists the fields that scope a key (see the config's
// "scope"); "route" and "method" among them add the route and method to
// each intent's scope.
func NewCorrelator(scope []string) *Correlator {
	c := &Correlator{texts: pairTable{limit: maxTexts}, methods: pairTable{limit: 1 << 8}, Build: DefaultBuild()}
	c.routes = interner{a: &c.arena, limit: 1 << 16}
	for _, s := range scope {
		c.ScopeRoute = c.ScopeRoute || s == "route"
		c.ScopeMethod = c.ScopeMethod || s == "method"
	}
	return c
}

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
	c.tiers[o.Tier>>6] |= 1 << (o.Tier & 63)
	id := o.RequestID
	synthetic := false
	if id == "" {
		switch {
		case o.ActivityID != "" && o.WorkflowID != "":
			// A workflow activity attempt is the worker's delivery.
			id = "activity:" + o.WorkflowID + "/" + o.ActivityID + "#" + strconv.Itoa(o.Attempt)
			c.learnActivity(o)
		case o.WorkflowID != "" && o.ActivityType != "":
			// The Temporal SDK's own lines ("Activity error.", "Activity
			// complete after timeout.") name the workflow, run, activity
			// type and attempt but not the activity id: they join the
			// attempt of that type last seen in that run.
			aid := c.activityOf(o)
			if !strings.HasPrefix(aid, "type:") {
				o.ActivityID = aid // the line is about that attempt: say so
			}
			id = "activity:" + o.WorkflowID + "/" + aid + "#" + strconv.Itoa(o.Attempt)
		case o.Key != "" || o.KeyHash != "":
			id = o.Tier.String() + "@" + o.Source.String()
			synthetic = true
		default:
			if o.Effect {
				c.orphans = append(c.orphans, o.Clone())
			} else if o.Tier < model.TierWorker {
				c.idless[o.Tier]++
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
	if !ok {
		c.deliveries.add(cdelivery{first: -1, last: -1, next: -1, synthetic: synthetic})
		c.rids.add(c.arena.addPacked(id, p.rid))
	}
	d := c.deliveries.at(di)
	method, methodOK := c.methodID(o.Method, p.method)
	source, sourceOK := c.sources.id(o.Format, o.Source.File)
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
	full := int32(-1)
	if t, ok := c.texts.id(o.Detail, o.Message); ok && p.plain && methodOK && sourceOK {
		co.text = t
	} else {
		cp := o.Clone()
		cp.RequestID = c.arena.own(*c.rids.at(di))
		full = int32(len(c.fulls))
		c.fulls = append(c.fulls, cp)
		co.flags |= flagFull
	}
	if p.notable {
		d.interesting = true
	}
	if o.Scope != "" {
		c.anyScope = true
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
	oi := c.obs.add(co)
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
	if o.ActivityType == "" {
		return
	}
	if c.activities == nil {
		c.activities = map[activityKey]string{}
	}
	k := activityKey{o.WorkflowID, o.RunID, o.ActivityType, o.Attempt}
	if c.activities[k] != o.ActivityID {
		c.activities[activityKey{strings.Clone(k.workflow), strings.Clone(k.run), strings.Clone(k.typ), k.attempt}] = strings.Clone(o.ActivityID)
	}
}

// activityOf is the activity id of the attempt o's line is about, or its
// type when no line of the attempt named the id (yet).
func (c *Correlator) activityOf(o *model.Observation) string {
	if id, ok := c.activities[activityKey{o.WorkflowID, o.RunID, o.ActivityType, o.Attempt}]; ok {
		return id
	}
	return "type:" + o.ActivityType
}

// deliveryKeyRef is the first key any observation of d carried, as stored.
func (c *Correlator) deliveryKeyRef(d *cdelivery) aref {
	for i := d.first; i >= 0; i = c.obs.at(i).next {
		if k := c.obs.at(i).key; k != 0 {
			return k
		}
	}
	return 0
}

// deliveryKey is the first key any observation of d carried.
func (c *Correlator) deliveryKey(d *cdelivery) string {
	for i := d.first; i >= 0; i = c.obs.at(i).next {
		if k := c.obs.at(i).key; k != 0 {
			return c.arena.get(k)
		}
	}
	return ""
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

// Set groups the deliveries into intents and orders everything. Intents
// with one plain, answered delivery are counted but not built, unless
// c.Build asks for them: nothing in them needs a look on its own, and they
// are most of a big log.
func (c *Correlator) Set(inputs []*model.Input) *model.Set {
	s := &model.Set{Inputs: inputs, Orphans: c.orphans, Tiers: map[model.Tier]bool{}, Idless: map[model.Tier]int{}}
	st := &store{c: c}
	for t, n := range c.idless {
		if n > 0 {
			s.Idless[model.Tier(t)] = n
		}
	}
	for t := range 256 {
		if c.tiers[t>>6]&(1<<(t&63)) != 0 {
			s.Tiers[model.Tier(t)] = true
		}
	}
	// Reading is over: the request-id index is not needed any more; its
	// memory becomes the intent index.
	byIntent, dirty := c.byID.reuse(c.keyed)
	// Learn which raw key each logged hash stands for.
	hashToKey := map[string]string{}
	nd := int32(c.deliveries.len())
	for i := int32(0); i < nd && len(c.keyHashes) > 0; i++ {
		d := c.deliveries.at(i)
		if c.keyHash(i) == 0 {
			continue
		}
		if k := c.deliveryKey(d); k != "" {
			hashToKey[c.arena.get(c.keyHash(i))] = k
		}
	}
	needHashes := len(hashToKey) > 0
	for i := int32(0); i < nd && len(c.keyHashes) > 0; i++ {
		if d := c.deliveries.at(i); c.keyHash(i) != 0 && c.deliveryKey(d) == "" {
			needHashes = true
		}
	}
	if needHashes {
		for i := int32(0); i < nd; i++ {
			if k := c.deliveryKey(c.deliveries.at(i)); k != "" {
				hashToKey[model.HashKey(k)] = k
			}
		}
	}
	var intents []cintent
	if nd >= shardFrom && c.namedWhileRead() {
		intents, st.intents = c.groupSharded(s, byIntent, dirty, nd)
	} else {
		if dirty {
			clear(byIntent.slots)
		}
		intents, st.intents = c.groupInOrder(s, byIntent, nd, hashToKey)
	}
	// First what the observations make worth a look, then what Build
	// asks to compare with them: the losses are read from the built
	// intents, as their readers will see them.
	var built []int32
	for i := range intents {
		if intents[i].interesting {
			built = append(built, int32(i))
		}
	}
	s.Intents = c.buildIntents(intents, built)
	intents, built = c.markWanted(intents, s.Intents)
	s.Intents = append(s.Intents, c.buildIntents(intents, built)...)
	st.cintents = intents
	sortIntents(s.Intents)
	s.Store = st
	return s
}

// store is what a Set keeps of its correlator (see model.Store): the
// intents it only counted, built when they are looked up.
type store struct {
	c        *Correlator
	cintents []cintent
	intents  int
	// deliveries is how many the inputs held, kept when the store is
	// released; until then it is worked out each time, since each
	// intent built on demand may join a browser's entries to a trip.
	deliveries int
	released   bool
}

// Counts says how many intents, unkeyed deliveries and deliveries the
// inputs hold.
func (st *store) Counts() model.Counts {
	n := model.Counts{Intents: st.intents, Unkeyed: st.c.unkeyedCount, Deliveries: st.deliveries}
	if !st.released {
		n.Deliveries = st.c.deliveries.len() - int(st.c.joined.Load())
	}
	return n
}

// Release drops the compact store: the rich objects own their memory.
func (st *store) Release() {
	if st.released {
		return
	}
	st.deliveries = st.c.deliveries.len() - int(st.c.joined.Load())
	st.c.release()
	st.cintents, st.released = nil, true
}

// Find builds the intents that were only counted and whose key q
// matches.
func (st *store) Find(q *model.KeyQuery) []*model.Intent {
	c := st.c
	var out []*model.Intent
	for i := range st.cintents {
		ci := &st.cintents[i]
		if !ci.interesting && q.Match(c.intentKey(ci)) {
			out = append(out, c.intent(ci, nil))
		}
	}
	// Single deliveries carry a raw key: compare it as stored, packed,
	// rather than unpack a million keys.
	var packs [len(q.Forms)]packed
	for i, f := range q.Forms {
		packs[i] = pack(f)
	}
	for di := int32(0); di < int32(c.deliveries.len()); di++ {
		if !c.singles.has(di) {
			continue
		}
		d := c.deliveries.at(di)
		ref := c.deliveryKeyRef(d)
		found := q.ByHash && model.HashKey(c.arena.get(ref)) == q.Key
		for i, f := range q.Forms {
			if found || c.arena.is(ref, f, packs[i]) {
				found = true
				break
			}
		}
		if found {
			ci := cintent{extra: -1, first: di, last: di, n: 1}
			out = append(out, c.intent(&ci, nil))
		}
	}
	return out
}

// buildIntents builds the compact intents at idx, side by side: building
// reads the store only. It returns nil for none.
func (c *Correlator) buildIntents(intents []cintent, idx []int32) []*model.Intent {
	if len(idx) == 0 {
		return nil
	}
	out := written(make([]*model.Intent, len(idx)))
	var touched atomic.Uint64
	inParallel(len(idx), func(lo, hi int) {
		var s slab
		var t uint64
		for j := lo; j < hi; j++ {
			// The intents are far apart in the store: reading the first
			// line of one a few ahead lets its fetch overlap this build.
			if k := j + touchAhead; k < hi {
				t += uint64(c.obs.at(c.deliveries.at(intents[idx[k]].first).first).key)
			}
			out[j] = c.intent(&intents[idx[j]], &s)
		}
		touched.Add(t)
	})
	c.touched += touched.Load()
	return out
}

// touchAhead is how many intents ahead buildIntents reads the first line.
const touchAhead = 4

func sortIntents(intents []*model.Intent) {
	// Each start is worked out once (a walk over the deliveries), not at
	// every comparison; the two halves are sorted side by side and merged,
	// the first half's first among equals, as one stable sort would.
	type keyed struct {
		in    *model.Intent
		start time.Time
	}
	all := make([]keyed, len(intents))
	inParallel(len(intents), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			all[i] = keyed{intents[i], intents[i].Start()}
		}
	})
	cmp := func(a, b keyed) int {
		if c := a.start.Compare(b.start); c != 0 {
			return c
		}
		return strings.Compare(a.in.ID, b.in.ID)
	}
	half := len(all) / 2
	if half < 1024 {
		slices.SortStableFunc(all, cmp)
		for i := range all {
			intents[i] = all[i].in
		}
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() { slices.SortStableFunc(all[half:], cmp) })
	slices.SortStableFunc(all[:half], cmp)
	wg.Wait()
	i, j := 0, half
	for k := range intents {
		if j == len(all) || i < half && cmp(all[i], all[j]) <= 0 {
			intents[k], i = all[i].in, i+1
		} else {
			intents[k], j = all[j].in, j+1
		}
	}
}

// maxTexts bounds the distinct (detail, message) pairs kept compact;
// lines with others are kept whole.
const maxTexts = 4096

// full is the index in fulls of observation j kept whole, or -1.
func (c *Correlator) full(j int32) int32 {
	if c.obs.at(j).flags&flagFull == 0 {
		return -1
	}
	i, _ := slices.BinarySearch(c.fullObs, j)
	return int32(i)
}

// keyHash is the first key hash delivery di logged, or 0.
func (c *Correlator) keyHash(di int32) aref {
	return c.keyHashes[di] // a nil map when no line logged a hash
}

// release drops the compact store; the rich objects own their memory.
func (c *Correlator) release() {
	c.obs, c.deliveries, c.rids = chunked[cobs]{}, chunked[cdelivery]{}, chunked[aref]{}
	c.fulls, c.extraKeys, c.intentExtras, c.keyHashes, c.fullObs, c.singles = nil, nil, nil, nil, nil, nil
	c.arena = arena{}
	c.routes = interner{a: &c.arena, limit: c.routes.limit}
}

// delivery builds the rich form of delivery i, from s when it is not nil.
func (c *Correlator) delivery(i int32, key string, s *slab) *model.Delivery {
	cd := c.deliveries.at(i)
	d := s.delivery()
	rid := s.own(&c.arena, *c.rids.at(i))
	*d = model.Delivery{RequestID: rid, Synthetic: cd.synthetic, KeyHash: s.own(&c.arena, c.keyHash(i))}
	kept := s.ends(0, MaxObservationsBuilt)
	for j := cd.first; j >= 0; j = c.obs.at(j).next {
		d.Total++
		kept.add(j)
	}
	items := kept.items()
	d.Observations = s.observationList(len(items))
	for _, j := range items {
		d.Observations = append(d.Observations, c.materialize(j, rid, s))
	}
	d.Key = s.own(&c.arena, c.deliveryKeyRef(cd))
	if cd.multiKey {
		d.Keys = append(s.stringList(len(c.extraKeys[i])), c.extraKeys[i]...)
	} else if d.Key != "" {
		d.Keys = append(s.stringList(1), d.Key)
	}
	if d.Key == "" {
		d.Key = key
	}
	sortObservations(d.Observations)
	return d
}

// ends keeps the first and the last max/2 of a sequence: what is built of
// a delivery or an intent too long to build whole.
type ends[T any] struct {
	head, tail []T
	max        int
	next       int // where the next item goes once tail is full (a ring)
}

func (e *ends[T]) add(v T) {
	switch {
	case len(e.head) < e.max/2:
		e.head = append(e.head, v)
	case len(e.tail) < e.max/2:
		e.tail = append(e.tail, v)
	default:
		e.tail[e.next] = v
		e.next = (e.next + 1) % len(e.tail)
	}
}

// items returns the kept items in sequence order.
func (e *ends[T]) items() []T {
	out := append(e.head, e.tail[e.next:]...)
	return append(out, e.tail[:e.next]...)
}

// intent builds the rich form of a compact intent, from s when it is not
// nil.
func (c *Correlator) intent(ci *cintent, s *slab) *model.Intent {
	key := ""
	if k := c.intentKeyRef(ci); k != 0 {
		key = s.own(&c.arena, k)
	} else {
		key = s.clone(c.intentKey(ci))
	}
	scope := s.clone(c.intentScope(ci))
	in := s.intent()
	*in = model.Intent{ID: key, Key: key, Scope: scope}
	if scope != "" {
		in.ID = scope + "|" + key
	}
	in.Total = int(ci.n)
	kept := s.ends(1, MaxDeliveriesBuilt)
	for i := ci.first; ; i = c.deliveries.at(i).next {
		kept.add(i)
		if i == ci.last {
			break
		}
	}
	items := kept.items()
	in.Deliveries = s.deliveryList(len(items))
	for _, i := range items {
		in.Deliveries = append(in.Deliveries, c.delivery(i, key, s))
	}
	// slices' sort: sort.SliceStable's reflection and allocation, once
	// for each of tens of thousands of intents, cost more than the sorts.
	slices.SortStableFunc(in.Deliveries, func(a, b *model.Delivery) int { return a.Start().Compare(b.Start()) })
	if n := joinByKey(in); n > 0 {
		c.joined.Add(int64(n))
	}
	return in
}

// KeyJoinWindow is how far apart a browser's entry and a proxy's or
// server's delivery of one key, method and route may start and still be
// one trip: clocks of a laptop and a server disagree by a second or two.
const KeyJoinWindow = 5 * time.Second

// joinByKey joins a browser's HAR entries that carry only the
// Idempotency-Key (the proxy made the request id and passed it on) to the
// delivery of the same key, method and route whose start is nearest
// within KeyJoinWindow and that no client line joined yet. It returns how
// many it joined.
func joinByKey(in *model.Intent) int {
	var entries, trips []*model.Delivery
	for _, d := range in.Deliveries {
		switch {
		case d.Synthetic && d.Edge() != nil && d.Edge().Tier == model.TierClient && len(d.Observations) == 1:
			entries = append(entries, d)
		case !d.Synthetic && d.At(model.TierClient) == nil:
			trips = append(trips, d)
		}
	}
	if len(entries) == 0 || len(trips) == 0 {
		return 0
	}
	used := map[*model.Delivery]bool{}
	gone := map[*model.Delivery]bool{}
	for _, e := range entries {
		var best *model.Delivery
		var bestGap time.Duration
		for _, t := range trips {
			if used[t] || t.Method() != e.Method() || t.Route() != e.Route() {
				continue
			}
			gap := t.Start().Sub(e.Start()).Abs()
			if gap <= KeyJoinWindow && (best == nil || gap < bestGap) {
				best, bestGap = t, gap
			}
		}
		if best == nil {
			continue
		}
		used[best], gone[e] = true, true
		for _, o := range e.Observations {
			o.RequestID = best.RequestID // the trip's id, which the proxy made
		}
		best.Observations = append(best.Observations, e.Observations...)
		best.Total += e.Total
		sortObservations(best.Observations)
	}
	if len(gone) == 0 {
		return 0
	}
	kept := in.Deliveries[:0]
	for _, d := range in.Deliveries {
		if !gone[d] {
			kept = append(kept, d)
		}
	}
	in.Deliveries = kept
	in.Total -= len(gone)
	return len(gone)
}

// markWanted marks the plain intents c.Build asks for besides those
// already built: the follow-ups of the built intents' losses, and the keys
// Build.Key accepts. Single deliveries among them become intents,
// appended. It returns the intents and the indexes of those it marked.
func (c *Correlator) markWanted(intents []cintent, built []*model.Intent) ([]cintent, []int32) {
	if c.Build.All {
		return intents, nil // nothing is left to mark
	}
	f := c.followUps(built)
	if f == nil && c.Build.Key == nil {
		return intents, nil
	}
	// Each plain intent is looked at on its own: the work is shared out.
	// A delivery in a plain intent has one observation per tier (a
	// second one at a tier makes it worth a look).
	var marked []int32
	nd := c.deliveries.len()
	// A key stored packed is lower-case hex and dashes: when Key needs
	// none of those, it is not asked about such a key.
	skipPacked := c.Build.KeyBytes != "" && !strings.ContainsAny(c.Build.KeyBytes, "0123456789abcdef-")
	parts := make([][]int32, (max(len(intents), nd)+1023)/1024)
	// Each loop shares out its own runs of 1024: the compact intents are
	// a few tens of thousands, the deliveries a million or more.
	inParallelBy((len(intents)+1023)/1024, 1, func(lo, hi int) {
		var buf [256]byte
		for p := lo; p < hi; p++ {
			for i := p * 1024; i < min(len(intents), (p+1)*1024); i++ {
				if in := &intents[i]; !in.interesting && c.wanted(in.first, c.intentKeyRef(in), c.intentExtraKey(in), f, skipPacked, buf[:0]) {
					in.interesting = true
					parts[p] = append(parts[p], int32(i))
				}
			}
		}
	})
	for _, part := range parts {
		marked = append(marked, part...)
	}
	inParallelBy(len(parts), 1, func(lo, hi int) {
		var buf [256]byte
		for p := lo; p < hi; p++ {
			parts[p] = parts[p][:0]
			for di := int32(p * 1024); di < int32(min(nd, (p+1)*1024)); di++ {
				if c.singles.has(di) && c.wanted(di, c.deliveryKeyRef(c.deliveries.at(di)), "", f, skipPacked, buf[:0]) {
					parts[p] = append(parts[p], di)
				}
			}
		}
	})
	for _, part := range parts {
		for _, di := range part {
			c.singles.clear(di)
			marked = append(marked, int32(len(intents)))
			intents = append(intents, cintent{extra: -1, first: di, last: di, n: 1, interesting: true})
		}
	}
	return intents, marked
}

// intentExtraKey is the key of a compact intent known by its hash only.
func (c *Correlator) intentExtraKey(ci *cintent) string {
	if ci.extra >= 0 {
		return c.intentExtras[ci.extra].hashKey
	}
	return ""
}

// wanted reports whether c.Build asks for the plain intent whose only
// delivery is di, with key kref (or hashKey); buf is scratch space.
// skipPacked says Key accepts no key stored packed (see Build.KeyBytes).
func (c *Correlator) wanted(di int32, kref aref, hashKey string, f *followUps, skipPacked bool, buf []byte) bool {
	if kind := kref & 0xf; c.Build.Key != nil && !(skipPacked && (kind == packedUUID || kind == packedHex)) {
		key := hashKey
		if kref != 0 {
			buf = c.arena.appendTo(buf[:0], kref)
			key = viewString(buf)
		}
		if c.Build.Key(key) {
			return true
		}
	}
	return f != nil && f.follows(c, c.deliveries.at(di), buf[:0])
}

// followUps are the losses of the built intents, found by the client,
// method and route of each intent's first delivery.
type followUps struct {
	window time.Duration
	// seen holds a bit for each loss's signature, so that most plain
	// deliveries are ruled out without a map lookup.
	seen []uint64
	// clients holds a bit for each loss's client (see clientBit): a
	// plain line from a client that lost nothing, most of them, is ruled
	// out before its signature is laid out and hashed.
	clients []uint64
	// losses finds the losses of a signature: the last in at, whose next
	// names the one before, up to -1.
	losses   map[uint64]int32
	at       []time.Time
	nextLoss []int32
}

// clientBit is where a client, as the arena stores it (kind and bytes,
// see pack), has its bit in followUps.clients: a multiplicative hash of
// its first eight bytes, its length and its kind, much cheaper than
// hashing the whole signature. Clients sharing a bit only cost that hash.
func clientBit(raw string, kind int) uint64 {
	var x uint64
	for i := 0; i < len(raw) && i < 8; i++ {
		x |= uint64(raw[i]) << (8 * i)
	}
	x ^= (uint64(len(raw))<<4 | uint64(kind)) * 0xD6E8FEB86659FD93
	return (x * 0x9E3779B97F4A7C15) >> (64 - 20)
}

// followUps gathers the losses of the built intents as their readers
// see them, or returns nil when there is nothing to follow.
func (c *Correlator) followUps(built []*model.Intent) *followUps {
	if c.Build.FollowUp <= 0 {
		return nil
	}
	f := &followUps{window: c.Build.FollowUp}
	// Each built intent's losses are found on every core, a run of
	// intents at a time, and gathered in order: each signature's times in
	// the order of its intents.
	type loss struct {
		sig, client uint64 // client is clientBit's
		at          time.Time
		first       bool // the intent's first loss: its client is counted
	}
	const run = 1024
	found := make([][]loss, (len(built)+run-1)/run)
	inParallelBy(len(found), 1, func(lo, hi int) {
		var buf []byte
		for r := lo; r < hi; r++ {
			var out []loss
			for _, in := range built[r*run : min(len(built), (r+1)*run)] {
				if len(in.Deliveries) == 0 {
					continue
				}
				d0 := in.Deliveries[0]
				client := d0.Client()
				if client == "" {
					continue // not known to come from the same client as anything
				}
				var k uint64
				for _, d := range in.Deliveries {
					at := d.Start()
					if d.Lost() == nil || at.IsZero() {
						continue
					}
					l := loss{sig: k, at: at}
					if k == 0 {
						buf = appendSig(buf[:0], client, d0.Method(), d0.Route())
						k = maphash.Bytes(idSeed, buf) | 1
						p := pack(client)
						l.sig, l.client, l.first = k, clientBit(p.stored(client), int(p.kind)), true
					}
					out = append(out, l)
				}
			}
			found[r] = out
		}
	})
	var clients []uint64
	n := 0
	for _, out := range found {
		n += len(out)
	}
	f.losses, f.at, f.nextLoss = make(map[uint64]int32, n), make([]time.Time, 0, n), make([]int32, 0, n)
	for _, out := range found {
		for _, l := range out {
			prev, ok := f.losses[l.sig]
			if !ok {
				prev = -1
			}
			f.losses[l.sig] = int32(len(f.at))
			f.at, f.nextLoss = append(f.at, l.at), append(f.nextLoss, prev)
			if l.first {
				clients = append(clients, l.client)
			}
		}
	}
	if len(f.losses) == 0 {
		return nil
	}
	f.seen = written(make([]uint64, 1<<20/64)) // 128 KB: a few percent full for 40,000 losses
	for k := range f.losses {
		f.seen[k>>50] |= 1 << (k >> 44 & 63)
	}
	f.clients = written(make([]uint64, 1<<20/64))
	for _, b := range clients {
		f.clients[b>>6] |= 1 << (b & 63)
	}
	return f
}

// appendSig lays out what makes two intents one client's same request:
// the client and route as the arena stores them (packed ids stay packed,
// which costs nothing to compare), and the method.
func appendSig(buf []byte, client, method, route string) []byte {
	buf = appendPacked(buf, client, pack(client))
	buf = append(append(buf, method...), 0)
	return appendPacked(buf, route, pack(route))
}

// appendPacked appends s as the arena stores it (see pack): its kind, then
// its packed bytes or s itself.
func appendPacked(buf []byte, s string, p packed) []byte {
	return append(append(append(buf, p.kind), p.stored(s)...), 0)
}

// follows reports whether the plain delivery d starts after a loss with its
// signature, within the window. Like Delivery.Client, Method, Route and
// Start, it takes each from the outermost tier that logged it: a plain
// delivery has one observation per tier.
func (f *followUps) follows(c *Correlator, d *cdelivery, buf []byte) bool {
	var client, method, route, start int32 = -1, -1, -1, -1
	first := d.first
	if co := c.obs.at(first); co.next < 0 && co.flags&flagFull == 0 {
		// One compact line, as most plain deliveries are: its fields are
		// the delivery's, and a field it lacks lays out as the loop's
		// missing one does.
		if co.client == 0 || co.time == 0 {
			return false
		}
		raw, kind := c.arena.raw(co.client)
		if b := clientBit(viewString(raw), kind); f.clients[b>>6]&(1<<(b&63)) == 0 {
			return false
		}
		client, method, route, start = first, first, first, first
		first = -1 // nothing left to walk
	}
	var ct, mt, rt, st model.Tier
	for j := first; j >= 0; j = c.obs.at(j).next {
		co := c.obs.at(j)
		var hasClient, hasMethod, hasRoute, hasTime bool
		if fi := c.full(j); fi >= 0 {
			o := c.fulls[fi]
			hasClient, hasMethod, hasRoute, hasTime = o.Client != "", o.Method != "", o.Route != "", !o.Time.IsZero()
		} else {
			hasClient, hasMethod, hasRoute, hasTime = co.client != 0, c.methods.list[co.method][0] != "", co.route != 0, co.time != 0
		}
		if hasClient && (client < 0 || co.tier < ct) {
			client, ct = j, co.tier
		}
		if hasMethod && (method < 0 || co.tier < mt) {
			method, mt = j, co.tier
		}
		if hasRoute && (route < 0 || co.tier < rt) {
			route, rt = j, co.tier
		}
		if hasTime && (start < 0 || co.tier < st) {
			start, st = j, co.tier
		}
	}
	if client < 0 || start < 0 {
		return false
	}
	buf = c.appendField(buf, client, fieldClient)
	buf = append(c.appendField(buf, method, fieldMethod), 0)
	buf = c.appendField(buf, route, fieldRoute)
	k := maphash.Bytes(idSeed, buf) | 1
	if f.seen[k>>50]&(1<<(k>>44&63)) == 0 {
		return false
	}
	at := c.obsTime(start)
	i, ok := f.losses[k]
	for ; ok && i >= 0; i = f.nextLoss[i] {
		// A hash collision only builds one more intent for the readers,
		// which compare the real values.
		if t := f.at[i]; at.After(t) && at.Sub(t) <= f.window {
			return true
		}
	}
	return false
}

// inParallel splits [0, n) into one range a CPU and runs fn on each at
// once, when there are at least 1024 items a CPU to share. fn must only
// read shared state, or write to what its range owns.
func inParallel(n int, fn func(lo, hi int)) { inParallelBy(n, 1024, fn) }

// inParallelBy is inParallel for items of which grain are worth a
// goroutine: 1 for items that are already runs of a thousand.
func inParallelBy(n, grain int, fn func(lo, hi int)) {
	parts := min(runtime.GOMAXPROCS(0), max(n/grain, 1))
	var wg sync.WaitGroup
	for p := 0; p < parts; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(n*p/parts, n*(p+1)/parts)
		}()
	}
	wg.Wait()
}

// newIntent starts a compact intent at delivery first.
func (c *Correlator) newIntent(hashKey, scope string, first int32) cintent {
	ci := cintent{extra: -1, first: first}
	if hashKey != "" || scope != "" {
		ci.extra = int32(len(c.intentExtras))
		c.intentExtras = append(c.intentExtras, intentExtra{scope: scope, hashKey: hashKey})
	}
	return ci
}

// intentKeyRef is the key of a compact intent as its first delivery
// carried it, or 0 for a key known by hash only.
func (c *Correlator) intentKeyRef(ci *cintent) aref {
	return c.deliveryKeyRef(c.deliveries.at(ci.first))
}

// intentKey is the key of a compact intent.
func (c *Correlator) intentKey(ci *cintent) string {
	if k := c.intentKeyRef(ci); k != 0 {
		return c.arena.get(k)
	}
	if ci.extra >= 0 {
		return c.intentExtras[ci.extra].hashKey
	}
	return ""
}

// intentScope is the scope of a compact intent.
func (c *Correlator) intentScope(ci *cintent) string {
	if ci.extra >= 0 {
		return c.intentExtras[ci.extra].scope
	}
	return ""
}

// sameIntent reports whether a delivery's key and scope are the intent's.
func (c *Correlator) sameIntent(ci *cintent, kref aref, hashKey, scope string) bool {
	if c.intentScope(ci) != scope {
		return false
	}
	switch key := c.intentKeyRef(ci); {
	case kref != 0 && key != 0:
		return c.arena.same(kref, key)
	default:
		return c.intentKey(ci) == c.arena.get(kref)+hashKey
	}
}

// sameSingle reports whether a delivery's key and scope are those of the
// single delivery di (which has no scope and a raw key).
func (c *Correlator) sameSingle(di int32, kref aref, hashKey, scope string) bool {
	if scope != "" {
		return false
	}
	key := c.deliveryKeyRef(c.deliveries.at(di))
	if kref != 0 {
		return c.arena.same(kref, key)
	}
	return c.arena.get(key) == hashKey
}

// compactScope computes a delivery's scope from its observations.
func (c *Correlator) compactScope(d *cdelivery) string {
	if !c.ScopeMethod && !c.ScopeRoute {
		for j := d.first; j >= 0; j = c.obs.at(j).next {
			if f := c.full(j); f >= 0 && c.fulls[f].Scope != "" {
				return c.fulls[f].Scope
			}
		}
		return ""
	}
	var obs []*model.Observation
	for j := d.first; j >= 0; j = c.obs.at(j).next {
		obs = append(obs, c.materialize(j, "", nil))
	}
	sortObservations(obs)
	return c.scopeOf(&model.Delivery{Observations: obs})
}

func (c *Correlator) scopeOf(d *model.Delivery) string {
	var parts []string
	for _, o := range d.Observations {
		if o.Scope != "" {
			parts = append(parts, o.Scope)
			break
		}
	}
	if c.ScopeMethod {
		parts = append(parts, "method="+d.Method())
	}
	if c.ScopeRoute {
		parts = append(parts, "route="+d.Route())
	}
	return strings.Join(parts, ",")
}

// sortObservations orders a delivery's observations by tier, then time,
// then source order.
func sortObservations(obs []*model.Observation) {
	slices.SortStableFunc(obs, func(a, b *model.Observation) int {
		if a.Tier != b.Tier {
			return cmp.Compare(a.Tier, b.Tier)
		}
		return a.Time.Compare(b.Time)
	})
}
