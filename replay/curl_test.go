package replay

import (
	"context"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/redact"
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
	r, err := build(c, "k", Options{Target: target})
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
	r, _ = build(c, "k", Options{Target: target, KeepAuth: true})
	if !strings.Contains(r.URL, "api_key=AK1") || r.Header.Get("X-Hub-Signature-256") == "" || len(r.Dropped) != 0 {
		t.Errorf("--keep-auth: %s %v", r.URL, r.Dropped)
	}
	// A credential given on the command line is sent and not reported as dropped.
	r, _ = build(c, "k", Options{Target: target, Headers: []model.Header{{Name: "X-Auth", Value: "fresh"}}})
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

// curlWords is what a shell must pass for r's curl command: the printf
// that feeds a body with a NUL, if any, and curl's arguments.
func curlWords(r *request) (printfArg string, args []string) {
	args = []string{"-sS", "-X", r.Method, ShowURL(r.URL)}
	for _, name := range slices.Sorted(maps.Keys(r.Header)) {
		for _, v := range r.Header[name] {
			args = append(args, "-H", name+": "+ShowHeader(name, v))
		}
	}
	body := redact.String(string(r.Body))
	switch {
	case strings.IndexByte(body, 0) >= 0:
		args = append(args, "--data-binary", "@-")
		return body, args
	case body != "":
		args = append(args, "--data-binary", body)
	}
	return "", args
}

// checkCurl parses r's curl command in process and checks that it passes
// exactly curlWords, and that every line prints as it is.
func checkCurl(t testing.TB, r *request) string {
	t.Helper()
	cmd := r.Curl()
	for _, line := range strings.Split(cmd, "\n") {
		if !printableLine(line) {
			t.Fatalf("unprintable line %q", line)
		}
	}
	cmds, err := shellParse(cmd)
	if err != nil {
		t.Fatalf("%v in\n%s", err, cmd)
	}
	stdin, want := curlWords(r)
	if stdin != "" {
		if len(cmds) != 2 || len(cmds[0]) != 3 || cmds[0][0] != "printf" || cmds[0][1] != "%b" {
			t.Fatalf("want printf %%b ARG | curl …, got %q", cmds)
		}
		got, err := printfB(cmds[0][2])
		if err != nil || got != stdin {
			t.Fatalf("printf writes %q (%v), want %q\n%s", got, err, stdin, cmd)
		}
		cmds = cmds[1:]
	}
	if len(cmds) != 1 || len(cmds[0]) == 0 || cmds[0][0] != "curl" || !slices.Equal(cmds[0][1:], want) {
		t.Fatalf("the shell passes\n%q\nwant curl\n%q\nfrom\n%s", cmds, want, cmd)
	}
	return cmd
}

var curlCases = []struct {
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
	{"a body with NULs and backslashes", nil, "a\x00b\\0\x001\\\\x00\n", "http://127.0.0.1/v1/x"},
}

func curlRequest(tc int) *request {
	tt := curlCases[tc]
	r := &request{Method: "POST", URL: tt.url, Header: map[string][]string{}, Body: []byte(tt.body)}
	for k, v := range tt.header {
		r.Header.Set(k, v)
	}
	return r
}

// TestCurlRoundTripsThroughBash runs each command in bash, with curl
// replaced by a function that records its arguments and its standard
// input: bash passes what the in-process parser says it does.
func TestCurlRoundTripsThroughBash(t *testing.T) {
	bash := bashPath(t)
	for i, tt := range curlCases {
		t.Run(tt.name, func(t *testing.T) {
			r := curlRequest(i)
			cmd := checkCurl(t, r)
			dir := t.TempDir()
			args, in := filepath.Join(dir, "args"), filepath.Join(dir, "stdin")
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			run := exec.CommandContext(ctx, bash, "--norc", "--noprofile", "-c", `curl() { printf '%s\0' "$@" >"$ARGS"; cat >"$STDIN"; }; `+cmd)
			run.Env = append(os.Environ(), "ARGS="+args, "STDIN="+in, "LC_ALL=C.UTF-8")
			if out, err := run.CombinedOutput(); err != nil {
				t.Fatalf("bash ran %q: %v %s", cmd, err, out)
			}
			a, _ := os.ReadFile(args)
			stdin, _ := os.ReadFile(in)
			wantIn, want := curlWords(r)
			if got := strings.Split(strings.TrimSuffix(string(a), "\x00"), "\x00"); !slices.Equal(got, want) || string(stdin) != wantIn {
				t.Errorf("bash passes\n%q with %q on standard input\nwant\n%q with %q\nfrom\n%s", got, stdin, want, wantIn, cmd)
			}
			for _, secret := range []string{"abcdef123456", "hunter2", "s3cr3t", "4242424242424242", ":pw@"} {
				if strings.Contains(cmd, secret) {
					t.Errorf("%s shown in\n%s", secret, cmd)
				}
			}
		})
	}
}

func printableLine(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0xfffd {
			return false
		}
	}
	return true
}

// FuzzCurl checks every generated command in process: it parses as bash
// reads it, into exactly the arguments (and the standard input) the
// request means, and prints as it is. (A shell per input explored about
// 1,400 inputs a minute.) Requests Go's client would refuse are never
// printed (the plan refuses them first), so they are skipped.
func FuzzCurl(f *testing.F) {
	f.Add("POST", "Authorization", "Bearer abc.def.ghi", "password=x&y='z'", "/v1/x?token=1")
	f.Add("POST", "X-Note", "it's \\ \"quoted\"\t", "{\"pass\":\"a'b\"}", "/a'b")
	f.Add("PUT", "Cookie", "a=b; token=c", "\x00\xff", "/%27")
	f.Add("patch", "X-Name", "a\u202eb\u2028", "\\0\x001\x1b[31m", "/v1/x?state=abc&ok=1")
	f.Fuzz(func(t *testing.T, method, name, value, body, path string) {
		r := &request{Method: method, URL: "http://127.0.0.1:8080" + path, Header: map[string][]string{}, Body: []byte(body)}
		if name != "" {
			r.Header[name] = []string{value}
		}
		if r.sendable() != nil {
			t.Skip()
		}
		checkCurl(t, r)
	})
}
