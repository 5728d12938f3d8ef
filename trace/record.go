package trace

import (
	"math"
	"slices"
	"time"

	"github.com/idem-cli/idem/model"
)

// cobs is a compact observation. Strings are arena strings or table
// numbers; the rest are small numbers. A line that says more than these
// fields is also kept whole (flagFull; see Correlator.full), but for a
// browser's fingerprint, result id and entry, kept in a cextra (flagExtra;
// see browserLine).
type cobs struct {
	// Eight-byte fields first, then four, two and one: no padding.
	key      aref
	client   aref
	route    aref
	time     int64  // unix nanoseconds; 0 when unknown
	dur      uint32 // see packDuration
	line     int32
	next     int32  // the delivery's next observation, -1 at the end
	source   uint16 // Correlator.sources: format and file
	text     uint16 // Correlator.texts: detail and message
	status   int16
	upstream int16
	method   uint8 // Correlator.methods (the method is the pair's first string)
	tier     model.Tier
	outcome  model.Outcome
	flags    uint8
}

const (
	flagReplayed = 1 << iota
	flagRetryAfter
	flagFull // kept whole too: see Correlator.full
	// flagExtra marks a browser's line whose fingerprint, result id and
	// entry are kept in Correlator.extras (see browserLine).
	flagExtra
	// flagDigest says the line's fingerprint is stored as its sha256
	// digest's 32 bytes (see digest).
	flagDigest
	// flagEndOrStart is model.Observation.EndOrStart (see startOrEnd.go).
	flagEndOrStart
)

// cdelivery is a compact delivery: a chain of observations.
type cdelivery struct {
	first, last int32 // observation indexes
	next        int32 // the intent's next delivery
	// name is the top half of the hash that names the delivery's intent,
	// worked out as its first key arrived (see namedWhileRead); 0 when
	// it must be worked out from the chain.
	name        uint32
	interesting bool
	synthetic   bool
	keyed       bool // an observation carried a key or a key hash
	multiKey    bool // the request id carried several keys (Correlator.extraKeys)
	split       bool // another input's lines of the id are another trip (Correlator.procs)
}

// cintent is a compact intent: a chain of deliveries. Its key is its
// first delivery's (see Correlator.intentKeyRef).
type cintent struct {
	extra       int32 // index into Correlator.intentExtras for a scope or a hash-only key, else -1
	first, last int32
	n           int32
	interesting bool
}

// intentExtra is what few intents have: a scope, or a key known only by
// its hash ("hash:…", or the raw key learned from another line).
type intentExtra struct {
	scope, hashKey string
}

// simple reports whether o says nothing beyond the fields cobs holds (a
// Detail and a Message from a small set of values, such as "499 client
// closed request" or "request completed", are among them: see
// Correlator.texts).
func simple(o *model.Observation) bool {
	return o.Scope == "" && o.Decision == "" && o.State == "" && o.Fingerprint == "" &&
		o.ResultID == "" && !o.Effect && o.Attempt == 0 && o.RetryMark == "" && o.PreviousKey == "" && o.UpstreamTries == 0 && o.Workflow == nil &&
		o.KeyHash == "" && o.Labels == "" && o.Source.Entry == 0
}

// fits reports whether cobs holds o's values exactly: a value past a
// field's range (a status beyond int16, a line past 2^31, a duration
// packDuration cannot hold, a time outside int64 nanoseconds or away from
// UTC) keeps the observation whole instead of changing what it says.
func fits(o *model.Observation) bool {
	_, ok := packDuration(o.Duration)
	return ok && int(int16(o.Status)) == o.Status && int(int16(o.UpstreamStatus)) == o.UpstreamStatus &&
		int(int32(o.Source.Line)) == o.Source.Line && timeFits(o.Time)
}

// timeFits reports whether cobs.time holds t: unix nanoseconds, 0 for the
// zero time (so the epoch itself does not fit), in UTC.
func timeFits(t time.Time) bool {
	// Seconds well inside what int64 nanoseconds reach (1678 to 2262);
	// the zero time is far outside.
	const limit = math.MaxInt64 / int64(time.Second)
	if sec := t.Unix(); sec > -limit && sec < limit {
		return t.Location() == time.UTC && sec*int64(time.Second)+int64(t.Nanosecond()) != 0
	}
	return t.IsZero()
}

// durUnits are the units packDuration counts in, finest first.
var durUnits = [4]time.Duration{time.Nanosecond, time.Microsecond, time.Millisecond, time.Second}

// packDuration stores d in 32 bits: a 30-bit count of the finest unit in
// durUnits that holds it exactly, and the unit's index. Nanoseconds reach
// 1.07 s, microseconds 17.8 minutes, milliseconds 12.4 days and seconds 34
// years; false when none holds d (or d is negative).
func packDuration(d time.Duration) (uint32, bool) {
	const max = 1 << 30
	switch {
	case d >= 0 && d < max: // most requests: no division
		return uint32(d) << 2, true
	case d < 0 || d%time.Microsecond != 0:
		return 0, false
	case d/time.Microsecond < max:
		return uint32(d/time.Microsecond)<<2 | 1, true
	case d%time.Millisecond != 0:
		return 0, false
	case d/time.Millisecond < max:
		return uint32(d/time.Millisecond)<<2 | 2, true
	case d%time.Second == 0 && d/time.Second < max:
		return uint32(d/time.Second)<<2 | 3, true
	}
	return 0, false
}

// durBits is what cobs.dur holds for d. An observation whose duration does
// not pack is kept whole (see fits), so its 0 is never read.
func durBits(d time.Duration) uint32 {
	v, _ := packDuration(d)
	return v
}

// unpackDuration reads what packDuration stored.
func unpackDuration(v uint32) time.Duration {
	return time.Duration(v>>2) * durUnits[v&3]
}

// notable reports whether an observation makes its delivery worth a rule's
// look on its own: anything but a plain, answered request.
func notable(o *model.Observation) bool { return notableSimple(o, simple(o)) }

// notableSimple is notable for an o whose simple(o) is known.
func notableSimple(o *model.Observation, simple bool) bool {
	return !simple || o.Detail != "" || o.Message != "" || o.Outcome.Lost() || o.Outcome == model.OutcomeNotDelivered || o.Status >= 400 ||
		o.UpstreamStatus >= 400 || o.Replayed || o.RetryAfter
}

// materialize rebuilds a full Observation from a compact one.
func (c *Correlator) materialize(i int32, rid string, s *slab) *model.Observation {
	co := c.obs.at(i)
	if f := c.full(i); f >= 0 {
		return c.fulls[f]
	}
	src, text := c.sources.list[co.source], c.texts.list[co.text]
	o := s.observation()
	*o = model.Observation{Tier: co.tier, Format: src[0], Duration: unpackDuration(co.dur),
		Method: c.methods.list[co.method][0], Route: s.own(&c.arena, co.route), Status: int(co.status), UpstreamStatus: int(co.upstream),
		Outcome: co.outcome, RequestID: rid, Key: s.own(&c.arena, co.key), Client: s.own(&c.arena, co.client),
		Detail: text[0], Message: text[1], Replayed: co.flags&flagReplayed != 0, RetryAfter: co.flags&flagRetryAfter != 0,
		EndOrStart: co.flags&flagEndOrStart != 0,
		Source:     model.Source{Line: int(co.line)}}
	o.Source.File, o.Process = fileOf(src[1])
	if co.time != 0 {
		o.Time = time.Unix(0, co.time).UTC()
	}
	if co.flags&flagExtra != 0 {
		c.fillExtra(o, i, co.flags, s)
	}
	return o
}

// obsTime is when observation j started.
func (c *Correlator) obsTime(j int32) time.Time {
	if f := c.full(j); f >= 0 {
		return c.fulls[f].Time
	}
	if t := c.obs.at(j).time; t != 0 {
		return time.Unix(0, t).UTC()
	}
	return time.Time{}
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
