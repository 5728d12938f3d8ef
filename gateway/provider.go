package gateway

import (
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// provider is a fake external provider (a payment processor). A call
// without an Idempotency-Key is a new charge every time; a call with one
// makes at most one charge per key, and the charge a key made can be
// looked up, the way the gateway reconciles a call whose answer it lost.
// It logs each charge as an effect at the provider tier.
type provider struct {
	mu      sync.Mutex
	charges []string
	byKey   map[string]string // provider key → charge id
	log     *logger
}

// NewProvider returns a provider that logs to w.
func NewProvider(w io.Writer, now func() time.Time) *provider {
	if now == nil {
		now = time.Now
	}
	return &provider{log: newLogger(w, now, "provider"), byKey: map[string]string{}}
}

// Handler serves POST /v1/charges, GET /v1/charges and GET
// /v1/charges/by-key/{key}.
func (p *provider) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/charges", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, io.LimitReader(r.Body, maxBody))
		ctx := reqCtx{rid: r.Header.Get("X-Request-Id"), route: "/v1/charges", method: r.Method}
		key := r.Header.Get("Idempotency-Key")
		if len(key) > 255 {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "idempotency_key_invalid"})
			return
		}
		p.mu.Lock()
		id, seen := p.byKey[key]
		if !seen {
			id = "ch_" + strconv.Itoa(len(p.charges)+1)
			p.charges = append(p.charges, id)
			if key != "" {
				p.byKey[key] = id
			}
		}
		p.mu.Unlock()
		if seen {
			p.log.line(ctx, "charge replayed", map[string]any{"decision": "replay", "result_id": id, "status": 201})
			w.Header().Set("Idempotent-Replayed", "true")
		} else {
			p.log.line(ctx, "charge succeeded", map[string]any{"event": "effect", "result_id": id, "status": 201})
		}
		writeJSON(w, http.StatusCreated, map[string]any{"id": id})
	})
	mux.HandleFunc("GET /v1/charges", func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		defer p.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"count": len(p.charges), "charges": p.charges})
	})
	mux.HandleFunc("GET /v1/charges/by-key/{key}", func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		id, ok := p.byKey[r.PathValue("key")]
		p.mu.Unlock()
		if !ok {
			writeJSON(w, http.StatusOK, map[string]any{"found": false})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"found": true, "id": id})
	})
	return mux
}
