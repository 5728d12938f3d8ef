package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// The reservation state machine. A key's record goes from nothing to
// in_progress (reserve, or a takeover from an owner that is gone), then to
// completed with its effect (commit) or back to nothing (release). What
// reserve finds answers the other deliveries: a replay, a conflict, or
// "in progress".

// delivery is one request's reservation.
type delivery struct {
	reqCtx
	digest string // the key's, as the store names it
	owner  string
	key    record // the reservation as written
	// reconcile says the reservation was taken from a dead owner whose
	// provider call may have happened: ask the provider before calling.
	reconcile bool
}

// setLive marks owner's delivery as running in this process, or no longer.
func (s *server) setLive(owner string, on bool) {
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
func (s *server) recoverable(rec record, now time.Time) bool {
	// With an external call, the provider's effect is outside the
	// transaction: a dead owner may have made it, so only reconciliation
	// with the provider may settle the key (reconcilable).
	return s.opts.Faults.External == "" && !s.opts.Faults.StuckReservation && s.ownerGone(rec, now)
}

// reconcilable reports whether an in_progress reservation's owner is gone
// while the provider may have acted for it: the next delivery takes it
// over to ask the provider, never to call it blindly.
func (s *server) reconcilable(rec record, now time.Time) bool {
	return s.opts.Faults.External != "" && !s.opts.Faults.StuckReservation && s.ownerGone(rec, now)
}

// ownerGone reports whether an in_progress reservation's owner no longer
// runs.
func (s *server) ownerGone(rec record, now time.Time) bool {
	if rec.State != stateInProgress {
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
func (s *server) sweep(ctx context.Context, now time.Time) {
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
func (s *server) reserve(ctx context.Context, w http.ResponseWriter, d *delivery, conflictStatus int) bool {
	now := s.opts.Now()
	d.key = record{Scope: d.route, Digest: d.digest, Fingerprint: d.fingerprint, State: stateInProgress, Owner: d.owner,
		Lease: now.Add(s.opts.Lease), Created: now}
	var got record
	var reserved bool
	var err error
	if s.opts.Faults.NonAtomic {
		// Check, then write later without the key's constraint: the race
		// this mode exists to show.
		var ok bool
		got, ok, err = s.store.Get(ctx, d.route, d.digest)
		if err == nil && (!ok || got.expired(now)) {
			time.Sleep(s.opts.NonAtomicWindow)
			err = s.store.Put(ctx, d.key)
			got, reserved = d.key, true
		}
	} else {
		got, reserved, err = s.store.Reserve(ctx, d.key, now)
	}
	if err != nil {
		s.unavailable(w, d, "reservation", err)
		return true
	}
	if reserved {
		s.log.line(d.reqCtx, "decision", map[string]any{"decision": "new", "state": stateInProgress})
		return false
	}
	if got.Fingerprint != d.fingerprint && !s.opts.Faults.NoFingerprint {
		s.answer(w, d.reqCtx, conflictStatus, "conflict", "idempotency_key_reused", "this key was used with another payload")
		return true
	}
	if got.State != stateCompleted {
		if s.reconcilable(got, now) {
			ok, err := s.store.TakeOver(ctx, d.route, d.digest, got.Owner, d.owner, d.key.Lease)
			if err != nil {
				s.unavailable(w, d, "take over", err)
				return true
			}
			if ok {
				s.log.line(d.reqCtx, "decision", map[string]any{"decision": "new", "state": stateInProgress,
					"note": "reservation taken over to reconcile: its owner is gone and its provider call may have happened"})
				d.reconcile = true
				return false
			}
			// Another delivery took it first: that one is in progress.
		}
		if s.recoverable(got, now) {
			ok, err := s.store.TakeOver(ctx, d.route, d.digest, got.Owner, d.owner, d.key.Lease)
			if err != nil {
				// The key is not in progress: its owner is gone, and the
				// store cannot hand it over. Say so, as every storage
				// failure does.
				s.unavailable(w, d, "take over", err)
				return true
			}
			if ok {
				s.log.line(d.reqCtx, "decision", map[string]any{"decision": "new", "state": stateInProgress,
					"note": "reservation recovered: its owner is gone and no effect was committed"})
				return false
			}
			// Another delivery recovered it first: that one is in progress.
		}
		w.Header().Set("Retry-After", "1")
		s.answer(w, d.reqCtx, s.opts.Profile.InProgress, "in_progress", "idempotency_key_in_use", "the first request with this key is still in progress")
		return true
	}
	s.log.line(d.reqCtx, "decision", map[string]any{"decision": "replay", "state": stateCompleted, "status": got.Status, "result_id": got.ResultID})
	writeStored(w, got, true)
	return true
}

// unavailable answers a delivery whose key could not be reserved: 503
// storage_unavailable, nothing done.
func (s *server) unavailable(w http.ResponseWriter, d *delivery, what string, err error) {
	s.log.line(d.reqCtx, what+" failed", map[string]any{"error": err.Error()})
	w.Header().Set("Retry-After", "1")
	s.answer(w, d.reqCtx, http.StatusServiceUnavailable, "failed", "storage_unavailable", "the key could not be reserved; nothing was done, retry with the same key")
}

// commit records the effect and completes the key record in one
// transaction; it returns only once that transaction is durable.
func (s *server) commit(ctx context.Context, d *delivery, prefix string) (record, error) {
	now := s.opts.Now()
	c := completion{Scope: d.route, Digest: d.digest, KeyHash: d.keyHash, Owner: d.owner, Request: d.rid, Prefix: prefix, Time: now,
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
		return record{}, err
	}
	s.log.line(d.reqCtx, "effect", map[string]any{"event": "effect", "result_id": rec.ResultID})
	s.log.line(d.reqCtx, "completed", map[string]any{"state": stateCompleted, "status": rec.Status, "result_id": rec.ResultID,
		"duration_ms": now.Sub(d.start).Milliseconds()})
	return rec, nil
}

// release deletes this delivery's reservation (a failed or "crashed"
// attempt). If even that fails, the reservation stays with an owner that
// is no longer live, and the next delivery recovers it.
func (s *server) release(ctx context.Context, d *delivery) {
	if s.opts.Faults.NoDedup {
		return
	}
	if err := s.store.Release(ctx, d.route, d.digest, d.owner); err != nil {
		s.log.line(d.reqCtx, "release failed", map[string]any{"error": err.Error()})
	}
}
