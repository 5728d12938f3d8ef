package diagnose

import (
	"cmp"
	"iter"
	"slices"
	"strconv"
	"time"

	"github.com/idem-cli/idem/model"
)

// effectsLogged reports whether any input logged an effect line.
func (c *context) effectsLogged() bool { return len(c.effectInputs) > 0 }

// effects returns the business effects a delivery made at the server or
// worker tiers: result ids first seen there (a line naming a result id an
// earlier delivery made is that effect again, not a new one). A server's 2xx answer to a write that was not a replay
// stands in for the effect when no input logs effect lines at all, and,
// when it names its result id, when its own input logs none (a service
// that logs only "201 ord_1001" beside others that log "order created").
func (c *context) effects(d *model.Delivery) []*model.Observation {
	var out []*model.Observation
	again := false
	for _, o := range d.Observations {
		if o.Effect && o.Tier != model.TierProvider && o.Tier != model.TierClient {
			if c.seenBefore(d, o) {
				again = true
				continue
			}
			out = append(out, o)
		}
	}
	if len(out) > 0 || again {
		return out
	}
	if replayed(d) || inProgress(d) != nil {
		return nil
	}
	for _, o := range d.Observations {
		if o.Tier == model.TierServer && o.Status >= 200 && o.Status < 300 && model.IsWrite(d.Method()) &&
			(o.Decision == "" || o.Decision == "new") &&
			(!c.effectsLogged() || o.ResultID != "" && !c.effectInputs[o.Source.File]) {
			if c.seenBefore(d, o) {
				return nil // the answer names a result an earlier delivery made
			}
			return []*model.Observation{o}
		}
	}
	return nil
}

// seenBefore reports whether the result id o names was first seen in
// another delivery than d.
func (c *context) seenBefore(d *model.Delivery, o *model.Observation) bool {
	if o.ResultID == "" || c.firstSeen == nil {
		return false
	}
	f, ok := c.firstSeen[resultAt{o.Tier, o.ResultID}]
	return ok && f != d
}

// onlyStatus reports whether every effect a delivery made is a 2xx
// standing in for one (no effect line, no result id) from a server input
// that logs no dedup decision: a replay of the stored answer returns the
// original status, so such a line reads the same whether the delivery ran
// or was answered from the key record.
func (c *context) onlyStatus(d *model.Delivery) bool {
	effects := c.effects(d)
	for _, o := range effects {
		if o.Effect || o.ResultID != "" || c.set.SuppliedBy(o, model.FieldDecision) {
			return false
		}
	}
	return len(effects) > 0
}

// providerCalls returns what the provider tier logged for a delivery:
// each is an external call that may have had an effect.
func providerCalls(d *model.Delivery) []*model.Observation {
	var out []*model.Observation
	for _, o := range d.Observations {
		if o.Tier == model.TierProvider && (o.Effect || o.Status == 0 || o.Status < 300) {
			out = append(out, o)
		}
	}
	return out
}

// replayed reports whether a delivery was answered from the key record.
func replayed(d *model.Delivery) bool {
	for _, o := range d.Observations {
		if o.Replayed || o.Decision == "replay" || o.Decision == "replayed" {
			return true
		}
	}
	return false
}

var inProgressWords = []string{"in_progress", "in-progress", "inprogress", "locked", "busy", "concurrent", "processing"}

// inProgress returns the observation that answered "still in progress".
func inProgress(d *model.Delivery) *model.Observation {
	for _, o := range d.Observations {
		if slices.Contains(inProgressWords, o.Decision) {
			return o
		}
	}
	for _, o := range d.Observations {
		if o.Status == 409 && (o.RetryAfter || slices.Contains(inProgressWords, o.State)) {
			return o
		}
	}
	return nil
}

var conflictWords = []string{"conflict", "mismatch", "fingerprint_mismatch", "payload_mismatch", "rejected", "reject"}

// conflict returns the observation where the server refused the delivery
// for reusing a key with another payload.
func conflict(d *model.Delivery) *model.Observation {
	for _, o := range d.Observations {
		if slices.Contains(conflictWords, o.Decision) {
			return o
		}
	}
	if inProgress(d) != nil {
		return nil
	}
	for i := len(d.Observations) - 1; i >= 0; i-- {
		o := d.Observations[i]
		switch o.Status {
		case 400, 409, 417, 422:
			return o
		}
	}
	return nil
}

// serverSuccess returns the observation that shows the server answered
// 2xx: a server line, or a proxy line whose upstream status was 2xx (nginx
// logs the server's 201 behind its own 499), or nil.
func serverSuccess(d *model.Delivery) *model.Observation {
	for i := len(d.Observations) - 1; i >= 0; i-- {
		o := d.Observations[i]
		if o.Tier >= model.TierServer && o.Tier != model.TierProvider && o.Status >= 200 && o.Status < 300 {
			return o
		}
	}
	for _, o := range d.Observations {
		if o.Tier == model.TierProxy && o.UpstreamStatus >= 200 && o.UpstreamStatus < 300 {
			return o
		}
	}
	return nil
}

// edgeResponse returns what the outermost tier saw as a response: the
// observation, or nil when no response reached it.
func edgeResponse(d *model.Delivery) *model.Observation {
	e := d.Edge()
	if e == nil || e.Outcome.Lost() || e.Status == 0 {
		return nil
	}
	return e
}

// completedAt is when a delivery's work was done: its last effect, or the
// end of its last server observation. An effect that is a request's line
// (a 2xx standing in for it) was done when the request ended, not when
// it began.
func completedAt(c *context, d *model.Delivery) time.Time {
	var t time.Time
	for _, o := range c.effects(d) {
		if e := o.End(); e.After(t) {
			t = e
		}
	}
	if !t.IsZero() {
		return t
	}
	for _, o := range d.Observations {
		if o.Tier == model.TierServer && o.End().After(t) {
			t = o.End()
		}
	}
	return t
}

// serverStart is when the server began a delivery (its first server
// observation), falling back to the delivery's start.
func serverStart(d *model.Delivery) time.Time {
	for _, o := range d.Observations {
		if o.Tier == model.TierServer && !o.Time.IsZero() {
			return o.Time
		}
	}
	return d.Start()
}

// coarse reports whether a line comes from a log that writes its times to
// the second: two events less than a second apart cannot be ordered, and
// a gap computed from them is no measure.
func (c *context) coarse(obs ...*model.Observation) bool {
	for _, o := range obs {
		if o != nil && !o.Time.IsZero() && !c.set.Precise(o) {
			return true
		}
	}
	return false
}

// serverLines are the server's observations of the deliveries: what
// serverStart and completedAt read.
func serverLines(ds ...*model.Delivery) []*model.Observation {
	var out []*model.Observation
	for _, d := range ds {
		for _, o := range d.Observations {
			if o.Tier == model.TierServer {
				out = append(out, o)
			}
		}
	}
	return out
}

// gapText says how long after one event another came: "1.592s later";
// or, where the logs cannot order them (times to the second, or the
// clocks of two tiers disagreeing), that they cannot, rather than a
// negative or falsely precise gap.
func gapText(gap time.Duration, coarse bool) string {
	switch {
	case coarse && gap.Abs() < 2*time.Second:
		return "within the same second or two (the log writes its times to the second, too coarse to measure the gap)"
	case gap < 0:
		return "at about the same time (its time reads " + gap.Abs().Round(time.Millisecond).String() +
			" earlier: the clocks or the logs' resolution cannot order the two)"
	case coarse:
		return "about " + gap.Round(time.Second).String() + " later (times to the second)"
	}
	return gap.Round(time.Millisecond).String() + " later"
}

// hhmmss writes a time for narratives; evidence tables carry full dates.
func hhmmss(t time.Time) string {
	var b [16]byte
	return string(appendHHMMSS(b[:0], t))
}

// appendHHMMSS appends hhmmss(t): what t.UTC().Format("15:04:05.000Z")
// writes, by hand, as narratives are written by the ten thousand.
func appendHHMMSS(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, "an unknown time"...)
	}
	h, m, s := t.UTC().Clock()
	ms := t.Nanosecond() / 1e6 // truncated, as .000 does
	return append(b, byte('0'+h/10), byte('0'+h%10), ':', byte('0'+m/10), byte('0'+m%10), ':', byte('0'+s/10), byte('0'+s%10), '.',
		byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 'Z')
}

// describeLoss says in words how a response went missing.
func describeLoss(o *model.Observation) string {
	return string(appendLoss(nil, o))
}

// appendLoss appends describeLoss(o).
func appendLoss(b []byte, o *model.Observation) []byte {
	b = append(b, "the "...)
	b = append(b, o.Tier.String()...)
	b = append(b, ' ')
	switch o.Outcome {
	case model.OutcomeTimeout:
		if o.Duration > 0 {
			b = append(b, "gave up after "...)
			b = append(b, o.Duration.Round(time.Millisecond).String()...)
		} else {
			b = append(b, "gave up waiting"...)
		}
	case model.OutcomeReset:
		if o.Tier == model.TierServer {
			b = append(b, "dropped its response"...)
		} else {
			b = append(b, "lost the connection"...)
		}
	case model.OutcomeAborted:
		b = append(b, "aborted the request"...)
	case model.OutcomeClientClosed:
		b = append(b, "saw the client close the connection"...)
	case model.OutcomeUpstreamTimeout:
		b = append(b, "timed out waiting for the server"...)
	case model.OutcomeUpstreamReset:
		b = append(b, "lost the server's connection"...)
	default:
		b = append(b, "got no response"...)
	}
	if o.Detail != "" {
		b = append(b, " ("...)
		b = append(b, o.Detail...)
		b = append(b, ')')
	}
	return b
}

// evidence collects observations without duplicates, in tier and time order
// within each delivery and delivery order across.
type evidence struct {
	seen map[*model.Observation]bool // made once list is long: most stay short
	list []*model.Observation
}

// evidenceScan is how long a list is searched before a map is made.
const evidenceScan = 16

func (e *evidence) add(obs ...*model.Observation) {
	for _, o := range obs {
		if o == nil || e.has(o) {
			continue
		}
		e.list = append(e.list, o)
		if e.seen != nil {
			e.seen[o] = true
		} else if len(e.list) > evidenceScan {
			e.seen = make(map[*model.Observation]bool, 2*len(e.list))
			for _, x := range e.list {
				e.seen[x] = true
			}
		}
	}
}

func (e *evidence) has(o *model.Observation) bool {
	if e.seen != nil {
		return e.seen[o]
	}
	return slices.Contains(e.list, o)
}

// delivery adds a delivery's observations that say something: the edge,
// losses, decisions, statuses and effects.
func (e *evidence) delivery(d *model.Delivery) {
	for _, o := range d.Observations {
		if o == d.Edge() || o.Outcome.Lost() || o.Decision != "" || o.Effect || o.Status > 0 || o.Replayed {
			e.add(o)
		}
	}
}

func (e *evidence) sorted() []*model.Observation {
	slices.SortStableFunc(e.list, HappenedFirst)
	return e.list
}

// HappenedFirst orders lines by what happened first: by time, and within
// one millisecond by line order in one file, by tier (client first)
// across files. Every timeline a report draws is in this order.
func HappenedFirst(a, b *model.Observation) int {
	if c := a.At().Compare(b.At()); c != 0 {
		return c
	}
	if a.Source.File == b.Source.File {
		return cmp.Or(cmp.Compare(a.Source.Line, b.Source.Line), cmp.Compare(a.Source.Entry, b.Source.Entry))
	}
	return cmp.Compare(a.Tier, b.Tier)
}

// uniqueResults lists the distinct result ids of effects.
func uniqueResults(obs []*model.Observation) []string {
	var out []string
	for _, o := range obs {
		if o.ResultID != "" && !slices.Contains(out, o.ResultID) {
			out = append(out, o.ResultID)
		}
	}
	return out
}

// effectCount counts effects as the reader should: one per result id
// (a worker's report and the server's record of one order are one
// effect), and one per line that names none.
func effectCount(obs []*model.Observation) int {
	n := len(uniqueResults(obs))
	for _, o := range obs {
		if o.ResultID == "" {
			n++
		}
	}
	return n
}

func resultList(ids []string) string {
	return string(appendResults(nil, ids))
}

// allDeliveries yields every delivery built, keyed or not, in a stable
// order, without gathering them first.
func allDeliveries(set *model.Set) iter.Seq[*model.Delivery] {
	return func(yield func(*model.Delivery) bool) {
		for _, in := range set.Built {
			for _, d := range in.Deliveries {
				if !yield(d) {
					return
				}
			}
		}
		for _, d := range set.Unkeyed {
			if !yield(d) {
				return
			}
		}
	}
}

func plural(n int, one, many string) string {
	return string(appendPlural(nil, n, one, many))
}

// appendPlural appends plural(n, one, many).
func appendPlural(b []byte, n int, one, many string) []byte {
	b = append(strconv.AppendInt(b, int64(n), 10), ' ')
	if n == 1 {
		return append(b, one...)
	}
	return append(b, many...)
}

// appendResults appends resultList(ids).
func appendResults(b []byte, ids []string) []byte {
	if len(ids) == 0 {
		return append(b, "no result id logged"...)
	}
	for i, id := range ids {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, id...)
	}
	return b
}
