package gateway

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/idem-cli/idem/model"
)

// An operator's end for a key nothing else can settle: a reservation whose
// owner died while its provider call may have happened, and whose provider
// cannot be asked. The operator, having looked at the provider, says what
// it did: done completes the key (its retries replay a 201), not_done
// releases it (the next delivery runs it). It is a write to the store, so
// only a client on this host may make it.

// maxResolveBody bounds a resolve request's body.
const maxResolveBody = 4 << 10

// resolve answers POST /v1/keys/{key}/resolve, body
// {"outcome":"done"|"not_done","scope":"/v1/…"} (scope may be left out
// when one scope holds the key).
func (s *server) resolve(w http.ResponseWriter, r *http.Request) {
	if !fromLoopback(r) {
		writeJSON(w, http.StatusForbidden, map[string]any{"error": "admin_loopback_only", "message": "a key is resolved from this host only, not through a proxy"})
		return
	}
	key := model.NormalizeKey(r.PathValue("key"))
	if !keySyntax.MatchString(key) {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "idempotency_key_invalid", "message": "the key must be 1 to 255 visible ASCII characters"})
		return
	}
	var in struct {
		Outcome string `json:"outcome"`
		Scope   string `json:"scope"`
	}
	dec := json.NewDecoder(io.LimitReader(r.Body, maxResolveBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil || (in.Outcome != "done" && in.Outcome != "not_done") {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "request_invalid", "message": `the body must be {"outcome":"done"|"not_done"} with an optional "scope"`})
		return
	}
	ctx := r.Context()
	recs, err := s.store.Records(ctx, keyDigest(key))
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"error": "storage_unavailable", "message": "the key could not be read; nothing was done"})
		return
	}
	var held []record
	for _, rec := range recs {
		if rec.State == stateInProgress && (in.Scope == "" || rec.Scope == in.Scope) {
			held = append(held, rec)
		}
	}
	switch {
	case len(held) == 0:
		writeJSON(w, http.StatusNotFound, map[string]any{"error": "not_in_progress", "message": "no reservation of this key is in progress; nothing was done"})
		return
	case len(held) > 1:
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "scope_needed", "message": "the key is held in several scopes: name one"})
		return
	}
	rec := held[0]
	now := s.opts.Now()
	if !s.ownerGone(rec, now) {
		writeJSON(w, http.StatusConflict, map[string]any{"error": "owner_alive", "message": "the reservation's owner is still running; nothing was done"})
		return
	}
	rid := newRequestID()
	d := &delivery{reqCtx: reqCtx{rid: rid, route: rec.Scope, method: r.Method, keyHash: model.HashKey(key), fingerprint: rec.Fingerprint, start: now},
		digest: rec.Digest, owner: s.instance + "/" + strconv.FormatUint(s.deliveries.Add(1), 10) + "/resolve-" + rid}
	s.setLive(d.owner, true)
	defer s.setLive(d.owner, false)
	ok, err := s.store.TakeOver(ctx, rec.Scope, rec.Digest, rec.Owner, d.owner, now.Add(s.opts.Lease))
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"error": "storage_unavailable", "message": "the key could not be taken; nothing was done"})
		return
	}
	if !ok {
		writeJSON(w, http.StatusConflict, map[string]any{"error": "changed_hands", "message": "the reservation changed hands meanwhile; look again"})
		return
	}
	s.log.line(d.reqCtx, "resolved by an operator", map[string]any{"outcome": in.Outcome, "note": "previous owner " + rec.Owner})
	if in.Outcome == "not_done" {
		if err := s.store.Release(ctx, rec.Scope, rec.Digest, d.owner); err != nil {
			writeJSON(w, http.StatusServiceUnavailable, map[string]any{"error": "storage_unavailable", "message": "the key could not be released; it stays held"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"resolved": "not_done", "scope": rec.Scope, "next_delivery": "new: it runs the operation"})
		return
	}
	prefix := "rcpt"
	if rec.Scope == "/v1/demo-requests" {
		prefix = "dr"
	}
	done, err := s.commit(ctx, d, prefix)
	if err != nil {
		s.release(ctx, d)
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"error": "storage_unavailable", "message": "the result could not be stored; the key stays held"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"resolved": "done", "scope": rec.Scope, "status": done.Status, "result_id": done.ResultID,
		"next_delivery": "replay"})
}

// fromLoopback reports whether r came from this host, directly: a
// request a proxy forwarded (and says so) is refused, since the proxy's
// own loopback address says nothing of its client.
func fromLoopback(r *http.Request) bool {
	for _, h := range []string{"Forwarded", "X-Forwarded-For", "X-Real-Ip"} {
		if r.Header.Get(h) != "" {
			return false
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	return ip != nil && ip.IsLoopback()
}
