package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/idem-cli/idem/model"
)

// The HTTP side of the contract: the routes, one delivery's way from
// request to answer, and the answers. What a key's record may become, and
// when, is reservation.go's.

// Handler routes the gateway's endpoints.
func (s *server) Handler() http.Handler {
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
	mux.HandleFunc("GET /v1/effects", s.effects)
	mux.HandleFunc("GET /v1/effects/count", s.effectCount)
	mux.HandleFunc("GET /v1/keys/{key}", s.keyState)
	mux.HandleFunc("POST /v1/keys/{key}/resolve", s.resolve)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		// Not ok while the store refuses writes: a balancer must stop
		// sending deliveries that can only fail.
		if err := s.store.Health(r.Context()); err != nil {
			msg := "the store does not answer"
			if errors.Is(err, errStateGone) {
				msg = errStateGone.Error()
			}
			writeJSON(w, http.StatusServiceUnavailable, map[string]any{"ok": false, "profile": s.opts.Profile.Name,
				"error": "storage_unavailable", "message": msg})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "profile": s.opts.Profile.Name})
	})
	return mux
}

// keyState shows what the store holds for a key, in every scope, and what
// the next delivery with it would get: the way to reconcile a stuck
// reservation by looking rather than deleting.
func (s *server) keyState(w http.ResponseWriter, r *http.Request) {
	key := model.NormalizeKey(r.PathValue("key"))
	if !keySyntax.MatchString(key) {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "idempotency_key_invalid", "message": "the key must be 1 to 255 visible ASCII characters"})
		return
	}
	hash := model.HashKey(key)
	recs, err := s.store.Records(r.Context(), keyDigest(key))
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
		case rec.State == stateInProgress:
			m["lease"] = rec.Lease.UTC().Format(time.RFC3339Nano)
			switch {
			case s.recoverable(rec, now):
				m["next_delivery"] = "recovers the reservation: its owner is gone and no effect was committed"
			case s.reconcilable(rec, now):
				m["next_delivery"] = "reconcile with the provider by its key, then complete or call it: its owner is gone and its call may have happened; " +
					"if the provider cannot say, an operator resolves it (POST /v1/keys/{key}/resolve)"
			default:
				m["next_delivery"] = "in progress: its owner is alive"
			}
		case rec.expired(now):
			m["next_delivery"] = "new: the record has expired"
		default:
			m["next_delivery"] = "replay"
		}
		if rec.State == stateCompleted {
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

func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// serve runs the contract for one delivery.
func (s *server) serve(w http.ResponseWriter, r *http.Request, route, prefix string, conflictStatus int, validate validator) {
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
	d := &delivery{reqCtx: ctx, digest: keyDigest(key), owner: s.instance + "/" + strconv.FormatUint(s.deliveries.Add(1), 10) + "/" + rid}
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
		if done := s.external(bg, w, d, body); done {
			return
		}
		if s.opts.Faults.CrashAfterExternal && s.crashOnce(ctx.route+"|"+ctx.keyHash) {
			// The process "dies" between the external call and the terminal
			// write; a naive recovery deletes the stuck reservation.
			s.release(bg, d)
			s.log.line(ctx, "crash after external call, reservation lost", map[string]any{"state": stateInProgress})
			drop(w)
			return
		}
	}
	rec, err := s.commit(bg, d, prefix)
	if err != nil {
		// Nothing was committed: no effect, and no answer but an error.
		w.Header().Set("Retry-After", "1")
		code, msg := "storage_unavailable", "the result could not be stored; nothing was done, retry with the same key"
		switch {
		case errors.Is(err, errNotOwner):
			code, msg = "reservation_lost", "the reservation passed to another delivery before this one finished; nothing was done"
		case s.opts.Faults.External != "" && !s.opts.Faults.CrashAfterExternal:
			// The provider acted: releasing the key would let the retry
			// call it again. Held, the retry asks the provider first.
			msg = "the provider acted but the result could not be stored; the key is held, and a retry with the same key asks the provider first"
		default:
			s.release(bg, d)
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

// external runs the delivery's provider call, after asking the provider
// what an earlier owner's call did when the reservation was taken from
// one. It reports whether the delivery was answered; if not, the provider
// acted and the delivery commits. Only a refusal releases the key: an
// unknown outcome keeps it, since releasing it would let a retry charge
// again.
func (s *server) external(ctx context.Context, w http.ResponseWriter, d *delivery, body []byte) bool {
	o := outcomeRefused // nothing done yet
	if d.reconcile {
		var why string
		o, why = s.reconcile(ctx, d)
		s.log.line(d.reqCtx, "reconciliation", map[string]any{"outcome": o.String(), "note": why})
		if o == outcomeUnknown {
			s.needsReconciliation(w, d.reqCtx)
			return true
		}
	}
	if o != outcomeDone {
		o = s.callExternal(d, body)
	}
	switch o {
	case outcomeRefused:
		s.release(ctx, d)
		s.answer(w, d.reqCtx, http.StatusBadGateway, "failed", "external_failed", "the provider refused the call or could not be reached; nothing was done")
		return true
	case outcomeUnknown:
		s.answer(w, d.reqCtx, http.StatusBadGateway, "failed", "external_outcome_unknown",
			"the provider may have acted but did not say so; the key is held: a retry with the same key asks the provider first")
		return true
	}
	return false
}

// needsReconciliation answers a key that nothing here can settle: its
// provider call may have happened and the provider cannot be asked. No
// Retry-After: retrying does not help until an operator resolves it.
func (s *server) needsReconciliation(w http.ResponseWriter, ctx reqCtx) {
	s.answer(w, ctx, http.StatusConflict, "failed", "idempotency_key_needs_reconciliation",
		"the first delivery's provider call may have happened and the provider cannot say; the key is held until an operator resolves it")
}

// writeStored sends a record's answer: its status, headers and body as
// stored, byte for byte.
func writeStored(w http.ResponseWriter, rec record, replayed bool) {
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

// answer writes an error answer and logs the decision.
func (s *server) answer(w http.ResponseWriter, ctx reqCtx, status int, decision, code, msg string) {
	fields := map[string]any{"decision": decision, "status": status, "error": code}
	if decision == "in_progress" {
		fields["state"] = "in_progress"
	}
	s.log.line(ctx, "decision", fields)
	writeJSON(w, status, map[string]any{"error": code, "message": msg})
}

func (s *server) reject(w http.ResponseWriter, r *http.Request, route string, status int, code, msg string) {
	s.answer(w, reqCtx{rid: r.Header.Get("X-Request-Id"), route: route, method: r.Method, start: s.opts.Now()}, status, "rejected", code, msg)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
