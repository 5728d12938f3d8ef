package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idem-cli/idem/internal/kit/capture"
)

// Backend is the application behind the proxies: an Idempotency-Key aware
// order service that writes a log/slog JSON line per request. Each
// request says how it should be answered, in its query:
//
//	?delay=1500ms  answer after that long (the work is done whatever the
//	               client does meanwhile, as a real server's would be)
//	?fail=500      answer with that status
//	?fail=drop     close the connection without answering
//	?replay=200    answer a replay with that status, as a replay path
//	               does that rebuilds the answer instead of storing it
//
// GET /v1/orders/ID answers {"id":"ID"} (a read: no effect), and
// GET /v1/blob?bytes=N a JSON body of about N bytes.
//
// A POST answers 201 with {"id":"ord_N"}; a POST with a key seen before
// answers the same id, marked Idempotent-Replayed.
type Backend struct {
	Addr    string
	LogPath string
	Config  backendConfig

	srv *http.Server
	log *slog.Logger

	mu     sync.Mutex
	n      int
	byKey  map[string]string
	hits   []hit
	orders []string
}

// hit is a request the backend received.
type hit struct {
	RequestID string `json:"request_id"`
	Key       string `json:"key"`
	Method    string `json:"method"`
	Path      string `json:"path"`
	// BodyBytes is how many bytes of body it read: a proxy that resends
	// a request may resend it without the body it no longer holds.
	BodyBytes int `json:"body_bytes"`
}

// page is what the backend serves at / for the browser: a blank page on
// the proxy's origin from which the fetches are made (an empty favicon,
// so that the browser asks for nothing the harness did not).
const page = `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>idem harness</title></head><body>harness</body></html>`

// backendConfig is what a capture asks of the backend beyond its
// defaults; the zero value is the backend every proxy capture ran.
type backendConfig struct {
	// HashBodies logs body_hash, "sha256:" and the hex SHA-256 of the
	// request body as received, on every line of a write: what an
	// idempotency layer stores to tell a retry from another payload.
	HashBodies bool
	// SessionCookie, when set, is sent with the page at / as
	// Set-Cookie: session=VALUE (HttpOnly), as a login leaves it.
	SessionCookie string
	// Provider, when set, is the base URL (an egress proxy) through which a
	// POST to /v1/charges calls a payment provider before recording the
	// charge, passing the request's X-Request-Id on and no key of its own,
	// as a service does that has no external idempotency key. With
	// ?fail=after-call it answers 500 after the call and records nothing:
	// a crash between the external call and the record.
	Provider string
	// Stall, when set, is how long a new order's answer waits after the
	// order is recorded: a server whose write commits and whose answer is
	// then slow (a lock, a slow flush), past a proxy's read timeout.
	Stall time.Duration
	// FirstOrder numbers the orders from it (ord_FirstOrder), so that two
	// instances behind one proxy, each with its own store, do not give
	// the same id to two orders.
	FirstOrder int
}

// StartBackend listens on a free loopback port until the test ends.
func StartBackend(t testing.TB) *Backend { return startBackendWith(t, backendConfig{}) }

// startBackendWith is StartBackend with a config.
func startBackendWith(t testing.TB, cfg backendConfig) *Backend {
	t.Helper()
	dir := t.TempDir()
	b := &Backend{LogPath: filepath.Join(dir, "app.jsonl"), Config: cfg, byKey: map[string]string{}, n: max(cfg.FirstOrder-1, 0)}
	f, err := os.Create(b.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	b.log = slog.New(slog.NewJSONHandler(capture.NewSyncWriter(f), nil))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b.Addr = ln.Addr().String()
	b.srv = &http.Server{Handler: http.HandlerFunc(b.serve), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = b.srv.Serve(ln) }()
	t.Cleanup(func() { b.srv.Close(); f.Close() })
	return b
}

// Hits are the requests received so far, in arrival order.
func (b *Backend) Hits() []hit {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]hit(nil), b.hits...)
}

// Orders are the ids of the orders it created, in order: its own store,
// which another instance does not share.
func (b *Backend) createdOrders() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.orders...)
}

// Received reports whether a request with this request id arrived.
func (b *Backend) Received(rid string) bool {
	for _, h := range b.Hits() {
		if h.RequestID == rid {
			return true
		}
	}
	return false
}

func (b *Backend) serve(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rid, key := r.Header.Get("X-Request-Id"), r.Header.Get("Idempotency-Key")
	trace, parent := traceParent(r.Header.Get("Traceparent"))
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	b.mu.Lock()
	seen := rid
	if seen == "" {
		seen = trace
	}
	b.hits = append(b.hits, hit{RequestID: seen, Key: key, Method: r.Method, Path: r.URL.Path, BodyBytes: len(body)})
	b.mu.Unlock()
	if r.Method == http.MethodGet && r.URL.Path == "/" {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if c := b.Config.SessionCookie; c != "" {
			http.SetCookie(w, &http.Cookie{Name: "session", Value: c, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		}
		_, _ = io.WriteString(w, page)
		return
	}
	if d, err := time.ParseDuration(r.URL.Query().Get("delay")); err == nil {
		time.Sleep(d)
	}
	var attrs []any
	if rid != "" {
		attrs = append(attrs, "request_id", rid)
	}
	if trace != "" {
		// As an OpenTelemetry-instrumented server logs: its own span, a
		// child of the caller's.
		attrs = append(attrs, "trace_id", trace, "span_id", strings.ReplaceAll(capture.NewID(), "-", "")[:16], "parent_span_id", parent)
	}
	attrs = append(attrs, "method", r.Method, "route", r.URL.Path)
	if key != "" {
		attrs = append(attrs, "idempotency_key", key)
	}
	if b.Config.HashBodies && r.Method != http.MethodGet {
		attrs = append(attrs, "body_hash", capture.Fingerprint(body))
	}
	if b.Config.Provider != "" && r.Method == http.MethodPost && r.URL.Path == "/v1/charges" {
		b.charge(w, r, rid, key, body, attrs, start)
		return
	}
	switch fail := r.URL.Query().Get("fail"); {
	case fail == "drop":
		b.log.Info("connection dropped", append(attrs, "duration_ms", time.Since(start).Milliseconds())...)
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				c.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	case fail != "":
		code, _ := strconv.Atoi(fail)
		if code < 400 || code > 599 {
			code = http.StatusInternalServerError
		}
		b.log.Info("request failed", append(attrs, "status", code, "duration_ms", time.Since(start).Milliseconds())...)
		http.Error(w, `{"error":"failed as asked"}`, code)
		return
	}
	if r.Method == http.MethodGet {
		b.get(w, r, attrs)
		return
	}
	if r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	b.mu.Lock()
	id, replay := b.byKey[key]
	if !replay || key == "" {
		b.n++
		id, replay = fmt.Sprintf("ord_%d", b.n), false
		b.orders = append(b.orders, id)
		if key != "" {
			b.byKey[key] = id
		}
	}
	b.mu.Unlock()
	if !replay {
		b.log.Info("order created", append(attrs, "result_id", id, "effect", true)...)
		time.Sleep(b.Config.Stall)
	}
	w.Header().Set("Content-Type", "application/json")
	status := http.StatusCreated
	if replay {
		w.Header().Set("Idempotent-Replayed", "true")
		if code, err := strconv.Atoi(r.URL.Query().Get("replay")); err == nil && code >= 200 && code <= 299 {
			status = code
		}
	}
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"id": id})
	b.log.Info("request completed", append(attrs, "status", status, "result_id", id,
		"duration_ms", time.Since(start).Milliseconds())...)
}

// charge calls the provider, then records the charge under the key; a key
// already recorded is replayed without a call.
func (b *Backend) charge(w http.ResponseWriter, r *http.Request, rid, key string, body []byte, attrs []any, start time.Time) {
	b.mu.Lock()
	id, replay := b.byKey[key]
	b.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if replay && key != "" {
		w.Header().Set("Idempotent-Replayed", "true")
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(map[string]string{"id": id})
		b.log.Info("request completed", append(attrs, "status", http.StatusCreated, "result_id", id, "decision", "replay",
			"duration_ms", time.Since(start).Milliseconds())...)
		return
	}
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, b.Config.Provider+"/v1/charges", bytes.NewReader(body))
	if err == nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Request-Id", rid)
		var resp *http.Response
		if resp, err = http.DefaultClient.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode >= 300 {
				err = fmt.Errorf("provider answered %d", resp.StatusCode)
			}
		}
	}
	if err != nil || r.URL.Query().Get("fail") == "after-call" {
		b.log.Info("request failed", append(attrs, "status", http.StatusInternalServerError, "duration_ms", time.Since(start).Milliseconds())...)
		http.Error(w, `{"error":"failed after the provider call"}`, http.StatusInternalServerError)
		return
	}
	b.mu.Lock()
	b.n++
	id = fmt.Sprintf("ch_%d", b.n)
	if key != "" {
		b.byKey[key] = id
	}
	b.mu.Unlock()
	b.log.Info("charge created", append(attrs, "result_id", id, "effect", true)...)
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]string{"id": id})
	b.log.Info("request completed", append(attrs, "status", http.StatusCreated, "result_id", id, "duration_ms", time.Since(start).Milliseconds())...)
}

func (b *Backend) get(w http.ResponseWriter, r *http.Request, attrs []any) {
	w.Header().Set("Content-Type", "application/json")
	switch id, ok := strings.CutPrefix(r.URL.Path, "/v1/orders/"); {
	case ok && id != "":
		_ = json.NewEncoder(w).Encode(map[string]string{"id": id, "state": "created"})
	case r.URL.Path == "/v1/blob":
		n, _ := strconv.Atoi(r.URL.Query().Get("bytes"))
		n = min(max(n, 0), 64<<20)
		_, _ = io.WriteString(w, `{"data":"`+strings.Repeat("x", n)+`"}`)
	default:
		http.NotFound(w, r)
		return
	}
	b.log.Info("request completed", append(attrs, "status", http.StatusOK)...)
}

// traceParent reads a W3C traceparent header: version-traceid-parentid-flags.
func traceParent(h string) (traceID, parentID string) {
	parts := strings.Split(h, "-")
	if len(parts) != 4 || len(parts[1]) != 32 || len(parts[2]) != 16 {
		return "", ""
	}
	return parts[1], parts[2]
}
