package trace

import (
	"hash/maphash"
	"iter"
	"strings"
	"sync"

	"github.com/idem-cli/idem/model"
)

// Grouping puts each keyed delivery into its intent: the deliveries that
// share a key (and scope). It is the one step after reading that must see
// every delivery, a million or more, so it is done one of two ways.
//
// Most intents of a big log are one plain delivery. Those stay a delivery
// marked single, named in the index by -(delivery+2); a compact intent is
// made only when a second delivery joins or the delivery is worth a look.
// Intents are numbered in the order they are made, which is the order of
// the delivery that made them: the order the rules and the report see.
//
// Where every name is a plain key (no scope, no key known only by its
// hash) the hash of each delivery's name was worked out while reading,
// as its first key arrived (Correlator.add): two goroutines then each
// group the deliveries whose hash falls to them, in their own half of the
// index, and their intents are merged by the delivery that made each.
// Otherwise the names are worked out a run at a time beside the one
// goroutine that fills the index.

// shardFrom is how many deliveries make grouping worth two goroutines (a
// variable so that tests can group small inputs both ways).
var shardFrom int32 = 1 << 15

// namedWhileRead reports whether every keyed delivery's name is its first
// key alone, hashed as it arrived: no key hashes to resolve, no scope.
func (c *Correlator) namedWhileRead() bool {
	return len(c.keyHashes) == 0 && !c.ScopeMethod && !c.ScopeRoute && !c.anyScope
}

// nameSum hashes what names an intent: its scope, then its first key as
// the arena stores it (raw bytes and how they were packed). A key without
// a scope, nearly every name, is hashed where it lies, how it was packed
// mixed in after; a scoped name is laid out on the stack and hashed at
// once: cheaper than a streaming hash for the few dozen bytes most names
// are. Equal sums are only candidates: the index compares the names.
func nameSum(scope, raw string, kind int) uint64 {
	if scope == "" {
		return maphash.String(idSeed, raw) ^ uint64(kind+1)*0x9e3779b97f4a7c15
	}
	var name [64]byte
	b := append(append(name[:0], scope...), 0)
	b = append(append(b, raw...), byte(kind))
	return maphash.Bytes(idSeed, b)
}

// grouper puts deliveries, in delivery order, into the intents of one
// index.
type grouper struct {
	c       *Correlator
	all     bool // Build.All: every intent is built
	index   hashIndex
	intents []cintent
	made    []int32 // the delivery that made each intent
	singles bitset
	block   []grouped
	touched uint64
}

func newGrouper(c *Correlator, index hashIndex) *grouper {
	return &grouper{c: c, all: c.Build.All, index: index, block: make([]grouped, 0, 1024)}
}

// add puts a named delivery into its intent. Deliveries go a block at a
// time: the block's index slots are touched first (see hashIndex.touch).
func (gr *grouper) add(g grouped) {
	if gr.block = append(gr.block, g); len(gr.block) == cap(gr.block) {
		gr.flush()
	}
}

func (gr *grouper) flush() {
	c := gr.c
	var t uint64
	for j := range gr.block {
		t += gr.index.touch(gr.block[j].sum)
	}
	gr.touched += t
	for j := range gr.block {
		g := &gr.block[j]
		d := c.deliveries.at(g.i)
		single := !gr.all && !d.interesting && g.extra == nil
		v := int32(len(gr.intents))
		if single {
			v = -g.i - 2
		}
		ii, ok, slot := gr.index.findOrAddSlot(g.sum, v, func(ii int32) bool {
			hashKey, scope := g.names()
			kref := g.kref
			if kref == 0 && g.extra == nil {
				kref = c.deliveryKeyRef(d) // named while read: the key is looked up only to compare
			}
			if ii <= -2 {
				return c.sameSingle(-ii-2, kref, hashKey, scope)
			}
			return c.sameIntent(&gr.intents[ii], kref, hashKey, scope)
		})
		switch {
		case !ok && single:
			gr.singles.set(g.i)
			continue
		case !ok:
			hashKey, scope := g.names()
			gr.intents = append(gr.intents, c.newIntent(hashKey, scope, g.i))
			gr.made = append(gr.made, g.i)
		case ii <= -2: // the second delivery of a single: make it an intent
			first := -ii - 2
			gr.singles.clear(first)
			ii = int32(len(gr.intents))
			gr.index.set(slot, g.sum, ii)
			gr.intents = append(gr.intents, cintent{extra: -1, first: first, last: first, n: 1})
			gr.made = append(gr.made, g.i)
			fallthrough
		default:
			c.deliveries.at(gr.intents[ii].last).next = g.i
		}
		in := &gr.intents[ii]
		in.last = g.i
		in.n++
		if gr.all || d.interesting || in.n > 1 {
			in.interesting = true
		}
	}
	gr.block = gr.block[:0]
}

// unkeyed counts a delivery without a key, and builds it when it is worth
// a look.
func (c *Correlator) unkeyed(s *model.Set, i int32) {
	d := c.deliveries.at(i)
	if d.first < 0 {
		return // joined to another trip (rejoinProcesses)
	}
	c.unkeyedCount++
	if c.Build.All || d.interesting || d.synthetic {
		s.Unkeyed = append(s.Unkeyed, c.delivery(i, "", nil, nil))
	}
}

// groupInOrder groups deliveries [0, nd) on one goroutine, their names
// worked out beside it. It returns the intents and how many there are,
// singles included.
func (c *Correlator) groupInOrder(s *model.Set, index hashIndex, nd int32, hashToKey map[string]string) ([]cintent, int) {
	gr := newGrouper(c, index)
	for run := range c.namedRuns(nd, hashToKey) {
		for j := range run {
			g := &run[j]
			if g.later {
				*g = c.groupName(g.i, hashToKey, true)
			}
			if g.kref == 0 && g.extra == nil {
				c.unkeyed(s, g.i)
				continue
			}
			gr.add(*g)
		}
	}
	gr.flush()
	c.singles, c.touched = gr.singles, c.touched+gr.touched
	return gr.intents, gr.index.n
}

// groupSharded groups deliveries [0, nd), named while read, on two
// goroutines: each takes the names whose hash is odd or even, into its
// half of index (which each empties first when it is dirty).
func (c *Correlator) groupSharded(s *model.Set, index hashIndex, dirty bool, nd int32) ([]cintent, int) {
	half := len(index.slots) / 2
	var gs [2]*grouper
	for k := range gs {
		gs[k] = newGrouper(c, hashIndex{slots: index.slots[k*half : (k+1)*half : (k+1)*half], bits: index.bits - 1})
	}
	run := func(k int) {
		gr := gs[k]
		if dirty {
			clear(gr.index.slots)
		}
		for i := range nd {
			d := c.deliveries.at(i)
			if !d.keyed {
				if k == 0 {
					c.unkeyed(s, i)
				}
				continue
			}
			g := grouped{i: i, sum: uint64(d.name) << 32}
			if d.name == 0 {
				g = c.groupName(i, nil, false) // a hash whose top half is 0: worked out again
			}
			if int(g.sum>>32)&1 == k {
				gr.add(g)
			}
		}
		gr.flush()
	}
	var wg sync.WaitGroup
	wg.Go(func() { run(1) })
	run(0)
	wg.Wait()
	// Each half's intents are in the order of the deliveries that made
	// them: merged by that delivery, they are in the order one goroutine
	// would have made them.
	a, b := gs[0], gs[1]
	intents := make([]cintent, 0, len(a.intents)+len(b.intents))
	for i, j := 0, 0; i < len(a.intents) || j < len(b.intents); {
		if j == len(b.intents) || i < len(a.intents) && a.made[i] < b.made[j] {
			intents, i = append(intents, a.intents[i]), i+1
		} else {
			intents, j = append(intents, b.intents[j]), j+1
		}
	}
	if len(a.singles) < len(b.singles) {
		a, b = b, a
	}
	for w, x := range b.singles {
		a.singles[w] |= x
	}
	c.singles, c.touched = a.singles, c.touched+a.touched+b.touched
	return intents, gs[0].index.n + gs[1].index.n
}

// groupRun is how many deliveries are named at once before they join
// their intents: enough to spread over the cores, few enough to stay in
// the cache.
const groupRun = 1 << 14

// namedRuns yields the names of deliveries [0, nd) a run at a time, in
// order. While the caller joins one run to its intents, the next is named
// on another goroutine: the caller writes only deliveries it was given,
// and naming reads only those of its own run. A key known by its hash
// has its raw key stored as it is named (groupName's serial), so where
// logs carry hashes each run is named first, on every core, instead.
func (c *Correlator) namedRuns(nd int32, hashToKey map[string]string) iter.Seq[[]grouped] {
	return func(yield func([]grouped) bool) {
		if len(hashToKey) > 0 {
			names := make([]grouped, min(nd, groupRun))
			for lo := int32(0); lo < nd; lo += groupRun {
				run := names[:min(nd-lo, groupRun)]
				inParallel(len(run), func(a, b int) {
					for j := a; j < b; j++ {
						run[j] = c.groupName(lo+int32(j), hashToKey, false)
					}
				})
				if !yield(run) {
					return
				}
			}
			return
		}
		free := make(chan []grouped, 2)
		for range 2 {
			free <- make([]grouped, min(nd, groupRun))
		}
		named := make(chan []grouped, 2)
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			defer close(named)
			for lo := int32(0); lo < nd; lo += groupRun {
				var run []grouped
				select {
				case run = <-free:
				case <-stop:
					return
				}
				run = run[:min(nd-lo, groupRun)]
				for j := range run {
					run[j] = c.groupName(lo+int32(j), hashToKey, false)
				}
				named <- run
			}
		}()
		for run := range named {
			if !yield(run) {
				return
			}
			free <- run[:cap(run)]
		}
	}
}

// grouped is what names a delivery's intent: its first key as stored, or
// the raw key its logged hash stands for, its scope, and their hash. The
// few names with a scope or a key known by its hash keep them in extra:
// a million of these pass from the goroutine that names them to the one
// that groups them, and half the size is half the traffic.
type grouped struct {
	sum   uint64
	kref  aref
	extra *intentExtra
	i     int32
	// later says the name needs the arena written (a key known only by
	// its hash): groupName must be called again on one goroutine.
	later bool
}

// names returns the key known by its hash and the scope that name g.
func (g *grouped) names() (hashKey, scope string) {
	if g.extra == nil {
		return "", ""
	}
	return g.extra.hashKey, g.extra.scope
}

// groupName names delivery i's intent. It only reads the store unless
// serial is set: a key known by its hash is stored then, in delivery
// order as before.
func (c *Correlator) groupName(i int32, hashToKey map[string]string, serial bool) grouped {
	d := c.deliveries.at(i)
	// One walk finds the first key and, when the scope is only what a
	// line logged, the first logged scope (as compactScope would).
	var kref aref
	scope, scoped := "", c.ScopeMethod || c.ScopeRoute
	for j := d.first; j >= 0; {
		o := c.obs.at(j)
		if kref == 0 {
			kref = o.key
		}
		if !scoped && scope == "" && o.flags&flagFull != 0 {
			scope = c.fulls[c.full(j)].Scope
		}
		j = o.next
	}
	hashKey := ""
	if kref == 0 && c.keyHash(i) != 0 {
		kh := c.arena.get(c.keyHash(i))
		if k, ok := hashToKey[kh]; ok {
			hashKey = k
		} else {
			hashKey = "hash:" + kh
		}
	}
	if kref == 0 && hashKey == "" {
		return grouped{i: i}
	}
	if hashKey != "" && !strings.HasPrefix(hashKey, "hash:") && !serial {
		return grouped{i: i, later: true}
	}
	if scoped {
		scope = c.compactScope(d)
	}
	var sum uint64
	switch {
	case hashKey == "":
		raw, kind := c.arena.raw(kref)
		sum = nameSum(scope, viewString(raw), kind)
	case !strings.HasPrefix(hashKey, "hash:"):
		// A key known by its hash joins the intent of the raw key.
		raw, kind := c.arena.raw(c.arena.add(hashKey))
		sum = nameSum(scope, viewString(raw), kind)
	default:
		var name [64]byte
		sum = maphash.Bytes(idSeed, append(append(append(name[:0], scope...), 0), hashKey...))
	}
	g := grouped{i: i, kref: kref, sum: sum}
	if hashKey != "" || scope != "" {
		g.extra = &intentExtra{hashKey: hashKey, scope: scope}
	}
	return g
}

// intentExtraKey is the key of a compact intent known by its hash only.
func (c *Correlator) intentExtraKey(ci *cintent) string {
	if ci.extra >= 0 {
		return c.intentExtras[ci.extra].hashKey
	}
	return ""
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
