package replay

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/idem-cli/idem/contract"
	"github.com/idem-cli/idem/gateway"
)

// TestEffectsCount: --effects-url is read as a count, a list, or a page
// of a list with its count; one page of a list without a count is refused
// rather than taken for the count.
func TestEffectsCount(t *testing.T) {
	gw, orig := startGateway(t, gateway.Options{}, "k")
	for _, tt := range []struct {
		name, answer string
		wantErr      error
	}{
		{"a count", `{"count":1}`, nil},
		{"a list", `{"effects":[{"id":1}]}`, nil},
		{"a page with the count", `{"count":1,"effects":[{"id":1}],"next":"/v1/effects?after=1"}`, nil},
		{"a page without a count", `{"effects":[{"id":1}],"next":"/v1/effects?after=1&limit=1"}`, errPagedEffects},
		{"a Stripe list with more", `{"data":[{"id":1}],"has_more":true}`, errPagedEffects},
		{"no count", `{"ok":true}`, errNoEffectCount},
	} {
		t.Run(tt.name, func(t *testing.T) {
			effects := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(tt.answer))
			}))
			defer effects.Close()
			target, _ := url.Parse(gw.URL)
			path := ""
			if tt.name == "a Stripe list with more" {
				path = "data"
			}
			p, err := NewPlan(captured("k"), "k", orig, Options{Target: target, Profile: contract.Profiles["article"],
				EffectsURL: effects.URL, EffectsPath: path, Timeout: 5 * time.Second, Settle: 10 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			res, err := p.Execute(t.Context(), nil)
			var ee *EffectsError
			switch {
			case tt.wantErr == nil && err != nil:
				t.Fatalf("error %v", err)
			case tt.wantErr == nil && !hasOutcome(res, "PASS", "/effects unchanged"):
				t.Errorf("outcomes %v", outcomes(res))
			case tt.wantErr != nil && (!errors.As(err, &ee) || !errors.Is(err, tt.wantErr)):
				t.Errorf("error %v, want %v", err, tt.wantErr)
			}
		})
	}
	// The gateway's own: its count, and its first page with the count.
	for _, path := range []string{"/v1/effects/count", "/v1/effects"} {
		target, _ := url.Parse(gw.URL)
		p, _ := NewPlan(captured("k"), "k", orig, Options{Target: target, Profile: contract.Profiles["article"],
			EffectsURL: gw.URL + path, Timeout: 5 * time.Second, Settle: 10 * time.Millisecond})
		if res, err := p.Execute(t.Context(), nil); err != nil || !hasOutcome(res, "PASS", "/effects unchanged") {
			t.Errorf("%s: %v %v", path, err, outcomes(res))
		}
	}
}
