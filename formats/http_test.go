package formats

import "testing"

func TestRoutePath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"/v1/orders", "/v1/orders"},
		{"/v1/orders?token=abc", "/v1/orders"},
		{"/v1/orders#top", "/v1/orders"},
		{"/v1/orders#top?x=1", "/v1/orders"},
		{"/v1/orders?x=1#top", "/v1/orders"},
		{"https://api.example.com/v1/orders?x=1", "/v1/orders"},
		{"https://api.example.com", ""},
		{"http://[::1", "/"},
		{"/v1/a:b", "/v1/a:b"},
		{"/v1/a:b?c", "/v1/a:b"},
		{"/redirect?to=https://x.example/y", "/redirect"},
		{"/v1/caf%C3%A9", "/v1/caf%C3%A9"},
		{"?", ""},
		{":", ":"},
	}
	for _, tt := range tests {
		if got := routePath(tt.in); got != tt.want {
			t.Errorf("routePath(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestHTTPMethod(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"GET", "GET"}, {"POST", "POST"}, {"OPTIONS", "OPTIONS"},
		{"get", "GET"}, {"Patch", "PATCH"}, {"PROPFIND", "PROPFIND"}, {"purge", "PURGE"}, {"", ""},
	} {
		if got := httpMethod(tc.in); got != tc.want {
			t.Errorf("httpMethod(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
