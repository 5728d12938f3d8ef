// Package gateway is a reference HTTP server for the Idempotency-Key
// contract: an atomic reservation per key, a fingerprint of the payload, the
// effect and the key record committed together, and replays of the stored
// status, body and result id. Fault modes break the contract on purpose,
// one row of the diagnosis table each, so that idem's rules and replay
// probes can be tried and tested against real behaviour. It logs in idem's
// canonical schema, with only safe fields.
package gateway

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/idem-cli/idem/contract"
	"github.com/idem-cli/idem/trace"
)

// Profile is the contract variant a gateway serves.
type Profile = contract.Profile

// Profiles are the contract variants, by name.
var Profiles = contract.Profiles

// ProfileNames lists the profiles in a stable order.
func ProfileNames() []string { return contract.Names() }

// Faults turn parts of the contract off.
type Faults struct {
	FailAfterCommit    bool   // commit, then drop the connection without a response
	NoDedup            bool   // ignore keys: every delivery runs the effect
	NonAtomic          bool   // check, wait, then insert: concurrent deliveries both run
	NoFingerprint      bool   // replay whatever came first, whatever the payload
	External           string // call this provider before recording completed
	CrashAfterExternal bool   // lose the terminal write after the external call (once per key)
}

// Options configure a gateway.
type Options struct {
	Profile Profile
	TTL     time.Duration // key retention; 0 keeps keys forever
	Delay   time.Duration // a slow handler
	Faults  Faults
	Log     io.Writer
	Now     func() time.Time
	// NonAtomicWindow is the gap between check and insert in --non-atomic.
	NonAtomicWindow time.Duration
	// Client calls the external provider.
	Client *http.Client
}

// Server implements the contract over a Store.
type Server struct {
	opts    Options
	store   *Store
	log     *logger
	mu      sync.Mutex
	crashed map[string]bool // keys whose external call already "crashed"
}

// New returns a gateway over store.
func New(opts Options, store *Store) *Server {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Profile.Name == "" {
		opts.Profile = Profiles["article"]
	}
	if opts.NonAtomicWindow == 0 {
		opts.NonAtomicWindow = 50 * time.Millisecond
	}
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: 10 * time.Second}
	}
	return &Server{opts: opts, store: store, log: newLogger(opts.Log, opts.Now, "server"), crashed: map[string]bool{}}
}

// Handler routes the gateway's endpoints.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/demo-requests", func(w http.ResponseWriter, r *http.Request) {
		s.serve(w, r, "/v1/demo-requests", "dr", s.opts.Profile.Conflict, validateDemo)
	})
	mux.HandleFunc("POST /v1/operations/{op}", func(w http.ResponseWriter, r *http.Request) {
		op := r.PathValue("op")
		route := "/v1/operations/" + op
		if op != "reserve" && op != "publish" && op != "release" {
			s.reject(w, r, route, http.StatusNotFound, "unknown_operation", "operation must be reserve, publish or release")
			return
		}
		s.serve(w, r, route, "rcpt", http.StatusConflict, validateOperation(op))
	})
	mux.HandleFunc("GET /v1/effects", func(w http.ResponseWriter, r *http.Request) {
		effects := s.store.Effects()
		writeJSON(w, http.StatusOK, map[string]any{"count": len(effects), "effects": effects})
	})
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "profile": s.opts.Profile.Name})
	})
	return mux
}

// maxBody bounds a request body.
const maxBody = 1 << 20

// keySyntax accepts a key of visible ASCII, at most 255 characters.
var keySyntax = regexp.MustCompile(`^[\x21-\x7e]{1,255}$`)

// validator checks a request's key and body before any reservation.
type validator func(key string, body []byte) error

func validateDemo(key string, body []byte) error {
	if !json.Valid(body) || !bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
		return errors.New("the body must be a JSON object")
	}
	return nil
}

// operationKey is <submissionId>:r<revision>:<operation>: domain-derived
// and attempt-free.
var operationKey = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9._-]{0,127}):r([0-9]{1,9}):(reserve|publish|release)$`)

func validateOperation(op string) validator {
	return func(key string, body []byte) error {
		m := operationKey.FindStringSubmatch(key)
		if m == nil {
			return errors.New("the key must be <submissionId>:r<revision>:<operation>, e.g. article-107:r1:publish")
		}
		if m[3] != op {
			return fmt.Errorf("the key names operation %q but the request is %q", m[3], op)
		}
		var b struct {
			SubmissionID string          `json:"submissionId"`
			Revision     json.Number     `json:"revision"`
			Operation    string          `json:"operation"`
			Rest         json.RawMessage `json:"-"`
		}
		if err := json.Unmarshal(body, &b); err != nil {
			return errors.New("the body must be a JSON object with submissionId and revision")
		}
		if b.SubmissionID != m[1] {
			return fmt.Errorf("the key's submission %q does not match the body's submissionId %q", m[1], b.SubmissionID)
		}
		if string(b.Revision) != m[2] {
			return fmt.Errorf("the key's revision r%s does not match the body's revision %q", m[2], b.Revision)
		}
		if b.Operation != "" && b.Operation != op {
			return fmt.Errorf("the body's operation %q does not match %q", b.Operation, op)
		}
		return nil
	}
}

func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// serve runs the contract for one delivery.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, route, prefix string, conflictStatus int, validate validator) {
	start := s.opts.Now()
	rid := r.Header.Get("X-Request-Id")
	if rid == "" || len(rid) > 200 {
		rid = newRequestID()
	}
	w.Header().Set("X-Request-Id", rid)
	ctx := reqCtx{rid: rid, route: route, method: r.Method, start: start}

	keys := r.Header.Values("Idempotency-Key")
	if len(keys) == 0 || strings.TrimSpace(keys[0]) == "" {
		s.answer(w, ctx, s.opts.Profile.MissingKey, "rejected", "idempotency_key_missing", "an Idempotency-Key header is required")
		return
	}
	key := trace.NormalizeKey(keys[0])
	if len(keys) > 1 || !keySyntax.MatchString(key) {
		s.answer(w, ctx, http.StatusBadRequest, "rejected", "idempotency_key_invalid", "the Idempotency-Key must be one value of 1 to 255 visible ASCII characters")
		return
	}
	ctx.keyHash = trace.HashKey(key)
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil || len(body) > maxBody {
		s.answer(w, ctx, http.StatusBadRequest, "rejected", "body_invalid", "the body could not be read or is larger than 1 MiB")
		return
	}
	if err := validate(key, body); err != nil {
		s.answer(w, ctx, http.StatusBadRequest, "rejected", "request_invalid", err.Error())
		return
	}
	ctx.fingerprint = trace.Fingerprint(body)
	id := route + "|" + ctx.keyHash

	if !s.opts.Faults.NoDedup {
		if done := s.reserve(w, ctx, id, conflictStatus); done {
			return
		}
	} else {
		s.log.line(ctx, "decision", map[string]any{"decision": "new", "note": "no-dedup: key ignored"})
	}

	// The owner of the reservation runs the effect.
	if s.opts.Delay > 0 {
		select {
		case <-time.After(s.opts.Delay):
		case <-r.Context().Done():
			// The client left; the work goes on, as real handlers do.
			time.Sleep(s.opts.Delay)
		}
	}
	if s.opts.Faults.External != "" {
		if err := s.callExternal(ctx, body); err != nil {
			s.release(id)
			s.answer(w, ctx, http.StatusBadGateway, "failed", "external_failed", "the provider call failed")
			return
		}
		if s.opts.Faults.CrashAfterExternal && s.crashOnce(id) {
			// The process "dies" between the external call and the terminal
			// write; a naive recovery deletes the stuck reservation.
			s.release(id)
			s.log.line(ctx, "crash after external call, reservation lost", map[string]any{"state": "in_progress"})
			drop(w)
			return
		}
	}
	resultID, status, resp := s.commit(ctx, id, prefix)
	if s.opts.Faults.FailAfterCommit {
		s.log.line(ctx, "response dropped after commit", map[string]any{"result_id": resultID, "outcome": "reset"})
		drop(w)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(resp)
}

// reserve takes the key's reservation or answers for it (replay, conflict,
// in progress). It reports whether the delivery was answered.
func (s *Server) reserve(w http.ResponseWriter, ctx reqCtx, id string, conflictStatus int) bool {
	st := s.store
	st.mu.Lock()
	st.purge(s.opts.Now())
	rec := st.st.Keys[id]
	if rec == nil && s.opts.Faults.NonAtomic {
		// Check, then insert later: the race this mode exists to show.
		st.mu.Unlock()
		time.Sleep(s.opts.NonAtomicWindow)
		st.mu.Lock()
		rec = nil
	}
	if rec == nil {
		now := s.opts.Now()
		r := &Record{Scope: ctx.route, KeyHash: ctx.keyHash, Fingerprint: ctx.fingerprint, State: "in_progress", Owner: ctx.rid, Created: now}
		if s.opts.TTL > 0 {
			r.Expires = now.Add(s.opts.TTL)
		}
		st.st.Keys[id] = r
		err := st.save()
		st.mu.Unlock()
		if err != nil {
			s.answer(w, ctx, http.StatusInternalServerError, "failed", "state_unwritable", "the key record could not be stored")
			return true
		}
		s.log.line(ctx, "decision", map[string]any{"decision": "new", "state": "in_progress"})
		return false
	}
	r := *rec
	st.mu.Unlock()
	if r.Fingerprint != ctx.fingerprint && !s.opts.Faults.NoFingerprint {
		s.answer(w, ctx, conflictStatus, "conflict", "idempotency_key_reused", "this key was used with another payload")
		return true
	}
	if r.State != "completed" {
		w.Header().Set("Retry-After", "1")
		s.answer(w, ctx, s.opts.Profile.InProgress, "in_progress", "idempotency_key_in_use", "the first request with this key is still in progress")
		return true
	}
	// The marker is sent in every profile: clients that do not expect it
	// ignore it, and it makes replays visible in the logs.
	w.Header().Set("Idempotent-Replayed", "true")
	w.Header().Set("Content-Type", "application/json")
	s.log.line(ctx, "decision", map[string]any{"decision": "replay", "state": "completed", "status": r.Status, "result_id": r.ResultID})
	w.WriteHeader(r.Status)
	w.Write(r.Body)
	return true
}

// commit records the effect and completes the key record in one write.
func (s *Server) commit(ctx reqCtx, id, prefix string) (string, int, []byte) {
	st := s.store
	st.mu.Lock()
	resultID := st.nextID(prefix)
	now := s.opts.Now()
	resp, _ := json.Marshal(map[string]any{"id": resultID, "status": "created"})
	st.st.Effects = append(st.st.Effects, Effect{ResultID: resultID, Route: ctx.route, KeyHash: ctx.keyHash, Request: ctx.rid, Time: now})
	if rec := st.st.Keys[id]; rec != nil && !s.opts.Faults.NoDedup {
		rec.State, rec.Status, rec.Body, rec.ResultID = "completed", http.StatusCreated, resp, resultID
	}
	err := st.save()
	st.mu.Unlock()
	if err != nil {
		s.log.line(ctx, "state write failed", map[string]any{"error": err.Error()})
	}
	s.log.line(ctx, "effect", map[string]any{"event": "effect", "result_id": resultID})
	s.log.line(ctx, "completed", map[string]any{"state": "completed", "status": http.StatusCreated, "result_id": resultID,
		"duration_ms": now.Sub(ctx.start).Milliseconds()})
	return resultID, http.StatusCreated, resp
}

// release deletes a reservation (a failed or "crashed" first attempt).
func (s *Server) release(id string) {
	s.store.mu.Lock()
	delete(s.store.st.Keys, id)
	s.store.save()
	s.store.mu.Unlock()
}

func (s *Server) crashOnce(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.crashed[id] {
		return false
	}
	s.crashed[id] = true
	return true
}

// callExternal calls the provider with the delivery's request id and no
// idempotency key of its own: the weakness external-duplicate shows.
func (s *Server) callExternal(ctx reqCtx, body []byte) error {
	req, err := http.NewRequest(http.MethodPost, strings.TrimRight(s.opts.Faults.External, "/")+"/v1/charges", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Request-Id", ctx.rid)
	resp, err := s.opts.Client.Do(req)
	if err != nil {
		s.log.line(ctx, "external call failed", map[string]any{"error": err.Error()})
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	s.log.line(ctx, "external call", map[string]any{"provider_status": resp.StatusCode})
	if resp.StatusCode >= 300 {
		return fmt.Errorf("provider answered %d", resp.StatusCode)
	}
	return nil
}

// answer writes an error answer and logs the decision.
func (s *Server) answer(w http.ResponseWriter, ctx reqCtx, status int, decision, code, msg string) {
	fields := map[string]any{"decision": decision, "status": status, "error": code}
	if decision == "in_progress" {
		fields["state"] = "in_progress"
	}
	s.log.line(ctx, "decision", fields)
	writeJSON(w, status, map[string]any{"error": code, "message": msg})
}

func (s *Server) reject(w http.ResponseWriter, r *http.Request, route string, status int, code, msg string) {
	s.answer(w, reqCtx{rid: r.Header.Get("X-Request-Id"), route: route, method: r.Method, start: s.opts.Now()}, status, "rejected", code, msg)
}

// drop closes the connection without a response.
func drop(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

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

// Serve runs handler on addr until ctx ends, then shuts down gracefully.
// ready, when set, receives the bound address.
func Serve(ctx context.Context, addr string, handler http.Handler, ready func(addr string)) error {
	lc := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	ln, err := listen(addr)
	if err != nil {
		return err
	}
	if ready != nil {
		ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- lc.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return lc.Shutdown(sctx)
	}
}
