package redact

import (
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	tests := []struct{ in, secret string }{
		{"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc.def", "eyJhbGciOiJIUzI1NiJ9"},
		{"proxy-authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA"},
		{`{"Cookie":"session=9f8e7d6c5b4a"}`, "9f8e7d6c5b4a"},
		{"set-cookie: sid=abcdef123456; Path=/", "abcdef123456"},
		{"x-api-key: 0123456789abcdef", "0123456789abcdef"},
		{"GET /v1/x?token=s3cr3tvalue&page=2", "s3cr3tvalue"},
		{"/cb?access_token=tok_live_123456&x=1", "tok_live_123456"},
		{"api_key=AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"},
		{"password=hunter2hunter2", "hunter2hunter2"},
		{"client_secret=zzzzzzzzzz", "zzzzzzzzzz"},
		{"charge with sk_live_51HxAbCdEfGhIjKlMnOpQr", "sk_live_51Hx"},
		{"token ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "ghp_aaaaaaaa"},
		{"slack xoxb-1234567890-abcdefghij", "xoxb-1234567890"},
	}
	for _, tt := range tests {
		got := String(tt.in)
		if strings.Contains(got, tt.secret) || !strings.Contains(got, Mask) {
			t.Errorf("String(%q) = %q", tt.in, got)
		}
	}
	for _, safe := range []string{"Key c0ffee00-1111 made 2 effects", "GET /v1/x?page=2", "idempotency key reserved", "basically fine"} {
		if got := String(safe); got != safe {
			t.Errorf("String(%q) changed it to %q", safe, got)
		}
	}
}

func TestIsSecretHeader(t *testing.T) {
	for _, h := range []string{"Authorization", "proxy-authorization", "Cookie", "Set-Cookie", "X-Api-Key", "api-key", "X-Auth-Token", "X-Client-Secret"} {
		if !IsSecretHeader(h) {
			t.Errorf("%s is not treated as secret", h)
		}
	}
	for _, h := range []string{"Idempotency-Key", "X-Request-Id", "Content-Type", "Accept"} {
		if IsSecretHeader(h) {
			t.Errorf("%s is treated as secret", h)
		}
	}
}

func FuzzString(f *testing.F) {
	f.Add("Authorization: Bearer abc.def.ghi")
	f.Add("x?token=1&password=2")
	f.Fuzz(func(t *testing.T, s string) {
		// Redacting twice may mask a little more (two patterns can meet at
		// odd punctuation), but never brings anything back.
		out := String(s)
		twice := String(out)
		if len(strings.ReplaceAll(twice, Mask, "")) > len(strings.ReplaceAll(out, Mask, "")) {
			t.Fatalf("a second pass added text: %q -> %q -> %q", s, out, twice)
		}
	})
}

// FuzzSuspicious checks the one-pass pre-check against searching the
// ASCII-lower-cased text for every suspect word.
func FuzzSuspicious(f *testing.F) {
	for _, s := range []string{"Authorization: Bearer x", "a TOKEN", "sk_live", "tok", "to", "xo", "", "ghp_1", "sig=abc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := []byte(s)
		for i, c := range b {
			b[i] = lower(c)
		}
		want := false
		for _, w := range suspects {
			want = want || strings.Contains(string(b), w)
		}
		if got := suspicious(s); got != want {
			t.Fatalf("suspicious(%q) = %v, want %v", s, got, want)
		}
	})
}
