package replay_test

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/redact"
	"github.com/idem-cli/idem/replay"
)

func TestBuildDropsCredentials(t *testing.T) {
	target, _ := url.Parse("http://127.0.0.1:8080")
	c := &model.Captured{Method: "POST", URL: "https://shop.example.com/v1/orders?api_key=AK1&page=2&access_token=t0k&X-Amz-Signature=s1g&code=c0de&sku=A",
		Key: "k", HasBody: true, Body: []byte(`{}`)}
	secrets := map[string]string{"X-Forwarded-Authorization": "Bearer fwd", "Authentication": "a", "Token": "t", "X-Amzn-Oidc-Accesstoken": "o",
		"X-Amzn-Oidc-Data": "d", "X-Goog-Iap-Jwt-Assertion": "j", "X-Access-Key": "ak", "X-Hub-Signature-256": "sha256=h", "X-Signature": "s",
		"Cookie2": "c2", "X-Auth": "x", "X-Session-Id": "sid"}
	for name, v := range secrets {
		c.Headers = append(c.Headers, model.Header{Name: name, Value: v})
	}
	c.Headers = append(c.Headers, model.Header{Name: "Accept", Value: "application/json"}, model.Header{Name: "X-Correlation-Id", Value: "corr-1"})
	r, err := replay.Build(c, "k", replay.Options{Target: target})
	if err != nil {
		t.Fatal(err)
	}
	if r.URL != "http://127.0.0.1:8080/v1/orders?page=2&sku=A" {
		t.Errorf("URL %s", r.URL)
	}
	for name := range secrets {
		if r.Header.Get(name) != "" {
			t.Errorf("%s was resent", name)
		}
		if !slices.Contains(r.Dropped, name) {
			t.Errorf("%s is not named as dropped: %v", name, r.Dropped)
		}
	}
	for _, p := range []string{"?api_key", "?access_token", "?X-Amz-Signature", "?code"} {
		if !slices.Contains(r.Dropped, p) {
			t.Errorf("%s is not named as dropped: %v", p, r.Dropped)
		}
	}
	if r.Header.Get("Accept") == "" || r.Header.Get("X-Correlation-Id") != "corr-1" || r.Header.Get("Idempotency-Key") != "k" {
		t.Errorf("headers %v", r.Header)
	}
	r, _ = replay.Build(c, "k", replay.Options{Target: target, KeepAuth: true})
	if !strings.Contains(r.URL, "api_key=AK1") || r.Header.Get("X-Hub-Signature-256") == "" || len(r.Dropped) != 0 {
		t.Errorf("--keep-auth: %s %v", r.URL, r.Dropped)
	}
	// A credential given on the command line is sent and not reported as dropped.
	r, _ = replay.Build(c, "k", replay.Options{Target: target, Headers: []model.Header{{Name: "X-Auth", Value: "fresh"}}})
	if r.Header.Get("X-Auth") != "fresh" || slices.Contains(r.Dropped, "X-Auth") {
		t.Errorf("--header X-Auth: %v %v", r.Header, r.Dropped)
	}
}

func bashPath(t testing.TB) string {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("bash is needed to check the curl commands")
		}
		t.Skip("bash is not installed")
	}
	return bash
}

// curlArgs runs a generated command with curl replaced by a function that
// prints its arguments, so the test sees the words the shell would pass.
func curlArgs(t testing.TB, bash, cmd string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bash, "--norc", "--noprofile", "-c", `curl() { printf '%s\0' "$@"; }; `+cmd).Output()
	if err != nil {
		t.Fatalf("bash ran %q: %v", cmd, err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

func TestCurlIsValidShell(t *testing.T) {
	bash := bashPath(t)
	tests := []struct {
		name   string
		header map[string]string
		body   string
		url    string
	}{
		{"a masked credential ends a quoted argument", map[string]string{"Authorization": "Bearer abcdef123456"}, `{"a":1}`, "http://127.0.0.1/v1/x"},
		{"a form body with a password", nil, "user=ann&password=hunter2", "http://127.0.0.1/login"},
		{"a header holding token=", map[string]string{"X-Note": "a token=abcdef&x=1"}, "", "http://127.0.0.1/v1/x?token=s3cr3t"},
		{"quotes, newlines and control characters", map[string]string{"X-Quote": `it's "x"`}, "line1\nit's\t\x1b[31mred\x07\n", "http://127.0.0.1/v1/it's"},
		{"a bidi override and invalid UTF-8", map[string]string{"X-Name": "a\u202eb"}, "\xff\xfe", "http://127.0.0.1/v1/x"},
		{"a JSON body with secrets", nil, `{"card":{"number":"4242424242424242","cvc":"123"},"pass":"it's"}`, "http://u:pw@127.0.0.1/v1/x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &replay.Request{Method: "POST", URL: tt.url, Header: map[string][]string{}, Body: []byte(tt.body)}
			for k, v := range tt.header {
				r.Header.Set(k, v)
			}
			cmd := r.Curl()
			for _, line := range strings.Split(cmd, "\n") {
				if !printableLine(line) {
					t.Errorf("unprintable line %q", line)
				}
			}
			args := curlArgs(t, bash, cmd)
			want := []string{"-sS", "-X", "POST", redact.String(tt.url)}
			for _, name := range sortedKeys(r.Header) {
				want = append(want, "-H", name+": "+replay.ShowHeader(name, r.Header.Get(name)))
			}
			if tt.body != "" {
				want = append(want, "--data-binary", redact.String(tt.body))
			}
			if !slices.Equal(args, want) {
				t.Errorf("bash passes\n%q\nwant\n%q\nfrom\n%s", args, want, cmd)
			}
			for _, secret := range []string{"abcdef123456", "hunter2", "s3cr3t", "4242424242424242", ":pw@"} {
				if strings.Contains(cmd, secret) {
					t.Errorf("%s shown in\n%s", secret, cmd)
				}
			}
		})
	}
}

func sortedKeys(h map[string][]string) []string {
	var names []string
	for n := range h {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func printableLine(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0xfffd {
			return false
		}
	}
	return true
}

// FuzzCurl checks that every generated command is valid shell (bash -n).
func FuzzCurl(f *testing.F) {
	f.Add("Authorization", "Bearer abc.def.ghi", "password=x&y='z'", "/v1/x?token=1")
	f.Add("X-Note", "it's \\ \"quoted\"\n", "{\"pass\":\"a'b\"}", "/a'b")
	f.Add("Cookie", "a=b; token=c", "\x00\xff", "/%27")
	bash := bashPath(f)
	f.Fuzz(func(t *testing.T, name, value, body, path string) {
		r := &replay.Request{Method: "POST", URL: "http://127.0.0.1:8080" + path, Header: map[string][]string{}, Body: []byte(body)}
		if name != "" {
			r.Header[name] = []string{value}
		}
		cmd := r.Curl()
		if strings.ContainsRune(cmd, 0) {
			t.Fatalf("a NUL in %q", cmd)
		}
		var stderr bytes.Buffer
		c := exec.Command(bash, "-n", "-c", cmd)
		c.Stderr = &stderr
		if err := c.Run(); err != nil {
			t.Fatalf("bash -n: %v %s\n%s", err, stderr.String(), cmd)
		}
	})
}
