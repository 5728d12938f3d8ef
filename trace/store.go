package trace

import (
	"time"
)

// The correlator's compact storage. Most lines of a big access log are
// plain: one proxy line per request, answered 2xx, nothing else to say. For
// those it keeps a pointer-free record and the strings in a chunked arena,
// so memory follows the number of requests and the garbage collector has
// nothing to scan; full Observations are kept only for lines that say more,
// and rich Delivery and Intent values are built only for the intents the
// rules must look at.

// arena holds strings in large chunks that never move, so a string made
// from a chunk stays valid and costs no allocation of its own.
type arena struct {
	chunks [][]byte
}

const arenaChunk = 1 << 20

// add copies s into the arena and returns the arena's copy.
func (a *arena) add(s string) string {
	if s == "" {
		return ""
	}
	if len(s) > arenaChunk/4 {
		return string([]byte(s))
	}
	n := len(a.chunks)
	if n == 0 || cap(a.chunks[n-1])-len(a.chunks[n-1]) < len(s) {
		a.chunks = append(a.chunks, make([]byte, 0, arenaChunk))
		n++
	}
	c := a.chunks[n-1]
	start := len(c)
	c = append(c, s...)
	a.chunks[n-1] = c
	return bytesToString(c[start:len(c):len(c)])
}

// bytes reports the arena's size.
func (a *arena) bytes() int { return len(a.chunks) * arenaChunk }

// table interns small sets of repeated strings (methods, routes, formats,
// files, clients) as indexes.
type table struct {
	index map[string]uint32
	list  []string
}

func (t *table) id(s string) uint32 {
	if t.index == nil {
		t.index = map[string]uint32{"": 0}
		t.list = []string{""}
	}
	if i, ok := t.index[s]; ok {
		return i
	}
	i := uint32(len(t.list))
	t.list = append(t.list, s)
	t.index[s] = i
	return i
}

// cobs is a compact observation. Strings are arena strings; the rest are
// small numbers. full, when not -1, indexes the full Observation kept for a
// line that says more than these fields.
type cobs struct {
	key      string
	time     int64 // unix nanoseconds; 0 when unknown
	dur      int64
	client   string
	route    uint32
	method   uint16
	format   uint16
	file     uint16
	status   int16
	upstream int16
	line     int32
	full     int32
	next     int32 // the delivery's next observation, -1 at the end
	tier     Tier
	outcome  Outcome
	flags    uint8
}

const (
	flagReplayed = 1 << iota
	flagRetryAfter
)

// cdelivery is a compact delivery: a chain of observations.
type cdelivery struct {
	first, last int32 // observation indexes
	intent      int32 // -1 for unkeyed
	next        int32 // the intent's next delivery
	interesting bool
	synthetic   bool
	keys        int32 // index into extraKeys when the request id carried several keys, else -1
	keyHash     string
}

// cintent is a compact intent: a chain of deliveries.
type cintent struct {
	first, last int32
	n           int32
	key, scope  string
	interesting bool
}

// plain reports whether o can be kept compact: nothing beyond the fields
// cobs holds.
func plain(o *Observation) bool {
	return o.Detail == "" && o.Scope == "" && o.Decision == "" && o.State == "" && o.Fingerprint == "" &&
		o.ResultID == "" && !o.Effect && o.Attempt == 0 && o.WorkflowID == "" && o.RunID == "" &&
		o.ActivityID == "" && o.ActivityType == "" && o.Message == "" && o.KeyHash == ""
}

// notable reports whether an observation makes its delivery worth a rule's
// look on its own: anything but a plain, answered request.
func notable(o *Observation) bool {
	return !plain(o) || o.Outcome.Lost() || o.Outcome == OutcomeNotDelivered || o.Status >= 400 ||
		o.UpstreamStatus >= 400 || o.Replayed || o.RetryAfter
}

// materialize rebuilds a full Observation from a compact one.
func (c *Correlator) materialize(i int32, rid string) *Observation {
	co := c.obs.at(i)
	if co.full >= 0 {
		return c.fulls[co.full]
	}
	o := &Observation{Tier: co.tier, Format: c.formats.list[co.format], Duration: time.Duration(co.dur),
		Method: c.methods.list[co.method], Route: c.routes.list[co.route], Status: int(co.status), UpstreamStatus: int(co.upstream),
		Outcome: co.outcome, RequestID: rid, Key: co.key, Client: co.client,
		Replayed: co.flags&flagReplayed != 0, RetryAfter: co.flags&flagRetryAfter != 0,
		Source: Source{File: c.files.list[co.file], Line: int(co.line)}}
	if co.time != 0 {
		o.Time = time.Unix(0, co.time).UTC()
	}
	return o
}

// chunked is an append-only list stored in fixed-size chunks: appending
// never copies what is stored, and indexes stay valid.
type chunked[T any] struct {
	chunks [][]T
	n      int
}

const chunkBits = 14

func (l *chunked[T]) add(v T) int32 {
	if l.n>>chunkBits == len(l.chunks) {
		l.chunks = append(l.chunks, make([]T, 0, 1<<chunkBits))
	}
	c := &l.chunks[l.n>>chunkBits]
	*c = append(*c, v)
	l.n++
	return int32(l.n - 1)
}

func (l *chunked[T]) at(i int32) *T { return &l.chunks[i>>chunkBits][i&(1<<chunkBits-1)] }

func (l *chunked[T]) len() int { return l.n }
