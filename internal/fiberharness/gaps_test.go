package fiberharness

import "testing"

// knownGaps are the rules the traffic calls for that do not fire on the
// Fiber captures, keyed rule/key-role (see expectations), or
// variant:rule/key-role for one capture only, each with why.
// The assertions they name log instead of failing; remove an entry once
// it fires.
var knownGaps = map[string]string{
	"fiber:payload-mismatch/other-body": "Fiber's middleware does not compare bodies: it replays the first body's stored 201 " +
		"(the same order_id) to the other body. Neither tier logs a body or a hash of it (the logger template has no such " +
		"field, Caddy logs no bodies), so the two deliveries look like a healthy replay; no reader of these logs can tell " +
		"them apart. It fires where the access line carries a hash of the body (fixtures/real/fiber-payload-hash).",
	"key-expired/expired-key/claim": "Between the first order and the rerun a same-key retry got the stored 201 " +
		"and made no order, which shows the key was stored and checked; the rule says a gap of some 3 s is too soon for " +
		"an expiry, so the key was most likely never stored. Two things hide the replay: Fiber's middleware marks none " +
		"and its access line names no result id (where effects are logged, a same-key 2xx without an effect is one, as " +
		"response-lost reads it), and the replay's line is dated by Fiber's stale tick (time/fiber-access-line), before " +
		"the first order's own line, so it does not even fall between the completion and the rerun.",
	// Not rules: how formats reads the lines (formats/caddy.go and the JSON
	// application format), checked line by line by checkLines.
	"caddy/key": "formats/caddy.go reads the Idempotency-Key request header only; Fiber's middleware uses " +
		"X-Idempotency-Key by default, which Caddy logs but idem does not read, so Caddy's lines carry no key. The " +
		"deliveries still join the server's lines by X-Request-Id.",
	"caddy/client": "formats/caddy.go takes the client from client_ip, which Caddy writes from 2.7 on; Debian 12's " +
		"Caddy 2.6.2 writes remote_ip only. The user is known here only because Fiber logs ${ip}.",
	"time/fiber-access-line": "Fiber's logger copies its ${time} tick when the request starts (Data.Timestamp is " +
		"taken before c.Next), but idem reads a JSON line with a status and a latency as written at the end and " +
		"subtracts the latency, so a slow request's server start lands a latency too early (1.2-1.8 s here). The rules " +
		"still hold on this capture; a Fiber-shaped line (its latency is Go's %13v, padded with spaces) would need its " +
		"time read as the start.",
}

// TestKnownGapsAreConsulted fails on an entry no check looks up (a typo,
// or a story the traffic no longer has), which would otherwise sit there
// unnoticed.
func TestKnownGapsAreConsulted(t *testing.T) {
	consulted := map[string]bool{}
	for _, v := range variants {
		c := readCapture(t, v.dir())
		must, _ := expectations(c.Sent, c.PayloadsLogged)
		ids := append([]string(nil), lineChecks...)
		for _, e := range must {
			ids = append(ids, e.Rule+"/"+e.Role, e.Rule+"/"+e.Role+"/severity", e.Rule+"/"+e.Role+"/claim")
		}
		for _, id := range ids {
			consulted[id], consulted[v.name+":"+id] = true, true
		}
	}
	for k, why := range knownGaps {
		if !consulted[k] {
			t.Errorf("knownGaps[%q] is looked up by no check", k)
		}
		if len(why) < 40 {
			t.Errorf("knownGaps[%q] does not say why: %q", k, why)
		}
	}
}
