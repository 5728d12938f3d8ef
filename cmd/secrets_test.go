package cmd

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// secrets are the byte sequences planted in fixtures/hostile/secrets.*;
// none may appear in any output of any command.
var secrets = []string{
	"eyJhbGciOiJIUzI1NiJ9", "c2VjcmV0LXBheWxvYWQ", "9f8e7d6c5b4a3210", "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
	"s3cr3t-t0k3n-value", "hunter2hunter2", "ghp_1234567890abcdefghij", "AKIAIOSFODNN7EXAMPLE",
	"dXNlcjpwYXNzd29yZA", "xoxb-123456789012",
}

func TestNoSecretInAnyOutput(t *testing.T) {
	har, app := "../fixtures/hostile/secrets.har", "../fixtures/hostile/secrets.jsonl"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Idempotent-Replayed", "true")
		w.Header().Set("Set-Cookie", "session=9f8e7d6c5b4a3210")
		w.WriteHeader(201)
		w.Write([]byte(`{"id":"sess_1","token":"s3cr3t-t0k3n-value"}`))
	}))
	defer srv.Close()
	junit := filepath.Join(t.TempDir(), "j.xml")
	runs := [][]string{
		{"diagnose", har, app},
		{"diagnose", "-o", "markdown", har, app},
		{"diagnose", "-o", "json", har, app},
		{"diagnose", "--fail-on", "info", "-o", "json", app},
		{"trace", "secret-test-key-1", har, app},
		{"trace", "secret-test-key-1", "--format", "json", har, app},
		{"trace", "token=s3cr3t-t0k3n-value", app},
		{"replay", "--key", "secret-test-key-1", "--target", srv.URL, "--dry-run", har},
		{"replay", "--key", "secret-test-key-1", "--target", srv.URL, "--dry-run", "--keep-auth", har},
		{"replay", "--key", "secret-test-key-1", "--target", srv.URL, "--yes", "--keep-auth", "-o", "json", "--junit", junit, har, app},
		{"replay", "--key", "secret-test-key-1", "--target", srv.URL, "--yes", "--keep-auth", "-o", "markdown", har, app},
		{"replay", "--key", "secret-test-key-1", "--target", srv.URL, "--yes", "--keep-auth", har, app},
		{"replay", "--key", "secret-test-key-1", "--target", srv.URL + "/?token=s3cr3t-t0k3n-value", "--yes", har},
		{"diagnose", "--key", "password=hunter2hunter2", app, "missing?password=hunter2hunter2"},
	}
	for _, args := range runs {
		code, out, errOut := run(t, "", args...)
		if code > 2 {
			t.Errorf("%v: exit %d", args, code)
		}
		for _, s := range secrets {
			if strings.Contains(out, s) || strings.Contains(errOut, s) {
				t.Errorf("%v printed the secret %q\nstdout: %s\nstderr: %s", args, s, out, errOut)
			}
		}
	}
	b, _ := os.ReadFile(junit)
	for _, s := range secrets {
		if strings.Contains(string(b), s) {
			t.Errorf("the JUnit file holds %q", s)
		}
	}
	// And the secret-in-logs rule names what it found.
	_, out, _ := run(t, "", "diagnose", app)
	for _, field := range []string{"headers.Authorization", "headers.Cookie", "api_key"} {
		if !strings.Contains(out, field) {
			t.Errorf("secret-in-logs does not name %s:\n%s", field, out)
		}
	}
}
