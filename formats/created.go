package formats

import (
	"regexp"
	"strings"
)

// What a line says was made: an effect is a created thing, whatever the
// domain calls it. A line whose message says something was created,
// charged, refunded, booked… (effectWords) names what it made in a field
// named for it ("refund created refund_id=rf_1 order_id=ord_1": the
// refund, not the order it refunds), else in its "id" ("ticket created
// id=T-1 order_id=ord_1"), else in the first member named like an id
// ("bookingId") that no meaning of the vocabulary but a result id's
// claims and that names no place or party (a span's, a session's, a
// tenant's id). Whether it is a new effect is the rules':
// a result id already seen is a replay or a cached answer.

// nounBeside is the word before an effect word ("refund created") or
// after it ("created refund"), lower-cased.
var nounBeside = regexp.MustCompile(`(?i)\b([a-z][a-z0-9]*)[ _-](?:` + effectList + `)\b|\b(?:` + effectList + `)[ _:-]+(?:an? |the |new )?([a-z][a-z0-9]*)\b`)

// notMade are the ids that name a place, a process or a party, never a
// thing a request made (normalised, without their "id").
var notMade = map[string]bool{"span": true, "parent": true, "parentspan": true, "thread": true, "session": true, "process": true,
	"tenant": true, "org": true, "organization": true, "client": true, "device": true, "connection": true, "conn": true, "instance": true,
	"node": true, "host": true, "pod": true, "container": true, "worker": true, "shard": true, "partition": true, "trace": true,
	"request": true, "req": true, "correlation": true, "causation": true, "workflow": true, "run": true, "activity": true, "user": true,
	"customer": true, "account": true, "merchant": true, "key": true, "idempotency": true, "idempotencykey": true, "p": true, "t": true}

// idName is a member's name that says it holds an id, without its "id":
// "refund" for refund_id, refundId and refundID; "" for "id" itself.
func idName(name string) (string, bool) {
	n := normName(name)
	if !strings.HasSuffix(n, "id") || strings.ContainsAny(n, ".@") {
		return "", false
	}
	if len(name) > 2 {
		// The id must be a word of its own: refund_id, refundId, refundID
		// (not "paid", "valid").
		c := name[len(name)-3]
		if w := name[len(name)-2:]; !(c == '_' || c == '-' || w == "Id" || w == "ID") {
			return "", false
		}
	}
	return strings.TrimSuffix(n, "id"), true
}

// madeID is the id of what a line whose message says it made something
// names: the member named for the message's noun, else its "id", else
// the first member named like an id that no meaning claims.
func madeID(r *record, msg string) string {
	noun := ""
	if m := nounBeside.FindStringSubmatch(msg); m != nil {
		noun = strings.ToLower(m[1] + m[2])
	}
	first, plain := "", ""
	for i, k := range r.keys {
		base, ok := idName(k)
		if !ok {
			continue
		}
		v := present(r.val(i))
		if v == "" {
			continue
		}
		switch {
		case base == "":
			if plain == "" {
				plain = v
			}
		case noun != "" && base == noun && !notMade[base]:
			return v
		case first == "" && !notMade[base]:
			if t, claimed := termIndex[normName(k)]; !claimed || vocabulary[t].means == mResultID {
				first = v
			}
		}
	}
	if plain != "" {
		return plain
	}
	return first
}

// mayNameID reports, cheaply, whether a member's name ends in "id" in
// any case: a line without one names nothing it made.
func mayNameID(r *record) bool {
	for _, k := range r.keys {
		if n := len(k); n >= 2 && k[n-2]|0x20 == 'i' && k[n-1]|0x20 == 'd' {
			return true
		}
	}
	return false
}
