package gateway

import (
	"encoding/json"
	"io"
	"sync"
	"time"
)

// reqCtx is what every log line of a delivery carries.
type reqCtx struct {
	rid, route, method, keyHash, fingerprint string
	start                                    time.Time
}

// logger writes idem's canonical schema: one JSON line per decision and
// per effect, with only safe fields (a hash of the key, never the key or
// the payload).
type logger struct {
	mu   sync.Mutex
	w    io.Writer
	now  func() time.Time
	tier string
}

func newLogger(w io.Writer, now func() time.Time, tier string) *logger {
	if w == nil {
		w = io.Discard
	}
	return &logger{w: w, now: now, tier: tier}
}

func (l *logger) line(ctx reqCtx, msg string, fields map[string]any) {
	m := map[string]any{"time": l.now().UTC().Format(time.RFC3339Nano), "tier": l.tier, "level": "INFO", "msg": msg,
		"request_id": ctx.rid, "method": ctx.method, "route": ctx.route}
	if ctx.keyHash != "" {
		m["key_hash"] = ctx.keyHash
	}
	if ctx.fingerprint != "" {
		m["fingerprint"] = ctx.fingerprint
	}
	for k, v := range fields {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	l.mu.Lock()
	l.w.Write(append(b, '\n'))
	l.mu.Unlock()
}
