package redact

import "strings"

// normalize lower-cases a name and drops its separators, so that
// X-Api-Key, x_api_key and xApiKey compare alike.
func normalize(name string) string {
	var b strings.Builder
	b.Grow(len(name))
	for i := 0; i < len(name); i++ {
		c := lower(name[i])
		if c == '-' || c == '_' || c == '.' || c == ' ' {
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// notSecret are names that look like credentials but identify a request,
// a key or a trace, which reports and replays need.
func notSecret(n string) bool {
	switch n {
	case "requestid", "xrequestid", "correlationid", "xcorrelationid", "traceid", "xamzntraceid", "traceparent",
		"tracestate", "spanid", "tokentype", "secwebsocketkey", "keepalive":
		return true
	}
	return strings.Contains(n, "idempotency")
}

// secretWords make any name that contains them a credential's.
var secretWords = []string{"authorization", "authentication", "cookie", "password", "passwd", "passphrase", "secret",
	"credential", "signature", "apikey", "accesskey", "privatekey", "signingkey", "token", "session", "jwt", "oidc"}

// secretNames are credentials' names too short or too common to search
// for inside other names.
// Each holds one of the scan's suspects (card numbers themselves are
// recognised by the Luhn check, whatever their name).
var secretNames = map[string]bool{"auth": true, "xauth": true, "pass": true, "pwd": true, "sig": true,
	"cvc": true, "cvv": true, "cvc2": true, "cvv2": true, "xaccesskey": true}

// IsSecretName reports whether a field, JSON key or header name names a
// credential: one that contains authorization, authentication, cookie,
// password, secret, signature, token, session, credential, an API, access
// or private key…, or is one of the short names (pass, pwd, sig, cvc…).
// Idempotency keys and request and trace ids are not secret.
func IsSecretName(name string) bool {
	n := normalize(name)
	if n == "" || notSecret(n) {
		return false
	}
	if secretNames[n] {
		return true
	}
	for _, w := range secretWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return strings.HasSuffix(n, "auth") && len(n) <= 6
}

// IsSecretParam reports whether a URL query parameter or form field
// carries a credential: a secret name, or one of the names that URLs use
// for signed and OAuth requests (code, sig, X-Amz-Signature, key…).
func IsSecretParam(name string) bool {
	return IsSecretName(name) || isURLOnly(name)
}

// isURLOnly are parameter names that carry a credential in a URL but mean
// something else in a log field ("code" is an error code there).
func isURLOnly(name string) bool {
	switch normalize(name) {
	case "code", "key", "xamzcredential", "xgoogcredential", "hash", "hmac":
		return true
	}
	return false
}

// IsSecretHeader reports whether a header carries credentials and must not
// be shown or resent: Authorization and Cookie and every platform variant
// (X-Forwarded-Authorization, X-Amzn-Oidc-*, X-Goog-Iap-Jwt-Assertion,
// X-Hub-Signature-256, Cookie2, X-Session-Id…), any name ending in token,
// key, secret, signature or session. Idempotency-Key and the request and
// trace id headers are not.
func IsSecretHeader(name string) bool {
	n := normalize(name)
	if n == "" || notSecret(n) {
		return false
	}
	if IsSecretName(name) {
		return true
	}
	for _, suffix := range []string{"key", "secret", "signature", "sig", "session", "sessionid", "assertion", "auth"} {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	return false
}
