package redact

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"
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
		// URL userinfo and DSNs.
		{"connect postgres://app:pw0rd@db/shop failed", "pw0rd"},
		{"http://user:hunter2@127.0.0.1:8080/v1", "hunter2"},
		{"mongodb+srv://svc:Zx9%40q@cluster0.example.net", "Zx9%40q"},
		// JWTs anywhere, card numbers by Luhn.
		{"id eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl seen", "eyJzdWIiOiIxIn0"},
		{"card 4242424242424242 declined", "4242424242424242"},
		{"card 4242 4242 4242 4242 declined", "4242 4242 4242"},
		{"card 4111-1111-1111-1111 declined", "4111-1111-1111-1111"},
		{"key 41111111-1111-4115-a111-111111111111 paid with 4242424242424242", "4242424242424242"},
		{"pan=5555-5555-5555-4444", "5555-5555-5555-4444"},
		// Query credentials of signed and OAuth URLs.
		{"/s3/obj?X-Amz-Signature=abcdef0123&X-Amz-Credential=AKIA%2F1", "abcdef0123"},
		{"/oauth/cb?code=4/0AbCdEf&state=xyz", "4/0AbCdEf"},
		{"/hook?sig=deadbeef01", "deadbeef01"},
		{"/maps?key=AIzaSyA1234567890abcdefghijklmnopqrstu", "AIzaSyA1234567890"},
		{"maps key AIzaSyA1234567890abcdefghijklmnopqrstuv here", "AIzaSyA1234567890"},
		// A name that is not one does not hide the next.
		{"error: password: hunter2", "hunter2"},
		{`msg="login failed" passwd=letmein`, "letmein"},
		// Escaped quotes do not end a quoted value early.
		{`user said {\"password\":\"ab\\\"cd\"} ok`, "cd"},
		// Form bodies.
		{"username=ann&password=p%40ss&remember=1", "p%40ss"},
		// Platform headers.
		{"X-Amzn-Oidc-Accesstoken: abc123token", "abc123token"},
		{"x-hub-signature-256: sha256=0a1b2c3d4e", "0a1b2c3d4e"},
		{"X-Session-Id: 7f7f7f7f", "7f7f7f7f"},
		// One-time codes, PINs and personal numbers, by their names.
		{"X-Otp: 918273", "918273"},
		{"pin=4821&amount=10", "4821"},
		{`{"pin":"4821"}`, "4821"},
		{`{"card_pin":4821}`, "4821"},
		{`{"verification_code":"551203"}`, "551203"},
		{`{"one_time_password":"551203"}`, "551203"},
		{`{"iban":"DE89370400440532013000"}`, "DE89370400440532013000"},
		{`{"payee":{"IBAN":"GB82WEST12345698765432"}}`, "GB82WEST12345698765432"},
		{`{"ssn":"078-05-1120"}`, "078-05-1120"},
		{`{"national_id":"AB123456C"}`, "AB123456C"},
		{`{"tax_id":"12-3456789"}`, "12-3456789"},
		{`{"passport_number":"X1234567"}`, "X1234567"},
		{`log said {"mfa_code":"551203"}`, "551203"},
		{"Dpop: dpop-proof-value", "dpop-proof-value"},
		{"X-Shopify-Hmac-Sha256: c2hvcGlmeQ==", "c2hvcGlmeQ"},
		{"/cb?SAMLResponse=PHNhbWxwOlJlc3BvbnNl&RelayState=x", "PHNhbWxwOlJlc3BvbnNl"},
		{"/cas?ticket=ST-1-abcdef", "ST-1-abcdef"},
		{"/cb?code=c&state=af0ifjsldkj", "af0ifjsldkj"},
		{"/x?sid=s3ss10n", "s3ss10n"},
	}
	for _, tt := range tests {
		got := String(tt.in)
		if strings.Contains(got, tt.secret) || !strings.Contains(got, Mask) {
			t.Errorf("String(%q) = %q", tt.in, got)
		}
	}
	for _, safe := range []string{
		"Key c0ffee00-1111 made 2 effects", "GET /v1/x?page=2", "idempotency key reserved", "basically fine",
		"Idempotency-Key: order-42", "X-Request-Id: idem-replay-0123", "key=order-42 status=201 code=E42",
		"at 1733045411123 ms", "order 1234567812345678 created", "https://shop.example.com/v1/orders",
		`{"error":{"code":"idempotency_key_in_use","message":"retry later"}}`, "request_id=req-51 session of 3",
		"state=completed status=201", `{"state":"in_progress","mapping":"a","shipping":"b","ping":"pong"}`,
		`{"footprint":"x","business_name":"ACME","spinner":1}`, "stopping and mapping: done", "error_code=E42",
		// UUIDs whose leading digits pass Luhn: a UUID's grammar, not a card's.
		"Key 41111111-1111-4115-a111-111111111111 made 2 effects", `{"idempotency_key":"41111111-1111-4115-a111-111111111111"}`,
		"intent abcdef01-2345-4abc-4567-890123456783", // its last two groups pass Luhn
	} {
		if got := String(safe); got != safe {
			t.Errorf("String(%q) changed it to %q", safe, got)
		}
	}
}

func TestJSONDocument(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{`{"token":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig","amount":4200}`, `{"token":"[REDACTED]","amount":4200}`},
		{`{"user":{"name":"ann","pass":"hunter2"},"sku":"A-1"}`, `{"user":{"name":"ann","pass":"[REDACTED]"},"sku":"A-1"}`},
		{`{"card":{"number":"4242424242424242","cvc":123,"exp":"12/30"}}`, `{"card":{"number":"[REDACTED]","cvc":"[REDACTED]","exp":"12/30"}}`},
		{`{"card":{"number":4242424242424242}}`, `{"card":{"number":"[REDACTED]"}}`},
		{`{"secret": {"a": [1, "b", null]}, "ok": true}`, `{"secret": {"a": ["[REDACTED]", "[REDACTED]", null]}, "ok": true}`},
		{"{\n  \"password\": \"x\\\"y\",\n  \"n\": 1\n}", "{\n  \"password\": \"[REDACTED]\",\n  \"n\": 1\n}"},
		{`[{"dsn":"postgres://app:pw@db/shop"}]`, `[{"dsn":"postgres://app:[REDACTED]@db/shop"}]`},
		{`{"idempotency_key":"order-42","request_id":"req-1","key":"k"}`, `{"idempotency_key":"order-42","request_id":"req-1","key":"k"}`},
		{`{"note":"a <b> & c","api_key":"zz"}`, `{"note":"a <b> & c","api_key":"[REDACTED]"}`},
	}
	for _, tt := range tests {
		got := String(tt.in)
		if got != tt.want {
			t.Errorf("String(%s)\n got %s\nwant %s", tt.in, got, tt.want)
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("String(%s) is not JSON: %s", tt.in, got)
		}
	}
}

func TestIsSecretHeader(t *testing.T) {
	for _, h := range []string{"Authorization", "proxy-authorization", "Cookie", "Set-Cookie", "X-Api-Key", "api-key",
		"X-Auth-Token", "X-Client-Secret", "X-Forwarded-Authorization", "Authentication", "Token", "X-Amzn-Oidc-Accesstoken",
		"X-Amzn-Oidc-Data", "X-Goog-Iap-Jwt-Assertion", "X-Access-Key", "X-Hub-Signature-256", "X-Signature", "Cookie2",
		"X-Auth", "X-Session-Id", "X-Csrf-Token", "X-Amz-Security-Token", "Private-Token", "X-Shopify-Hmac-Sha256-Signature",
		"Dpop", "X-Shopify-Hmac-Sha256", "X-Otp", "X-Pin", "X-Passcode", "X-Bearer", "X-Hmac", "X-Mac", "X-Ms-Client-Principal",
		"X-Ms-Client-Principal-Id", "X-Totp", "X-Mfa-Code", "X-Verification-Code", "X-Sms-Code"} {
		if !IsSecretHeader(h) {
			t.Errorf("%s is not treated as secret", h)
		}
	}
	for _, h := range []string{"Idempotency-Key", "X-Idempotency-Key", "I-Twilio-Idempotency-Token", "X-Request-Id",
		"Request-Id", "X-Correlation-Id", "X-Amzn-Trace-Id", "Traceparent", "Content-Type", "Accept", "User-Agent", "Keep-Alive",
		"X-Ping", "X-Shipping-Method", "X-Footprint", "X-Business-Name", "X-Error-Code", "X-State"} {
		if IsSecretHeader(h) {
			t.Errorf("%s is treated as secret", h)
		}
	}
}

func TestIsSecretParam(t *testing.T) {
	for _, p := range []string{"api_key", "apikey", "token", "access_token", "id_token", "code", "sig", "signature",
		"X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token", "password", "client_secret", "key", "auth"} {
		if !IsSecretParam(p) {
			t.Errorf("%s is not treated as secret", p)
		}
	}
	// OAuth's state, SAML's response, CAS's ticket, session ids, one-time
	// passwords and PINs travel in URLs too.
	for _, p := range []string{"state", "SAMLResponse", "SAMLart", "ticket", "sid", "otp", "pin", "code_verifier", "client_assertion",
		"oauth_verifier", "PHPSESSID", "jsessionid", "hmac"} {
		if !IsSecretParam(p) {
			t.Errorf("%s is not treated as secret", p)
		}
	}
	for _, p := range []string{"page", "sku", "idempotency_key", "request_id", "sort", "amount", "shipping", "mapping", "ping", "status"} {
		if IsSecretParam(p) {
			t.Errorf("%s is treated as secret", p)
		}
	}
}

func FuzzString(f *testing.F) {
	f.Add("Authorization: Bearer abc.def.ghi")
	f.Add("x?token=1&password=2")
	f.Add(`{"pass":"a\"b","card":4242424242424242}`)
	f.Fuzz(func(t *testing.T, s string) {
		// Redacting twice may mask a little more (two patterns can meet at
		// odd punctuation), but never brings anything back.
		out := String(s)
		twice := String(out)
		if len(strings.ReplaceAll(twice, Mask, "")) > len(strings.ReplaceAll(out, Mask, "")) {
			t.Fatalf("a second pass added text: %q -> %q -> %q", s, out, twice)
		}
		// A JSON object or array stays one (a bare number may be a card).
		if d := strings.TrimSpace(s); d != "" && (d[0] == '{' || d[0] == '[') && json.Valid([]byte(s)) && !json.Valid([]byte(out)) {
			t.Fatalf("JSON %q redacted to invalid %q", s, out)
		}
	})
}

var digitRunRef = regexp.MustCompile(`[0-9](?:[ -]?[0-9]){12}`)

// FuzzSuspicious checks the one-pass pre-check against searching the
// ASCII-lower-cased text for every suspect word and a card-length run:
// the same suspects found, so that the same patterns run.
func FuzzSuspicious(f *testing.F) {
	for _, s := range []string{"Authorization: Bearer x", "a TOKEN", "sk_live", "tok", "to", "xo", "", "ghp_1", "sig=abc",
		"4242 4242 4242 4242", "1-2-3-4-5-6-7-8-9-0-1-2-3", "12  3456789012345", "x1234567890123", "ab--1234567890123-",
		"a693-4801-9820-2241b45f549c6", "123456789012 3", "1 2 3 4 5 6 7 8 9 0 1 2 3", "SiG", "Basic x", "key=1", "EyJ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := []byte(s)
		for i, c := range b {
			b[i] = lower(c)
		}
		wantDigits := digitRunRef.MatchString(s)
		var wantFound uint64
		for i, w := range suspects {
			if strings.Contains(string(b), w) {
				wantFound |= suspectBit(i)
			}
		}
		if found, digits := scan(s); found != wantFound || digits != wantDigits {
			t.Fatalf("scan(%q) = %b, %v, want %b, %v", s, found, digits, wantFound, wantDigits)
		}
		if got, want := suspicious(s), wantFound != 0 || wantDigits; got != want {
			t.Fatalf("suspicious(%q) = %v, want %v", s, got, want)
		}
	})
}

// FuzzCardStart checks the pre-check against the card pattern: it lets
// through exactly the texts the pattern matches.
func FuzzCardStart(f *testing.F) {
	for _, s := range []string{"card 4242424242424242 declined", "a693-4801-9820-224b45f549c6", "x-4242-4242-4242-4242",
		"4242 4242 4242 4242", "1234567890123", "_5555555555554444", "5555--5555-5555-4444", "6 1 1 1 1 1 1 1 1 1 1 1 1 -", "6d9f1c3a-2345-4678-9123-456789abcdef", "2345-4678-9123-4x",
		"42424242424242424242", "x 4242424242424242424 y", "3-3-3-3-3-3-3-3-3-3-3-3-3-3-3-3-3-3-3-3_"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := cardStart(s), cardRun.MatchString(s); got != want {
			t.Fatalf("cardStart(%q) = %v, want %v (%q)", s, got, want, cardRun.FindString(s))
		}
	})
}

func TestCardStart(t *testing.T) {
	for s, want := range map[string]bool{"card 4242424242424242 declined": true, "4242 4242 4242 4242": true, "-5555-5555-5555-4444": true,
		"a693-4801-9820-224b45f549c6": false, "1234567890123": false, "x4242424242424242": false, "424242424242": false,
		"4242--4242-4242-4242": false, "_4242424242424242": false,
		"6d9f1c3a-2345-4678-9123-456789abcdef": false, "2345-4678-9123-4x": false, "2345-4678-9123-4 x": true, "42424242424242424242": false, "4242424242424242424": true} {
		if got := cardStart(s); got != want {
			t.Errorf("cardStart(%q) = %v, want %v", s, got, want)
		}
	}
}

// Hostile text is read in linear time: many separators on one line, and
// deep JSON with many values.
func TestLinearTime(t *testing.T) {
	inputs := map[string]string{
		// 8,000 pairs took 14 s when every separator re-read the line.
		"separators": "token " + strings.Repeat("a: b= ", 8000),
		"names":      strings.Repeat("password: x, ", 10000),
		"deep JSON":  `{"secret":` + strings.Repeat("[", 5000) + strings.Repeat("1,", 50000) + "1" + strings.Repeat("]", 5000) + "}",
		"escapes":    `{\"pass\":\"` + strings.Repeat(`\\`, 100000) + `\"}`,
	}
	for name, in := range inputs {
		start := time.Now()
		out := String(in)
		limit := 2 * time.Second
		if raceEnabled {
			limit = 40 * time.Second
		}
		t.Logf("%s: %s", name, time.Since(start))
		if d := time.Since(start); d > limit {
			t.Errorf("%s: %d bytes took %s", name, len(in), d)
		}
		if name == "names" && strings.Contains(out, " x,") {
			t.Errorf("%s: a value is left", name)
		}
	}
}

// TestSecretNamesAllocateNothing: the readers ask of every header and
// field name of every line, so a name of a usual length is judged without
// an allocation, whatever its case and separators.
func TestSecretNamesAllocateNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	for _, n := range []string{"X-Amz-Signature", "user_id", "password", "X-Request-Id", "Idempotency-Key", "sessionToken"} {
		if a := testing.AllocsPerRun(50, func() { _ = IsSecretName(n); _ = IsSecretHeader(n); _ = IsSecretParam(n) }); a != 0 {
			t.Errorf("%s: %v allocations, want 0", n, a)
		}
	}
}
