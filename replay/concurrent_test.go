package replay

import (
	"errors"
	"net/http"
	"testing"

	"github.com/idem-cli/idem/contract"
)

func TestClassifyConcurrent(t *testing.T) {
	ok := func(id string, marked bool) response {
		h := http.Header{}
		if marked {
			h.Set("Idempotent-Replayed", "true")
		}
		return response{status: 201, header: h, body: []byte(`{"id":"` + id + `"}`)}
	}
	busy := response{status: 409, header: http.Header{}}
	lost := response{err: errors.New("EOF")}
	odd := response{status: 500, header: http.Header{}}
	tests := []struct {
		name                           string
		profile                        string
		resps                          []response
		fresh, waited, replayed, other int
		ids                            int
	}{
		{"one fresh, one waited", "article", []response{ok("a", false), busy}, 1, 1, 0, 0, 1},
		{"one fresh, one marked replay", "article", []response{ok("a", false), ok("a", true)}, 1, 0, 1, 0, 1},
		{"no marker in use: one result is one success", "article", []response{ok("a", false), ok("a", false)}, 1, 0, 1, 0, 1},
		{"no marker in use: two results are two", "ietf", []response{ok("a", false), ok("b", false)}, 2, 0, 0, 0, 2},
		{"marker in use: two unmarked successes are two", "article", []response{ok("a", false), ok("a", false), ok("a", true)}, 2, 0, 1, 0, 1},
		{"a lost answer the others replay", "ietf", []response{lost, ok("a", false), ok("a", false)}, 1, 0, 2, 0, 1},
		{"every answer lost", "ietf", []response{lost, lost, lost}, 3, 0, 0, 0, 0},
		{"a lost answer and a fresh result", "ietf", []response{lost, lost, ok("a", false)}, 2, 0, 1, 0, 1},
		{"an unexpected answer", "ietf", []response{ok("a", false), odd}, 1, 0, 0, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &runner{opts: Options{Profile: contract.Profiles[tt.profile]}}
			reqs := make([]*request, len(tt.resps))
			for i := range reqs {
				reqs[i] = &request{URL: "http://x/v1/orders", Header: http.Header{}}
			}
			c := classifyConcurrent(tt.resps, reqs, r)
			if c.fresh != tt.fresh || c.waited != tt.waited || c.replayed != tt.replayed || c.other != tt.other || len(c.ids) != tt.ids {
				t.Errorf("got fresh %d waited %d replayed %d other %d ids %v: %v", c.fresh, c.waited, c.replayed, c.other, c.ids, c.labels)
			}
		})
	}
}
