package gateway

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
)

// TestEffectsArePaged: GET /v1/effects answers a page and the way to the
// next, the pages hold every effect once and in order, and the count is
// there alone at /v1/effects/count.
func TestEffectsArePaged(t *testing.T) {
	c, _ := start(t, Options{Faults: Faults{NoDedup: true}})
	const n = 250
	for i := 0; i < n; i++ {
		if r := c.post("/v1/demo-requests", "k", `{"x":1}`); r.status != 201 {
			t.Fatalf("delivery %d: %+v", i, r)
		}
	}
	type page struct {
		Count   int      `json:"count"`
		Effects []effect `json:"effects"`
		Next    string   `json:"next"`
	}
	get := func(path string, v any) int {
		resp, err := http.Get(c.url + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		json.NewDecoder(resp.Body).Decode(v)
		return resp.StatusCode
	}
	var seen []string
	pages := 0
	for path := "/v1/effects"; path != ""; pages++ {
		var p page
		if code := get(path, &p); code != 200 || p.Count != n {
			t.Fatalf("%s: %d, count %d", path, code, p.Count)
		}
		if len(p.Effects) > defaultEffectPage || (p.Next != "" && len(p.Effects) != defaultEffectPage) {
			t.Fatalf("%s: %d effects, next %q", path, len(p.Effects), p.Next)
		}
		for _, e := range p.Effects {
			seen = append(seen, e.ResultID)
		}
		path = p.Next
	}
	if pages != 3 || len(seen) != n {
		t.Fatalf("%d pages, %d effects", pages, len(seen))
	}
	for i, id := range seen {
		if want := fmt.Sprintf("dr_%06d", i+1); id != want {
			t.Fatalf("effect %d is %s, want %s", i, id, want)
		}
	}
	var p page
	if get("/v1/effects?after=248&limit=5", &p); len(p.Effects) != 2 || p.Effects[0].Seq != 249 || p.Next != "" {
		t.Errorf("the last page: %+v", p)
	}
	var count map[string]any
	if code := get("/v1/effects/count", &count); code != 200 || count["count"] != float64(n) || len(count) != 1 {
		t.Errorf("/v1/effects/count: %d %v", code, count)
	}
	for _, bad := range []string{"?limit=0", "?limit=1001", "?limit=x", "?after=-1", "?after=x"} {
		var e map[string]any
		if code := get("/v1/effects"+bad, &e); code != 400 || e["error"] != "query_invalid" {
			t.Errorf("%s: %d %v", bad, code, e)
		}
	}
}
