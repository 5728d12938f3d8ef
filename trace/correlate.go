// Package trace groups observations (see the model package) into a
// model.Set: each observation joins its delivery by request id, each
// delivery its intent by key within its scope, effects and browser entries
// join the trip whose ids or key they carry, and what may be the retry of
// a lost delivery under a new key is found by client, method and route.
//
// A Correlator is the reader's consumer: Prepare runs on the reader's
// parallel workers, Consume in input order, and Set groups and orders
// everything once reading is over. The same inputs in the same order give
// the same Set, whatever the workers.
//
// Most lines of a big access log are plain: one proxy line per request,
// answered 2xx, nothing else to say. For those the correlator keeps a
// pointer-free record (record.go) and the strings in a chunked arena
// (arena.go, ids packed by pack.go, repeated values interned by
// intern.go), so memory follows the number of requests and the garbage
// collector has nothing to scan; full Observations are kept only for lines
// that say more. Rich Delivery and Intent values are built (build.go, from
// a slab, slab.go) only for the intents worth a rule's look and for those
// Build asks for; the others are counted, and built when looked up. The
// request-id index (index.go), an open-addressing table, and the compact
// records' chunks (region.go, outside the Go heap) are on huge pages where
// the system offers them. All of this is the correlator's own
// business: a Set reaches it through model.Store, and lets go of it when
// told that no more lookups will come.
package trace

import (
	"runtime"
	"sync/atomic"

	"github.com/idem-cli/idem/model"
)

// Correlator builds a Set from observations added in input order. The
// order of Add calls decides tie-breaks, so the same inputs always give the
// same Set. It keeps plain observations compact (see record.go) and builds
// rich deliveries and intents only for those worth a rule's look.
type Correlator struct {
	// ScopeRoute and ScopeMethod add the route and method to each intent's
	// scope (see formats.Config.Scope).
	ScopeRoute, ScopeMethod bool
	// Build says what Set builds besides what is worth a look on its own;
	// NewCorrelator sets defaultBuild.
	Build Build
	// Released, when not nil, is called once the Set has let go of the
	// store (see model.Set.LookupsDone): most of the heap is garbage
	// then, and a program that tunes its collector may collect at once.
	Released func()

	// mem holds the chunks of obs, deliveries, rids, alts, extras and
	// fpSeen, outside the heap (region.go).
	mem        *regions
	obs        chunked[cobs]
	fulls      []*model.Observation
	deliveries chunked[cdelivery]
	rids       chunked[aref] // each delivery's request id
	// alts holds the hash of each observation's other request id
	// (AltRequestID, see altHash), from the first line that carried one;
	// empty for most logs.
	alts chunked[uint32]
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
	// extras holds what browsers' compact lines say beyond cobs, in
	// observation order (flagExtra); fpSeen each line that logged a
	// fingerprint, until Set (see markSharedPayloads).
	extras chunked[cextra]
	fpSeen chunked[fpSeen]
	texts  pairTable
	// methodIDs[code] is methods' number for methodCode code, plus one;
	// 0 until that method is first seen.
	methodIDs [methodCodes]uint16
	routes    interner
	orphans   []*model.Observation
	// procs names the trips of an id kept apart by input (process.go):
	// empty unless two inputs logged one id for different trips.
	procs map[procKey]int32
	// splits are the deliveries ownProcess split, each beside the one it
	// was kept apart from, until rejoinProcesses.
	splits [][2]int32
	// activities maps an activity attempt to its id, learned from the
	// lines that name both (see activityOf).
	activities map[activityKey]string
	// joined counts the browser entries joined to a delivery by key (see
	// joinByKey): each is one delivery fewer.
	joined atomic.Int64
	// spans are the observations of traces, held until reading is over
	// (spans.go).
	spans spanHeld
	// prevKeys are the keys a line named as the one its send retries
	// (Observation.PreviousKey): their intents are built, so that the
	// rules read both ends of the link.
	prevKeys map[string]bool
	// endOrStart says some line's time may be its start or its end
	// (model.Observation.EndOrStart); startOrEnd learns which.
	endOrStart bool
	// idlessWrites are the proxy's and the server's writes among them,
	// which joinIdless pairs where the pair is one each way.
	idlessWrites  []*model.Observation
	joiningIdless bool
	// idless counts the client, proxy and server lines with no id at all.
	idless [model.TierWorker]int
	// unkeyedCount counts the deliveries without a key (see unkeyed).
	unkeyedCount int
	// supplies says which fields each file's lines carried at each tier;
	// lastSupply is the one a line was last added to.
	supplies   []model.Supply
	lastSupply int
}

// Expect sizes the request-id index for inputs of this many bytes (about
// one request per 500 bytes of a plain file), so that it does not grow by
// rehashing a million times over. Readers call it before the first batch.
func (c *Correlator) Expect(size int64) {
	if n := size / 500; n > 1024 && c.byID.n == 0 {
		c.byID = newHashIndex(int(min(n, 32<<20)))
	}
}

// NewCorrelator makes an empty correlator that builds what defaultBuild
// says. scope lists the fields that scope a key (see the config's
// "scope"); "route" and "method" among them add the route and method to
// each intent's scope.
func NewCorrelator(scope []string) *Correlator {
	c := &Correlator{texts: pairTable{limit: maxTexts}, methods: pairTable{limit: 1 << 8}, Build: defaultBuild()}
	c.mem = &regions{}
	c.obs.mem, c.deliveries.mem, c.rids.mem, c.alts.mem, c.extras.mem, c.fpSeen.mem = c.mem, c.mem, c.mem, c.mem, c.mem, c.mem
	// A correlator dropped without its Set's release (a failed read, a
	// test) still returns its regions, once the collector finds it gone.
	runtime.AddCleanup(c, (*regions).release, c.mem)
	c.routes = interner{a: &c.arena, limit: 1 << 16}
	for _, s := range scope {
		c.ScopeRoute = c.ScopeRoute || s == "route"
		c.ScopeMethod = c.ScopeMethod || s == "method"
	}
	return c
}
