package redact

import "strings"

// normal reports whether a name is already as appendNormal writes it.
func normal(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if lower(c) != c || c == '-' || c == '_' || c == '.' || c == ' ' {
			return false
		}
	}
	return true
}

// appendNormal appends name lower-cased and without its separators, so
// that X-Api-Key, x_api_key and xApiKey compare alike. Callers convert the
// result where it does not escape, so that asking about a name allocates
// nothing: the readers ask of every header and field name of every line
// that logs them.
func appendNormal(b []byte, name string) []byte {
	for i := 0; i < len(name); i++ {
		c := lower(name[i])
		if c == '-' || c == '_' || c == '.' || c == ' ' {
			continue
		}
		b = append(b, c)
	}
	return b
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

// secretWords make any name that contains them a credential's, or a
// personal number's (an IBAN, a national identity or tax number, a
// passport's).
var secretWords = []string{"authorization", "authentication", "cookie", "password", "passwd", "passphrase", "secret",
	"credential", "signature", "apikey", "accesskey", "privatekey", "signingkey", "token", "session", "jwt", "oidc",
	"dpop", "hmac", "passcode", "bearer", "clientprincipal", "saml", "sessid", "onetime", "codeverifier",
	"iban", "socialsecurity", "nationalid", "nationalinsurance", "nationalnumber", "taxid", "passport", "personnummer",
	"aadhaar", "identitynumber", "identitycard", "idcardnumber"}

// secretNames are credentials' names too short or too common to search
// for inside other names.
// Each holds one of the scan's suspects (card numbers themselves are
// recognised by the Luhn check, whatever their name).
var secretNames = map[string]bool{"auth": true, "xauth": true, "pass": true, "pwd": true, "sig": true,
	"cvc": true, "cvv": true, "cvc2": true, "cvv2": true, "xaccesskey": true,
	"mfa": true, "2fa": true, "twofa": true, "nino": true, "cpf": true, "curp": true, "pesel": true, "dni": true,
	"pincode": true, "pinnumber": true, "pinblock": true}

// oneTimeCodes are what a name ending in "code" begins with when the code
// is a one-time or secret one: verification_code, mfa_code, sms_code…
// ("code" alone is an error code in a log, and a credential only in a URL.)
var oneTimeCodes = map[string]bool{"verification": true, "verify": true, "mfa": true, "2fa": true, "twofa": true,
	"twofactor": true, "sms": true, "security": true, "auth": true, "recovery": true, "backup": true, "login": true,
	"email": true, "totp": true, "otp": true, "confirmation": true, "access": true, "reset": true, "activation": true,
	"unlock": true}

// shortSecret reports names built on a short word that is a credential on
// its own or at an end, but not inside other words: a one-time password
// (otp, x-otp, totp, otp_code; not footprint), a PIN (pin, x-pin,
// card_pin; not ping), a MAC (mac, x-mac, hmac), a social security number
// (ssn, x-ssn, ssn_last4; not business_name).
func shortSecret(n string) bool {
	switch {
	case strings.HasPrefix(n, "otp"), strings.HasSuffix(n, "otp"),
		strings.HasSuffix(n, "pin"),
		strings.HasSuffix(n, "mac"),
		strings.HasPrefix(n, "ssn"), strings.HasSuffix(n, "ssn"):
		return true
	}
	if !strings.HasSuffix(n, "code") {
		return false
	}
	// X-Mfa-Code is a header's mfa_code.
	word := n[:len(n)-len("code")]
	return oneTimeCodes[word] || oneTimeCodes[strings.TrimPrefix(word, "x")]
}

// IsSecretName reports whether a field, JSON key or header name names a
// credential: one that contains authorization, authentication, cookie,
// password, secret, signature, token, session, credential, an API, access
// or private key, hmac, dpop, bearer…, or is one of the short names (pass,
// pwd, sig, cvc, otp, pin, mac…), or names a one-time code
// (verification_code, mfa_code…) or a personal number (iban, ssn,
// national_id, tax_id, passport…).
// Idempotency keys and request and trace ids are not secret.
func IsSecretName(name string) bool {
	if normal(name) {
		return secretName(name)
	}
	var buf [64]byte
	return secretName(string(appendNormal(buf[:0], name)))
}

// secretName is IsSecretName of a normalised name.
func secretName(n string) bool {
	if n == "" || notSecret(n) {
		return false
	}
	if secretNames[n] || shortSecret(n) {
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
// for signed, OAuth, SAML and CAS requests (code, sig, X-Amz-Signature,
// key, state, ticket, sid…).
func IsSecretParam(name string) bool {
	return IsSecretName(name) || isURLOnly(name)
}

// isURLOnly are parameter names that carry a credential in a URL but mean
// something else in a log field ("code" is an error code there).
func isURLOnly(name string) bool {
	var buf [64]byte
	switch string(appendNormal(buf[:0], name)) {
	case "code", "key", "xamzcredential", "xgoogcredential", "hash", "hmac",
		"state", "ticket", "sid", "assertion", "clientassertion", "oauthverifier":
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
	if normal(name) {
		return secretHeader(name)
	}
	var buf [64]byte
	return secretHeader(string(appendNormal(buf[:0], name)))
}

// secretHeader is IsSecretHeader of a normalised name.
func secretHeader(n string) bool {
	if n == "" || notSecret(n) {
		return false
	}
	if secretName(n) {
		return true
	}
	for _, suffix := range []string{"key", "secret", "signature", "sig", "session", "sessionid", "assertion", "auth", "principal"} {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	return false
}
