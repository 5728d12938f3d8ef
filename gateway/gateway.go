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
	"sync/atomic"
	"time"

	"github.com/idem-cli/idem/contract"
	"github.com/idem-cli/idem/model"
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
	NonAtomic          bool   // check, wait, then write: concurrent deliveries both run
	NoFingerprint      bool   // replay whatever came first, whatever the payload
	External           string // call this provider before recording completed
	CrashAfterExternal bool   // lose the terminal write after the external call (once per key)
	// StuckReservation never recovers a reservation whose owner is gone:
	// its key answers "in progress" until an operator reconciles it.
	StuckReservation bool
}

// Options configure a gateway.
type Options struct {
	Profile Profile
	TTL     time.Duration // key retention; 0 keeps keys forever
	Delay   time.Duration // a slow handler
	// Lease is how long a reservation's owner is trusted to be alive
	// (default 30s). Another process may recover the reservation after it.
	Lease  time.Duration
	Faults Faults
	Log    io.Writer
	Now    func() time.Time
	// NonAtomicWindow is the gap between check and insert in --non-atomic.
	NonAtomicWindow time.Duration
	// Client calls the external provider.
	Client *http.Client
}

// DefaultLease is the reservation lease when Options.Lease is 0.
const DefaultLease = 30 * time.Second

// Server implements the contract over a Store.
type Server struct {
	opts     Options
	store    Store
	log      *logger
	instance string // this process's share of every owner it writes
	// deliveries numbers this process's deliveries, for unique owners.
	deliveries atomic.Uint64

	mu        sync.Mutex
	crashed   map[string]bool // keys whose external call already "crashed"
	live      map[string]bool // owners whose delivery is running here
	lastSweep time.Time
}

// New returns a gateway over store.
func New(opts Options, store Store) *Server {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Profile.Name == "" {
		opts.Profile = Profiles["article"]
	}
	if opts.NonAtomicWindow == 0 {
		opts.NonAtomicWindow = 50 * time.Millisecond
	}
	if opts.Lease <= 0 {
		opts.Lease = DefaultLease
	}
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: 10 * time.Second}
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	return &Server{opts: opts, store: store, log: newLogger(opts.Log, opts.Now, "server"), instance: "gw-" + hex.EncodeToString(b[:]),
		crashed: map[string]bool{}, live: map[string]bool{}}
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
		effects, err := s.store.Effects(r.Context())
		if err != nil {
			writeJSON(w, http.StatusServiceUnavailable, map[string]any{"error": "storage_unavailable", "message": "the effects could not be read"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"count": len(effects), "effects": effects})
	})
	mux.HandleFunc("GET /v1/keys/{key}", s.keyState)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "profile": s.opts.Profile.Name})
	})
	return mux
}

// keyState shows what the store holds for a key, in every scope, and what
// the next delivery with it would get: the way to reconcile a stuck
// reservation by looking rather than deleting.
func (s *Server) keyState(w http.ResponseWriter, r *http.Request) {
	key := model.NormalizeKey(r.PathValue("key"))
	if !keySyntax.MatchString(key) {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "idempotency_key_invalid", "message": "the key must be 1 to 255 visible ASCII characters"})
		return
	}
	hash := model.HashKey(key)
	recs, err := s.store.Records(r.Context(), hash)
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"error": "storage_unavailable", "message": "the key could not be read"})
		return
	}
	now := s.opts.Now()
	out := []map[string]any{}
	for _, rec := range recs {
		m := map[string]any{"scope": rec.Scope, "state": rec.State, "owner": rec.Owner, "fingerprint": rec.Fingerprint,
			"created": rec.Created.UTC().Format(time.RFC3339Nano)}
		switch {
		case rec.State == StateInProgress:
			m["lease"] = rec.Lease.UTC().Format(time.RFC3339Nano)
			switch {
			case s.recoverable(rec, now):
				m["next_delivery"] = "recovers the reservation: its owner is gone and no effect was committed"
			case s.opts.Faults.External != "":
				m["next_delivery"] = "in progress: reconcile with the provider first, its call may have happened"
			default:
				m["next_delivery"] = "in progress: its owner is alive"
			}
		case rec.expired(now):
			m["next_delivery"] = "new: the record has expired"
		default:
			m["next_delivery"] = "replay"
		}
		if rec.State == StateCompleted {
			m["status"], m["result_id"] = rec.Status, rec.ResultID
		}
		if !rec.Expires.IsZero() {
			m["expires"] = rec.Expires.UTC().Format(time.RFC3339Nano)
		}
		out = append(out, m)
	}
	status := http.StatusOK
	if len(out) == 0 {
		status = http.StatusNotFound
	}
	writeJSON(w, status, map[string]any{"key_hash": hash, "records": out})
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

// delivery is one request's reservation.
type delivery struct {
	reqCtx
	owner string
	key   Record // the reservation as written
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
	key := model.NormalizeKey(keys[0])
	if len(keys) > 1 || !keySyntax.MatchString(key) {
		s.answer(w, ctx, http.StatusBadRequest, "rejected", "idempotency_key_invalid", "the Idempotency-Key must be one value of 1 to 255 visible ASCII characters")
		return
	}
	ctx.keyHash = model.HashKey(key)
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			s.answer(w, ctx, http.StatusRequestEntityTooLarge, "rejected", "body_too_large", "the body is larger than 1 MiB")
		} else {
			s.answer(w, ctx, http.StatusBadRequest, "rejected", "body_invalid", "the body could not be read")
		}
		return
	}
	if err := validate(key, body); err != nil {
		s.answer(w, ctx, http.StatusBadRequest, "rejected", "request_invalid", err.Error())
		return
	}
	ctx.fingerprint = model.Fingerprint(body)
	// Once a delivery is read whole, its work does not depend on the
	// client staying: a client that drops the connection mid-request must
	// not cancel the reservation or the commit (a lost response is exactly
	// what idempotency is for).
	work := context.WithoutCancel(r.Context())
	s.sweep(work, start)

	// The counter keeps owners apart when clients reuse a request id.
	d := &delivery{reqCtx: ctx, owner: s.instance + "/" + strconv.FormatUint(s.deliveries.Add(1), 10) + "/" + rid}
	s.setLive(d.owner, true)
	defer s.setLive(d.owner, false)
	if !s.opts.Faults.NoDedup {
		if done := s.reserve(work, w, d, conflictStatus); done {
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
	// The client may have left: the commit must not depend on it.
	bg := work
	if s.opts.Faults.External != "" {
		if err := s.callExternal(ctx, body); err != nil {
			s.release(bg, d)
			s.answer(w, ctx, http.StatusBadGateway, "failed", "external_failed", "the provider call failed")
			return
		}
		if s.opts.Faults.CrashAfterExternal && s.crashOnce(ctx.route+"|"+ctx.keyHash) {
			// The process "dies" between the external call and the terminal
			// write; a naive recovery deletes the stuck reservation.
			s.release(bg, d)
			s.log.line(ctx, "crash after external call, reservation lost", map[string]any{"state": StateInProgress})
			drop(w)
			return
		}
	}
	rec, err := s.commit(bg, d, prefix)
	if err != nil {
		// Nothing was committed: no effect, and no answer but an error.
		s.release(bg, d)
		w.Header().Set("Retry-After", "1")
		code, msg := "storage_unavailable", "the result could not be stored; nothing was done, retry with the same key"
		if errors.Is(err, ErrNotOwner) {
			code, msg = "reservation_lost", "the reservation passed to another delivery before this one finished; nothing was done"
		}
		s.log.line(ctx, "commit failed", map[string]any{"error": err.Error()})
		s.answer(w, ctx, http.StatusServiceUnavailable, "failed", code, msg)
		return
	}
	if s.opts.Faults.FailAfterCommit {
		s.log.line(ctx, "response dropped after commit", map[string]any{"result_id": rec.ResultID, "outcome": "reset"})
		drop(w)
		return
	}
	writeStored(w, rec, false)
}

// writeStored sends a record's answer: its status, headers and body as
// stored, byte for byte.
func writeStored(w http.ResponseWriter, rec Record, replayed bool) {
	for name, vs := range rec.Header {
		w.Header()[name] = vs
	}
	if replayed {
		// The marker is sent in every profile: clients that do not expect
		// it ignore it, and it makes replays visible in the logs.
		w.Header().Set("Idempotent-Replayed", "true")
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(rec.Body)))
	w.WriteHeader(rec.Status)
	w.Write(rec.Body)
}

func (s *Server) setLive(owner string, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if on {
		s.live[owner] = true
	} else {
		delete(s.live, owner)
	}
}

// recoverable reports whether an in_progress reservation's owner is gone,
// so that the next delivery with its key and fingerprint may take it over.
// The effect and the completed record commit in one transaction, so an
// in_progress record means no effect was committed: recovering it cannot
// make a second one.
func (s *Server) recoverable(rec Record, now time.Time) bool {
	if rec.State != StateInProgress || s.opts.Faults.StuckReservation || s.opts.Faults.External != "" {
		// With an external call, the provider's effect is outside the
		// transaction: a dead owner may have made it, so only
		// reconciliation with the provider may settle the key.
		return false
	}
	instance, _, _ := strings.Cut(rec.Owner, "/")
	if instance == s.instance {
		s.mu.Lock()
		defer s.mu.Unlock()
		return !s.live[rec.Owner] // its delivery ended here without releasing it
	}
	if s.store.Exclusive() {
		return true // the store's lock proves its owner's process is gone
	}
	return !rec.Lease.IsZero() && !now.Before(rec.Lease)
}

// sweep deletes expired records at most once a minute, off the hot path
// of every other request.
func (s *Server) sweep(ctx context.Context, now time.Time) {
	if s.opts.TTL <= 0 {
		return
	}
	s.mu.Lock()
	due := now.Sub(s.lastSweep) >= time.Minute
	if due {
		s.lastSweep = now
	}
	s.mu.Unlock()
	if due {
		s.store.Sweep(ctx, now)
	}
}

// reserve takes the key's reservation or answers for it (replay, conflict,
// in progress). It reports whether the delivery was answered.
func (s *Server) reserve(ctx context.Context, w http.ResponseWriter, d *delivery, conflictStatus int) bool {
	now := s.opts.Now()
	d.key = Record{Scope: d.route, KeyHash: d.keyHash, Fingerprint: d.fingerprint, State: StateInProgress, Owner: d.owner,
		Lease: now.Add(s.opts.Lease), Created: now}
	var got Record
	var reserved bool
	var err error
	if s.opts.Faults.NonAtomic {
		// Check, then write later without the key's constraint: the race
		// this mode exists to show.
		var ok bool
		got, ok, err = s.store.Get(ctx, d.route, d.keyHash)
		if err == nil && (!ok || got.expired(now)) {
			time.Sleep(s.opts.NonAtomicWindow)
			err = s.store.Put(ctx, d.key)
			got, reserved = d.key, true
		}
	} else {
		got, reserved, err = s.store.Reserve(ctx, d.key, now)
	}
	if err != nil {
		s.log.line(d.reqCtx, "reservation failed", map[string]any{"error": err.Error()})
		w.Header().Set("Retry-After", "1")
		s.answer(w, d.reqCtx, http.StatusServiceUnavailable, "failed", "storage_unavailable", "the key could not be reserved; nothing was done, retry with the same key")
		return true
	}
	if reserved {
		s.log.line(d.reqCtx, "decision", map[string]any{"decision": "new", "state": StateInProgress})
		return false
	}
	if got.Fingerprint != d.fingerprint && !s.opts.Faults.NoFingerprint {
		s.answer(w, d.reqCtx, conflictStatus, "conflict", "idempotency_key_reused", "this key was used with another payload")
		return true
	}
	if got.State != StateCompleted {
		if s.recoverable(got, now) {
			ok, err := s.store.TakeOver(ctx, d.route, d.keyHash, got.Owner, d.owner, d.key.Lease)
			if err == nil && ok {
				s.log.line(d.reqCtx, "decision", map[string]any{"decision": "new", "state": StateInProgress,
					"note": "reservation recovered: its owner is gone and no effect was committed"})
				return false
			}
		}
		w.Header().Set("Retry-After", "1")
		s.answer(w, d.reqCtx, s.opts.Profile.InProgress, "in_progress", "idempotency_key_in_use", "the first request with this key is still in progress")
		return true
	}
	s.log.line(d.reqCtx, "decision", map[string]any{"decision": "replay", "state": StateCompleted, "status": got.Status, "result_id": got.ResultID})
	writeStored(w, got, true)
	return true
}

// commit records the effect and completes the key record in one
// transaction; it returns only once that transaction is durable.
func (s *Server) commit(ctx context.Context, d *delivery, prefix string) (Record, error) {
	now := s.opts.Now()
	c := Completion{Scope: d.route, KeyHash: d.keyHash, Owner: d.owner, Request: d.rid, Prefix: prefix, Time: now,
		Dedup: !s.opts.Faults.NoDedup, Blind: s.opts.Faults.NonAtomic,
		Respond: func(resultID string) (int, http.Header, []byte) {
			body, _ := json.Marshal(map[string]any{"id": resultID, "status": "created"})
			return http.StatusCreated, http.Header{"Content-Type": {"application/json"}}, body
		}}
	if s.opts.TTL > 0 {
		c.Expires = now.Add(s.opts.TTL)
	}
	rec, err := s.store.Complete(ctx, c)
	if err != nil {
		return Record{}, err
	}
	s.log.line(d.reqCtx, "effect", map[string]any{"event": "effect", "result_id": rec.ResultID})
	s.log.line(d.reqCtx, "completed", map[string]any{"state": StateCompleted, "status": rec.Status, "result_id": rec.ResultID,
		"duration_ms": now.Sub(d.start).Milliseconds()})
	return rec, nil
}

// release deletes this delivery's reservation (a failed or "crashed"
// attempt). If even that fails, the reservation stays with an owner that
// is no longer live, and the next delivery recovers it.
func (s *Server) release(ctx context.Context, d *delivery) {
	if s.opts.Faults.NoDedup {
		return
	}
	if err := s.store.Release(ctx, d.route, d.keyHash, d.owner); err != nil {
		s.log.line(d.reqCtx, "release failed", map[string]any{"error": err.Error()})
	}
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

// Timeouts bound how long a connection may take. A slow or half-sent
// request must not hold a connection (and its goroutine) open.
type Timeouts struct {
	ReadHeader, Read, Write, Idle time.Duration
}

// DefaultTimeouts suits a handler that takes up to delay.
func DefaultTimeouts(delay time.Duration) Timeouts {
	return Timeouts{ReadHeader: 5 * time.Second, Read: 15 * time.Second, Write: 30*time.Second + 2*delay, Idle: 60 * time.Second}
}

// Serve runs handler on addr until ctx ends, then shuts down gracefully.
// ready, when set, receives the bound address.
func Serve(ctx context.Context, addr string, handler http.Handler, t Timeouts, ready func(addr string)) error {
	lc := &http.Server{Handler: handler, ReadHeaderTimeout: t.ReadHeader, ReadTimeout: t.Read, WriteTimeout: t.Write,
		IdleTimeout: t.Idle, MaxHeaderBytes: 64 << 10}
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
