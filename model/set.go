package model

import (
	"slices"
	"strings"
)

// Set is the correlated result of reading inputs: what the rules read.
//
// Most intents of a big log are one plain, answered delivery with
// nothing for a rule to see: the correlator counts those and builds only
// the intents worth a look and those the rules asked for (Built). The
// counts say how many there were in all, and FindIntent finds any intent,
// building on demand what was only counted, until the caller says it is
// done with lookups (LookupsDone).
type Set struct {
	Inputs []*Input
	// Built holds the intents built in full: those that an observation
	// made worth a look on their own (a lost response, an error, a second
	// delivery, a field beyond a plain answered request) and those the
	// correlator was asked to build besides; IntentCount counts them all.
	Built []*Intent
	// Unkeyed holds the deliveries that carried no Idempotency-Key at any
	// tier and were built as Built's intents are; UnkeyedCount counts
	// them all.
	Unkeyed []*Delivery
	// Orphans are effect lines that name neither a request id nor a key.
	Orphans []*Observation
	// Idless counts, by tier, the request lines that carried neither a
	// request id nor a key (nor a trace id) and could not be joined: a
	// proxy's and a server's write that match one each way are one
	// unkeyed delivery instead, and counted here no more.
	Idless map[Tier]int
	// Tiers records which tiers appear anywhere in the inputs.
	Tiers map[Tier]bool
	// Supplies says which fields each input's lines carried at each tier,
	// in the order first seen: what the rules could read.
	Supplies []Supply
	// Store reaches what was counted but not built (trace fills it); nil when Built and
	// Unkeyed are everything (a set made by hand).
	Store store
}

// store is what a set keeps of the correlator that made it: the intents
// it only counted, which it builds when they are looked up.
type store interface {
	// Counts says how many intents, unkeyed deliveries and deliveries the
	// inputs hold, built or not.
	Counts() Counts
	// Find builds the intents that were only counted and whose key q
	// matches.
	Find(q *KeyQuery) []*Intent
	// Release lets go of what Find needs, most of the memory of a big
	// input; Find then finds nothing, and the counts stay.
	Release()
}

// Counts are what a store counted.
type Counts struct {
	Intents, Unkeyed, Deliveries int
}

// LookupsDone says that FindIntent will not be called again: the set lets
// go of what only lookups need, most of the memory of a big input (the
// rules read Built alone). The counts stay; FindIntent would find only
// Built's intents from now on.
func (s *Set) LookupsDone() {
	if s.Store != nil {
		s.Store.Release()
	}
}

// IntentCount is how many intents the inputs hold, built or not.
func (s *Set) IntentCount() int {
	if s.Store == nil {
		return len(s.Built)
	}
	return s.Store.Counts().Intents
}

// UnkeyedCount is how many deliveries carried no key, built or not.
func (s *Set) UnkeyedCount() int {
	if s.Store == nil {
		return len(s.Unkeyed)
	}
	return s.Store.Counts().Unkeyed
}

// DeliveryCount is how many deliveries the inputs hold.
func (s *Set) DeliveryCount() int {
	if s.Store == nil {
		n := len(s.Unkeyed)
		for _, in := range s.Built {
			n += len(in.Deliveries)
		}
		return n
	}
	return s.Store.Counts().Deliveries
}

// FindIntent returns the intents that carry key (as a raw key, or the
// hash form), built or only counted, in order of their start; nil for
// none.
func (s *Set) FindIntent(key string) []*Intent {
	q := newKeyQuery(key)
	var out []*Intent
	for _, in := range s.Built {
		if q.Match(in.Key) {
			out = append(out, in)
		}
	}
	if s.Store != nil {
		// Intents that were only counted are built on demand.
		out = append(out, s.Store.Find(q)...)
	}
	slices.SortStableFunc(out, func(a, b *Intent) int {
		if c := a.Start().Compare(b.Start()); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}
