package gateway

import (
	"net/http"
	"strconv"
)

// The effects, for people and for idem replay's --effects-url: a page at a
// time, since a store holds any number of them (all 112k of them were 20
// MB in one answer), and their count alone, which is what a replay reads
// before and after each step.

// Effect pages.
const (
	defaultEffectPage = 100
	maxEffectPage     = 1000
)

// effects answers GET /v1/effects?after=SEQ&limit=N: the count of every
// effect, up to N effects (100 by default, at most 1000) made after the
// one numbered SEQ, and the next page's path while there are more.
func (s *server) effects(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	after, limit := int64(0), defaultEffectPage
	if v := q.Get("after"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "query_invalid", "message": "after must be an effect's seq, 0 or more"})
			return
		}
		after = n
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxEffectPage {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "query_invalid", "message": "limit must be 1 to " + strconv.Itoa(maxEffectPage)})
			return
		}
		limit = n
	}
	count, err := s.store.EffectCount(r.Context())
	var page []effect
	if err == nil {
		// One more than the page: whether a next page exists.
		page, err = s.store.Effects(r.Context(), after, limit+1)
	}
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"error": "storage_unavailable", "message": "the effects could not be read"})
		return
	}
	out := map[string]any{"count": count}
	if len(page) > limit {
		page = page[:limit]
		out["next"] = "/v1/effects?after=" + strconv.FormatInt(page[limit-1].Seq, 10) + "&limit=" + strconv.Itoa(limit)
	}
	out["effects"] = page
	writeJSON(w, http.StatusOK, out)
}

// effectCount answers GET /v1/effects/count: {"count":N}, read without
// the records.
func (s *server) effectCount(w http.ResponseWriter, r *http.Request) {
	count, err := s.store.EffectCount(r.Context())
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"error": "storage_unavailable", "message": "the effects could not be counted"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"count": count})
}
