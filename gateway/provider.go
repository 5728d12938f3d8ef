package gateway

import (
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Provider is a fake external provider (a payment processor) that keeps
// no idempotency of its own: every call is a new charge. It logs each as
// an effect at the provider tier.
type Provider struct {
	mu      sync.Mutex
	charges []string
	log     *logger
}

// NewProvider returns a provider that logs to w.
func NewProvider(w io.Writer, now func() time.Time) *Provider {
	if now == nil {
		now = time.Now
	}
	return &Provider{log: newLogger(w, now, "provider")}
}

// Handler serves POST /v1/charges and GET /v1/charges.
func (p *Provider) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/charges", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, io.LimitReader(r.Body, maxBody))
		p.mu.Lock()
		id := "ch_" + strconv.Itoa(len(p.charges)+1)
		p.charges = append(p.charges, id)
		p.mu.Unlock()
		p.log.line(reqCtx{rid: r.Header.Get("X-Request-Id"), route: "/v1/charges", method: r.Method},
			"charge succeeded", map[string]any{"event": "effect", "result_id": id, "status": 201})
		writeJSON(w, http.StatusCreated, map[string]any{"id": id})
	})
	mux.HandleFunc("GET /v1/charges", func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		defer p.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"count": len(p.charges), "charges": p.charges})
	})
	return mux
}
