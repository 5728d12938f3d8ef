package trace

import "github.com/idem-cli/idem/model"

// Set groups the deliveries into intents and orders everything. Intents
// with one plain, answered delivery are counted but not built, unless
// c.Build asks for them: nothing in them needs a look on its own, and they
// are most of a big log.
func (c *Correlator) Set(inputs []*model.Input) *model.Set {
	c.resolveSpans()
	c.rejoinProcesses()
	c.startOrEnd(inputs)
	c.joinIdless()
	c.markSharedPayloads()
	s, st := &model.Set{Inputs: inputs, Orphans: c.orphans, Tiers: map[model.Tier]bool{}, Idless: map[model.Tier]int{},
		Supplies: c.supplies}, &store{c: c}
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
	s.Built = c.buildIntents(intents, built)
	c.wantPrevKeys()
	intents, built = c.markWanted(intents, s.Built)
	s.Built = append(s.Built, c.buildIntents(intents, built)...)
	st.cintents = intents
	sortIntents(s.Built)
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
	if st.c.Released != nil {
		st.c.Released()
	}
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

// release drops the compact store; the rich objects own their memory.
func (c *Correlator) release() {
	c.obs, c.deliveries, c.rids, c.alts = chunked[cobs]{}, chunked[cdelivery]{}, chunked[aref]{}, chunked[uint32]{}
	c.fulls, c.extraKeys, c.intentExtras, c.keyHashes, c.fullObs, c.singles = nil, nil, nil, nil, nil, nil
	c.extras, c.fpSeen = chunked[cextra]{}, chunked[fpSeen]{}
	c.arena = arena{}
	c.routes = interner{a: &c.arena, limit: c.routes.limit}
	if c.mem != nil {
		c.mem.release() // the lists above were the only way into it
	}
}

// wantPrevKeys adds to what Build asks for the intents of the keys a line
// named as the one its send retries: the link's other end, however plain.
func (c *Correlator) wantPrevKeys() {
	if len(c.prevKeys) == 0 || c.Build.All {
		return
	}
	prev, key := c.prevKeys, c.Build.Key
	c.Build.Key = func(k string) bool { return prev[k] || key != nil && key(k) }
	c.Build.KeyBytes = "" // a named key may be stored packed
}
