package replay

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/idem-cli/idem/model"
)

// TestUnsendableRequests: what Go's HTTP client would refuse is found
// before anything is sent, and names the header; what it sends is let
// through.
func TestUnsendableRequests(t *testing.T) {
	target, _ := url.Parse("http://127.0.0.1:8080")
	tests := []struct {
		name    string
		method  string
		key     string
		header  model.Header
		fault   string // the header named, "-" for the method, "" for none
		problem string
	}{
		{"a CR LF in a value", "POST", "k", model.Header{Name: "X-Trace", Value: "a\r\nInjected: 1"}, "X-Trace", "holds a line break"},
		{"a bare LF", "POST", "k", model.Header{Name: "X-Note", Value: "a\nb"}, "X-Note", "holds a line break"},
		{"a NUL", "POST", "k", model.Header{Name: "X-Note", Value: "a\x00b"}, "X-Note", "holds a control character"},
		{"a DEL", "POST", "k", model.Header{Name: "X-Note", Value: "a\x7fb"}, "X-Note", "holds a control character"},
		{"a space in a name", "POST", "k", model.Header{Name: "X Bad", Value: "v"}, "X Bad", "is not a valid header name"},
		{"a key with a line break", "POST", "k\r\nX: 1", model.Header{Name: "Accept", Value: "*/*"}, "Idempotency-Key", "holds a line break"},
		{"a method with a space", "PO ST", "k", model.Header{Name: "Accept", Value: "*/*"}, "-", ""},
		{"a tab and UTF-8 are sent", "POST", "k", model.Header{Name: "X-Note", Value: "a\tb é"}, "", ""},
	}
	// The verdicts are Go's client's own: it refuses exactly these.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	for _, tt := range tests {
		req, err := http.NewRequest(tt.method, srv.URL, nil)
		if err == nil {
			req.Header[tt.header.Name] = []string{tt.header.Value}
			req.Header["Idempotency-Key"] = []string{tt.key}
			var resp *http.Response
			if resp, err = http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}
		if refused := err != nil; refused != (tt.fault != "") {
			t.Errorf("%s: Go's client refused it: %v (%v)", tt.name, refused, err)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &model.Captured{Method: tt.method, URL: "https://shop.example.com/v1/orders", Key: tt.key, HasBody: true, Body: []byte(`{}`),
				Headers: []model.Header{tt.header}}
			_, err := NewPlan(c, tt.key, Original{}, Options{Target: target, Probes: []string{probeMismatch}})
			var re *requestError
			switch {
			case tt.fault == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.fault == "":
			case !errors.As(err, &re) || !errors.Is(err, ErrUnsendable):
				t.Fatalf("error %v, want a RequestError", err)
			case tt.fault == "-" && re.Method != tt.method:
				t.Errorf("%+v", re)
			case tt.fault != "-" && (re.Header != tt.fault || re.Problem != tt.problem):
				t.Errorf("%+v, want %s %s", re, tt.fault, tt.problem)
			}
		})
	}
}
