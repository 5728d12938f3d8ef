package trace

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idem-cli/idem/internal/pages"
	"github.com/idem-cli/idem/model"
)

// Build tells a Correlator which intents and unkeyed deliveries Set builds
// in full, as the Intent and Delivery values of model.Set.Built and
// model.Set.Unkeyed. What is not built is still counted, and FindIntent
// builds it on demand.
//
// Whatever Build says, Set builds every intent and delivery that an
// observation makes worth a look on its own: a lost response, an error, a
// second delivery, a field beyond a plain answered request (see notable),
// a browser's payload that another line logged too (markSharedPayloads).
// Build names what else the readers of the Set compare those with; the
// diagnose package derives it from its rules and their thresholds.
type Build struct {
	// All builds every intent and every unkeyed delivery. It predicts
	// nothing, so it is the reference the other fields are tested
	// against, at the cost of a rich object per request.
	All bool
	// FollowUp builds each plain intent that starts after a lost
	// delivery (see Delivery.Lost) of a built intent, at most this long
	// after it, and comes from the client, method and route of that
	// intent's first delivery: it may be the retry under a new key. 0
	// builds none.
	FollowUp time.Duration
	// Key, when set, builds the plain intents whose key it accepts. It
	// may be called from several goroutines at once, with a string that
	// is valid only during the call.
	Key func(key string) bool
	// KeyBytes, when not empty, promises that Key accepts no key holding
	// none of these bytes. Set then skips the keys stored packed (lower-
	// case hex digits and dashes) when none of these is among them,
	// without unpacking a million keys to ask.
	KeyBytes string
}

// defaultFollowUp is the follow-up window NewCorrelator starts with: the
// default retry window of the rules that compare follow-ups.
const defaultFollowUp = 10 * time.Minute

// defaultBuild is what NewCorrelator builds unless told otherwise.
func defaultBuild() Build { return Build{FollowUp: defaultFollowUp} }

// MaxDeliveriesBuilt and MaxObservationsBuilt bound what one intent or
// delivery keeps in full: the first and last halves are kept, the rest
// counted.
const (
	MaxDeliveriesBuilt   = 200
	MaxObservationsBuilt = 200
)

// buildIntents builds the compact intents at idx, side by side: building
// reads the store only. It returns nil for none.
func (c *Correlator) buildIntents(intents []cintent, idx []int32) []*model.Intent {
	if len(idx) == 0 {
		return nil
	}
	out := pages.Written(make([]*model.Intent, len(idx)))
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

// delivery builds the rich form of delivery i, from s when it is not nil.
//
// alts, when not nil, gets the hash of each observation's other request
// id (see joinByAltID).
func (c *Correlator) delivery(i int32, key string, s *slab, alts map[*model.Observation]uint32) *model.Delivery {
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
	lineID := rid
	if cd.synthetic {
		lineID = "" // the delivery's name is idem's, no tier logged it
	}
	for _, j := range items {
		o := c.materialize(j, lineID, s)
		d.Observations = append(d.Observations, o)
		if alts != nil {
			if h := c.altOf(j); h != 0 {
				alts[o] = h
			}
		}
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
	var alts map[*model.Observation]uint32
	if len(items) > 1 && c.alts.len() > 0 {
		alts = map[*model.Observation]uint32{}
	}
	for _, i := range items {
		in.Deliveries = append(in.Deliveries, c.delivery(i, key, s, alts))
	}
	// slices' sort: sort.SliceStable's reflection and allocation, once
	// for each of tens of thousands of intents, cost more than the sorts.
	slices.SortStableFunc(in.Deliveries, func(a, b *model.Delivery) int { return a.Start().Compare(b.Start()) })
	if n := joinByKey(in, alts); n > 0 {
		c.joined.Add(int64(n))
		// A trip that took in lines of an outer tier may start earlier.
		slices.SortStableFunc(in.Deliveries, func(a, b *model.Delivery) int { return a.Start().Compare(b.Start()) })
	}
	return in
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
