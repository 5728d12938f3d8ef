package replay

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/idem-cli/idem/contract"
	"github.com/idem-cli/idem/model"
)

// withHeaders is the captured request with more headers.
func withHeaders(hs ...model.Header) *model.Captured {
	c := captured("k")
	c.Headers = append(c.Headers, hs...)
	return c
}

// Routing and trust headers from a log are not resent unless named: they
// would claim the original client's address, or reach another route.
func TestRoutingHeadersAreWithheldUnlessKept(t *testing.T) {
	target, _ := url.Parse("http://127.0.0.1:8080")
	routing := []model.Header{{Name: "X-Forwarded-For", Value: "203.0.113.7"}, {Name: "x-forwarded-host", Value: "shop.example.com"},
		{Name: "X-Forwarded-Proto", Value: "https"}, {Name: "Forwarded", Value: "for=203.0.113.7;proto=https"}, {Name: "X-Real-IP", Value: "203.0.113.7"},
		{Name: "X-Original-URL", Value: "/admin/refund"}, {Name: "X-Rewrite-URL", Value: "/admin/refund"}}
	c := withHeaders(append(routing, model.Header{Name: "X-Tenant", Value: "acme"})...)
	for _, tt := range []struct {
		name string
		keep []string
		sent []string
	}{
		{"none kept", nil, nil},
		{"one kept by name, in any case", []string{"x-forwarded-for"}, []string{"X-Forwarded-For"}},
	} {
		req, err := build(c, "k", Options{Target: target, KeepHeaders: tt.keep})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range routing {
			name := strings.ToLower(h.Name)
			got := req.Header.Get(h.Name)
			kept := slices.ContainsFunc(tt.sent, func(s string) bool { return strings.EqualFold(s, name) })
			if kept != (got != "") {
				t.Errorf("%s: %s sent %q, want sent %v", tt.name, h.Name, got, kept)
			}
			if withheld := slices.ContainsFunc(req.Withheld, func(s string) bool { return strings.EqualFold(s, name) }); withheld == kept {
				t.Errorf("%s: %s withheld %v, want %v (%v)", tt.name, h.Name, withheld, !kept, req.Withheld)
			}
		}
		if req.Header.Get("X-Tenant") != "acme" {
			t.Errorf("%s: an ordinary header was not resent", tt.name)
		}
	}
}

func gz(s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

// A Content-Encoding is resent only over a body encoded that way: a log
// holds the body decoded, and the server would fail to decode it.
func TestContentEncodingOnlyOverAnEncodedBody(t *testing.T) {
	target, _ := url.Parse("http://127.0.0.1:8080")
	for _, tt := range []struct {
		name, ce string
		body     []byte
		kept     bool
	}{
		{"gzip over JSON", "gzip", []byte(`{"amount":4200}`), false},
		{"gzip over gzip", "gzip", gz(`{"amount":4200}`), true},
		{"br over JSON", "br", []byte(`{"amount":4200}`), false},
		{"zstd over text", "zstd", []byte("amount=4200"), false},
		{"deflate over text", "deflate", []byte("amount=4200"), false},
		{"identity", "identity", []byte(`{"amount":4200}`), true},
	} {
		c := withHeaders(model.Header{Name: "Content-Encoding", Value: tt.ce})
		c.Body = tt.body
		req, err := build(c, "k", Options{Target: target})
		if err != nil {
			t.Fatal(err)
		}
		if got := req.Header.Get("Content-Encoding"); (got == tt.ce) != tt.kept || slices.Contains(req.Withheld, "Content-Encoding") == tt.kept {
			t.Errorf("%s: Content-Encoding %q, withheld %v; want kept %v", tt.name, got, req.Withheld, tt.kept)
		}
	}
}

// The confirmation says, per step, the method, path and host, the effects
// it makes, and where captured credentials go: to a host other than the
// one they were captured for is said so.
func TestDescribeSaysWhereAndWhatEffects(t *testing.T) {
	target, _ := url.Parse("http://127.0.0.1:8080")
	opts := Options{Target: target, Profile: contract.Profiles["article"], Concurrency: 3,
		Probes: []string{probeMismatch, probeConcurrent, probeLostResponse, probeInProgress}}
	p, err := NewPlan(withHeaders(model.Header{Name: "X-Forwarded-For", Value: "203.0.113.7"}), "k", Original{Status: 201}, opts)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(p.Describe(), "\n")
	for _, want := range []string{
		"replay: POST /v1/demo-requests?… on 127.0.0.1:8080, 1 request: no new effect (1 on a server that breaks the contract)",
		"probe mismatch: POST /v1/demo-requests?… on 127.0.0.1:8080, 1 request: no new effect",
		"probe concurrent: POST /v1/demo-requests?… on 127.0.0.1:8080, 3 requests: makes 1 new effect (up to 3 on a server that breaks the contract)",
		"probe lost-response: POST /v1/demo-requests?… on 127.0.0.1:8080, 2 requests: makes 1 new effect (up to 2",
		"probe in-progress: POST /v1/demo-requests?… on 127.0.0.1:8080, 2 requests: makes 1 new effect (up to 2",
		"captured credentials not resent: Authorization, Cookie (--keep-auth resends them)",
		"captured routing and trust headers not resent: X-Forwarded-For (--keep-header NAME resends one)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the description lacks %q:\n%s", want, got)
		}
	}
	if makes, most := p.Effects(); makes != 3 || most != 9 {
		t.Errorf("effects %d, at most %d; want 3 and 9", makes, most)
	}
	if strings.Contains(got, "s3cr3t") || strings.Contains(got, "abc123") {
		t.Errorf("a credential in the description:\n%s", got)
	}

	opts.KeepAuth = true
	p, _ = NewPlan(captured("k"), "k", Original{Status: 201}, opts)
	if got := strings.Join(p.Describe(), "\n"); !strings.Contains(got, "captured credentials resent (--keep-auth): Authorization, Cookie, to 127.0.0.1:8080, a host other than shop.example.com, where they were captured") {
		t.Errorf("credentials going elsewhere not said:\n%s", got)
	}
	same, _ := url.Parse("https://shop.example.com")
	opts.Target = same
	p, _ = NewPlan(captured("k"), "k", Original{Status: 201}, opts)
	if got := strings.Join(p.Describe(), "\n"); !strings.Contains(got, "to shop.example.com, the host they were captured for") {
		t.Errorf("credentials going home not said:\n%s", got)
	}
	// A log line's path, sent to the host its Host header names.
	c := captured("k")
	c.URL = "/v1/demo-requests"
	opts.Target = target
	p, _ = NewPlan(c, "k", Original{Status: 201}, opts)
	if got := strings.Join(p.Describe(), "\n"); !strings.Contains(got, "a host other than shop.example.com") {
		t.Errorf("the Host header not taken for the captured host:\n%s", got)
	}
	c.Headers = slices.DeleteFunc(c.Headers, func(h model.Header) bool { return h.Name == "Host" })
	p, _ = NewPlan(c, "k", Original{Status: 201}, opts)
	if got := strings.Join(p.Describe(), "\n"); !strings.Contains(got, "the capture names no host") {
		t.Errorf("a capture without a host:\n%s", got)
	}
	if got := p.NotAsked(); !slices.Equal(got, []string{probeMissingKey}) {
		t.Errorf("not asked %v, want missing-key", got)
	}
}

// A redirect's Location is kept redacted: a target may point at a URL
// with a token.
func TestRedirectLocationIsRedacted(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "https://login.example.com/cb?access_token=sekrit-0123456789")
		w.WriteHeader(http.StatusFound)
	}))
	defer srv.Close()
	target, _ := url.Parse(srv.URL)
	p, _ := NewPlan(captured("k"), "k", Original{Status: 201}, Options{Target: target, Profile: contract.Profiles["article"]})
	res, err := p.Execute(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Reason == nil || res.Reason.Kind != reasonRedirect || strings.Contains(res.Reason.Location, "sekrit") || strings.Contains(res.Assertions[0].Actual, "sekrit") ||
		!strings.Contains(res.Reason.Location, "login.example.com/cb") {
		t.Errorf("reason %+v, assertion %+v: want the location named, its token redacted", res.Reason, res.Assertions[0])
	}
}
