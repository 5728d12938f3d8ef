package cmd

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// credential is one captured credential: a header or a query parameter,
// its value as captured, and the part of it that must never be printed
// (the whole value unless the value's shape is what makes it secret).
type credential struct {
	query        bool
	name, value  string
	secret       string
	rawURLEscape bool // the value goes into the URL escaped
}

func (c credential) shown() string {
	if c.secret != "" {
		return c.secret
	}
	return c.value
}

const (
	testJWT  = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1LTQyIn0.c2lnLWp3dC0xMjM0NTY"
	testJWT2 = "eyJhbGciOiJSUzI1NiJ9.eyJpdGVtIjoicGxhaWQifQ.cGxhaWQtc2lnLTk4NzY1"
)

// credentials are the headers and query parameters idem recognises as
// credentials, by name or by value: what no replay may resend without
// --keep-auth, and no output may print.
func credentials() []credential {
	var cs []credential
	byName := []string{
		"Authorization", "Proxy-Authorization", "Cookie", "Cookie2", "X-Api-Key", "Api-Key", "Apikey", "X-Api-Token",
		"X-Auth-Token", "X-Access-Token", "X-Refresh-Token", "X-Id-Token", "X-Csrf-Token", "X-Xsrf-Token", "X-Csrftoken",
		"X-Session-Id", "X-Session-Token", "Session", "X-Amz-Security-Token", "X-Amzn-Oidc-Accesstoken", "X-Amzn-Oidc-Data",
		"X-Amzn-Oidc-Identity", "X-Goog-Iap-Jwt-Assertion", "X-Goog-Api-Key", "X-Forwarded-Authorization",
		"X-Original-Authorization", "X-Hub-Signature", "X-Hub-Signature-256", "X-Signature", "Stripe-Signature",
		"X-Slack-Signature", "X-Twilio-Signature", "X-Shopify-Hmac-Sha256", "X-Line-Signature",
		"X-Square-Hmacsha256-Signature", "X-Hook-Secret", "X-Webhook-Secret", "X-Client-Secret", "Client-Secret",
		"X-Password", "Password", "X-Passcode", "X-Pin", "X-Otp", "X-Totp", "X-Mfa-Code", "X-Verification-Code",
		"X-Sms-Code", "X-Auth", "X-Authentication", "Authentication", "X-Bearer", "Dpop", "X-Hmac", "X-Mac",
		"X-Ms-Client-Principal", "X-Ms-Client-Principal-Id", "X-Ms-Token-Aad-Access-Token", "X-Ms-Token-Aad-Id-Token",
		"X-Ms-Token-Aad-Refresh-Token", "X-Jwt", "X-Jwt-Assertion", "X-Private-Key", "X-Secret", "X-Access-Key",
		"X-Vault-Token", "X-Consul-Token", "X-Nomad-Token", "Private-Token", "Ocp-Apim-Subscription-Key",
		"X-Functions-Key", "X-Plex-Token", "X-Figma-Token", "X-Shopify-Access-Token", "X-Auth-Key", "X-Sig", "Signature",
		"X-Signing-Key", "X-Oauth-Token", "X-Saml-Assertion", "X-Client-Assertion", "X-Credentials", "X-Access-Secret",
		"X-Gitlab-Token", "X-Github-Token", "X-Iban", "X-Ssn", "X-One-Time-Code", "X-Dpop-Proof",
	}
	for i, name := range byName {
		cs = append(cs, credential{name: name, value: fmt.Sprintf("hv%03dQz7c", i)})
	}
	// Recognised by their value, whatever their name.
	cs = append(cs,
		credential{name: "X-User", value: testJWT, secret: "c2lnLWp3dC0xMjM0NTY"},
		credential{name: "X-Plaid-Verification", value: testJWT2, secret: "cGxhaWQtc2lnLTk4NzY1"},
		credential{name: "X-Forwarded-User", value: "Bearer fwdb3arerT0ken", secret: "fwdb3arerT0ken"},
		credential{name: "X-Upstream", value: "postgres://app:pgPassw0rd9@db/shop", secret: "pgPassw0rd9"},
		credential{name: "Referer", value: "https://shop.example.com/cb?token=refT0kenValue", secret: "refT0kenValue"},
		credential{name: "X-Debug", value: "sk_live_51HxAbCdEfGhIjKlMn", secret: "51HxAbCdEfGhIjKlMn"},
		credential{name: "X-Github", value: "ghp_aaaabbbbccccddddeeeeffff1111", secret: "aaaabbbbccccddddeeeeffff1111"},
		credential{name: "X-Aws", value: "AKIAIOSFODNN7EXAMPLE", secret: "IOSFODNN7EXAMPLE"},
		credential{name: "X-Slack", value: "xoxb-1234567890-slackToken", secret: "slackToken"},
		credential{name: "X-Maps", value: "AIzaSyA1234567890abcdefghijklmnopqrstuv", secret: "SyA1234567890abcdefghij"},
		credential{name: "X-Card", value: "4242424242424242"},
		credential{name: "X-Note", value: "password=hunterTwo22", secret: "hunterTwo22"},
		credential{name: "X-Context", value: `{"token":"ctxT0kenVal"}`, secret: "ctxT0kenVal"},
		credential{name: "X-Identity", value: "Basic dXNlcjpwYXNzd29yZA==", secret: "dXNlcjpwYXNzd29yZA"},
	)
	params := []string{
		"api_key", "apikey", "key", "token", "access_token", "refresh_token", "id_token", "code", "sig", "signature",
		"X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token", "X-Goog-Signature", "X-Goog-Credential", "password",
		"passwd", "pwd", "secret", "client_secret", "session", "sessionid", "jsessionid", "PHPSESSID", "sid", "auth",
		"auth_token", "hash", "hmac", "SAMLResponse", "SAMLart", "ticket", "otp", "pin", "state", "code_verifier",
		"oauth_token", "oauth_verifier", "oauth_signature", "client_assertion", "jwt", "private_key", "credential",
		"AWSAccessKeyId", "Signature", "passcode", "mfa_code", "verification_code",
	}
	for i, name := range params {
		cs = append(cs, credential{query: true, name: name, value: fmt.Sprintf("qv%03dKp4w", i)})
	}
	cs = append(cs,
		credential{query: true, name: "data", value: testJWT, secret: "c2lnLWp3dC0xMjM0NTY"},
		credential{query: true, name: "next", value: "https://a.example/cb?token=nextT0kenVal", secret: "nextT0kenVal", rawURLEscape: true},
		credential{query: true, name: "redirect", value: "https://ops:redirPassw0rd@a.example/", secret: "redirPassw0rd", rawURLEscape: true},
		credential{query: true, name: "card", value: "5555555555554444"},
	)
	return cs
}

// kept are captured headers and parameters that carry no credential: a
// replay resends them.
var (
	keptHeaders = map[string]string{"Accept": "application/json", "X-Correlation-Id": "corr-77", "X-Ping": "pong",
		"X-Shipping-Method": "express", "X-State": "open", "User-Agent": "shop-client/1.0"}
	keptQuery = "page=2&sku=A-1&shipping=fast&mapping=1"
)

// secretBody is a body with one-time codes, a PIN, an IBAN, national
// identity numbers and a card: it is resent as it is, and printed masked.
const secretBody = `{"sku":"A-1","otp":"918273","pin":"4821","iban":"DE89370400440532013000","ssn":"078-05-1120",` +
	`"national_id":"AB123456C","tax_id":"12-3456789","passport_number":"X1234567","verification_code":"551203",` +
	`"card":{"number":"4111111111111111","cvc":"737"}}`

// bodySecrets are what of secretBody must never be printed, in every
// spelling an output uses (as it is, in JSON, in XML). The PIN and the CVC
// are sought beside their names: "737" alone also turns up in a port.
var bodySecrets = spellings("918273", `"pin":"4821"`, "DE89370400440532013000", "078-05-1120", "AB123456C", "12-3456789",
	"X1234567", "551203", "4111111111111111", `"cvc":"737"`)

func spellings(secrets ...string) []string {
	var all []string
	for _, s := range secrets {
		j, _ := json.Marshal(s)
		all = append(all, s, string(j[1:len(j)-1]), html.EscapeString(s), strings.ReplaceAll(s, `"`, "&quot;"))
	}
	return all
}

// writeCredentialsHAR writes one captured POST that carries every
// credential, and its 201 answer.
func writeCredentialsHAR(t *testing.T, cs []credential) string {
	t.Helper()
	type nv struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	headers := []nv{{"Content-Type", "application/json"}, {"Idempotency-Key", "cred-key-1"}, {"X-Request-Id", "cred-rid-1"}}
	for name, v := range keptHeaders {
		headers = append(headers, nv{name, v})
	}
	query := []string{keptQuery}
	for _, c := range cs {
		switch {
		case !c.query:
			headers = append(headers, nv{c.name, c.value})
		case c.rawURLEscape:
			query = append(query, c.name+"="+url.QueryEscape(c.value))
		default:
			query = append(query, c.name+"="+c.value)
		}
	}
	har := map[string]any{"log": map[string]any{"version": "1.2", "creator": map[string]string{"name": "test", "version": "1"},
		"entries": []any{map[string]any{
			"startedDateTime": "2026-11-30T09:14:02.105Z", "time": 12.5,
			"request": map[string]any{"method": "POST", "url": "https://shop.example.com/v1/orders?" + strings.Join(query, "&"),
				"httpVersion": "HTTP/1.1", "headers": headers, "queryString": []any{}, "cookies": []any{},
				"postData": map[string]string{"mimeType": "application/json", "text": secretBody}, "headersSize": -1, "bodySize": len(secretBody)},
			"response": map[string]any{"status": 201, "statusText": "Created", "httpVersion": "HTTP/1.1", "cookies": []any{},
				"headers": []nv{{"Content-Type", "application/json"}}, "redirectURL": "", "headersSize": -1, "bodySize": 32,
				"content": map[string]any{"size": 32, "mimeType": "application/json", "text": `{"id":"ord_C1","status":"created"}`}},
			"cache": map[string]any{}, "timings": map[string]float64{"send": 0, "wait": 12, "receive": 0.5},
		}}}}
	b, err := json.Marshal(har)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "credentials.har")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// arrival is what a request brought to the test server.
type arrival struct {
	header http.Header
	query  url.Values
	raw    string // the request line's target, as sent
	body   string
}

// recordingServer answers like a correct server replaying the order, and
// records every request as it arrived.
func recordingServer(t *testing.T) (*httptest.Server, func() []arrival) {
	var mu sync.Mutex
	var got []arrival
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, arrival{header: r.Header.Clone(), query: r.URL.Query(), raw: r.RequestURI, body: string(b)})
		mu.Unlock()
		w.Header().Set("Idempotent-Replayed", "true")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		w.Write([]byte(`{"id":"ord_C1","status":"created"}`))
	}))
	t.Cleanup(srv.Close)
	return srv, func() []arrival {
		mu.Lock()
		defer mu.Unlock()
		return append([]arrival(nil), got...)
	}
}

// TestReplayNeverResendsOrPrintsCredentials: every credential idem
// recognises, by its name or by its value, is not resent without
// --keep-auth and is resent with it, and is printed by no output format
// either way (text, Markdown, JSON, JUnit, --dry-run and its curl, and
// standard error). The body is resent as it is and printed with its
// one-time codes, PIN, IBAN, national numbers and card masked.
func TestReplayNeverResendsOrPrintsCredentials(t *testing.T) {
	cs := credentials()
	if len(cs) < 150 {
		t.Fatalf("only %d credentials", len(cs))
	}
	har := writeCredentialsHAR(t, cs)
	for _, keepAuth := range []bool{false, true} {
		t.Run(fmt.Sprintf("keep-auth=%v", keepAuth), func(t *testing.T) {
			srv, arrivals := recordingServer(t)
			dir := t.TempDir()
			var printed strings.Builder
			for _, format := range []string{"text", "markdown", "json"} {
				junit := filepath.Join(dir, format+".xml")
				args := []string{"replay", "--key", "cred-key-1", "--target", srv.URL, "--yes", "-o", format, "--junit", junit, har}
				if keepAuth {
					args = append(args, "--keep-auth")
				}
				code, out, errOut := runTTY(t, "", false, args...)
				if code != 0 {
					t.Fatalf("-o %s: exit %d\n%s%s", format, code, out, errOut)
				}
				x, _ := os.ReadFile(junit)
				fmt.Fprintf(&printed, "%s\n%s\n%s\n", out, errOut, x)
			}
			args := []string{"replay", "--key", "cred-key-1", "--target", srv.URL, "--dry-run", har}
			if keepAuth {
				args = append(args, "--keep-auth")
			}
			code, out, errOut := runTTY(t, "", false, args...)
			if code != 0 || !strings.Contains(out, "curl -sS") {
				t.Fatalf("--dry-run: exit %d\n%s%s", code, out, errOut)
			}
			printed.WriteString(out + errOut)
			if !keepAuth && !strings.Contains(out, "not resent from the capture: ") {
				t.Errorf("--dry-run does not name what it does not resend:\n%s", out)
			}
			sent := arrivals()
			if len(sent) != 3 {
				t.Fatalf("%d requests arrived, want 3", len(sent))
			}
			for _, c := range cs {
				what := "header " + c.name
				if c.query {
					what = "parameter " + c.name
				}
				if strings.Contains(printed.String(), c.shown()) {
					t.Errorf("%s: %q was printed", what, c.shown())
				}
				for _, a := range sent {
					var got string
					var present bool
					if c.query {
						got, present = a.query.Get(c.name), a.query.Has(c.name)
					} else {
						got, present = a.header.Get(c.name), len(a.header.Values(c.name)) > 0
					}
					switch {
					case keepAuth && got != c.value:
						t.Errorf("%s: --keep-auth sent %q, want %q", what, got, c.value)
					case !keepAuth && present:
						t.Errorf("%s: resent without --keep-auth (%q)", what, got)
					case !keepAuth && strings.Contains(a.raw+fmt.Sprint(a.header), c.shown()):
						t.Errorf("%s: its value arrived without --keep-auth", what)
					}
				}
				if !keepAuth && !strings.Contains(out, c.name) {
					t.Errorf("%s is not named among what was not resent", what)
				}
			}
			for _, a := range sent {
				for name, v := range keptHeaders {
					if a.header.Get(name) != v {
						t.Errorf("%s was not resent: %q", name, a.header.Get(name))
					}
				}
				for _, p := range strings.Split(keptQuery, "&") {
					name, v, _ := strings.Cut(p, "=")
					if a.query.Get(name) != v {
						t.Errorf("parameter %s was not resent: %v", name, a.query)
					}
				}
				if a.body != secretBody || a.header.Get("Idempotency-Key") != "cred-key-1" {
					t.Errorf("the body or the key changed: %q %q", a.body, a.header.Get("Idempotency-Key"))
				}
			}
			for _, s := range bodySecrets {
				if strings.Contains(printed.String(), s) {
					t.Errorf("the body's %q was printed", s)
				}
			}
		})
	}
}

// TestReplayUnsendableRequestIsAnInputError: a captured header holding a
// line break cannot be sent (the HTTP client refuses it, and nothing
// reaches the target); that is a fact about the input, exit 2 with the
// header named, never "the replay contract is broken". --header replaces
// it, and the replay goes.
func TestReplayUnsendableRequestIsAnInputError(t *testing.T) {
	srv, arrivals := recordingServer(t)
	har := writeCredentialsHAR(t, []credential{{name: "X-Trace", value: "a\r\nInjected: 1"}})
	for _, args := range [][]string{
		{"--yes"}, {"--yes", "-o", "json"}, {"--dry-run"},
	} {
		code, out, errOut := runTTY(t, "", false, append([]string{"replay", "--key", "cred-key-1", "--target", srv.URL, har}, args...)...)
		if code != exitError || !strings.Contains(errOut, "X-Trace") || !strings.Contains(errOut, "line break") ||
			strings.Contains(out+errOut, "broken") || strings.Contains(out, "FAIL") {
			t.Errorf("%v: exit %d\n%s%s", args, code, out, errOut)
		}
	}
	if n := len(arrivals()); n != 0 {
		t.Fatalf("%d requests arrived", n)
	}
	code, out, errOut := runTTY(t, "", false, "replay", "--key", "cred-key-1", "--target", srv.URL, "--yes", "--header", "X-Trace: clean", har)
	if got := arrivals(); code != 0 || len(got) != 1 || got[0].header.Get("X-Trace") != "clean" {
		t.Errorf("--header X-Trace: exit %d\n%s%s", code, out, errOut)
	}
}
