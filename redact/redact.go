// Package redact removes credentials from text before it reaches any
// output: Authorization and Cookie values, bearer tokens, API keys, and
// token/password query parameters. It works on free text because log
// fields (messages, URLs, error strings) carry secrets in every shape.
package redact

import (
	"net/http"
	"regexp"
	"strings"
)

// Mask replaces every secret value.
const Mask = "[REDACTED]"

var patterns = []struct {
	re   *regexp.Regexp
	repl string
}{
	// Header lines and JSON/logfmt fields named after credentials.
	{regexp.MustCompile(`(?i)((?:proxy-)?authorization|cookie|set-cookie|x-api-key|api[-_]?key|x-auth-token|private[-_]token|password|passwd|client[-_]secret|(?:access|refresh|id)[-_]token)("?\s*[:=]\s*"?)([^"\r\n,;}&]*)`), "$1$2" + Mask},
	// Bearer and Basic credentials anywhere.
	{regexp.MustCompile(`(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{6,}`), "$1 " + Mask},
	// Query parameters and form fields that carry secrets.
	{regexp.MustCompile(`(?i)([?&;\s]|^)((?:access_|refresh_|id_)?token|api_?key|apikey|password|passwd|secret|client_secret|sig|signature)=([^&\s"#]+)`), "$1$2=" + Mask},
	// Well-known key shapes (Stripe, GitHub, AWS, Slack).
	{regexp.MustCompile(`\b(sk|rk|pk)_(live|test)_[A-Za-z0-9]{8,}`), Mask},
	{regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{20,}`), Mask},
	{regexp.MustCompile(`\bAKIA[0-9A-Z]{16}\b`), Mask},
	{regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9-]{10,}`), Mask},
}

// String redacts s. Most text has no secret: a cheap test skips the regexps.
func String(s string) string {
	if s == "" || !suspicious(s) {
		return s
	}
	for _, p := range patterns {
		s = p.re.ReplaceAllString(s, p.repl)
	}
	return s
}

// suspicious is a cheap test for the words that introduce a secret; only
// text that has one goes through the regular expressions. ("key" alone is
// not one: every report says "key" for the Idempotency-Key.)
func suspicious(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		a := lowerTable[s[i]]
		if !suspectPair[a][lowerTable[s[i+1]]] {
			continue // most pairs of letters start no suspect
		}
		for _, w := range suspectsBy[a] {
			if len(s)-i >= len(w) && hasPrefixFold(s[i:], w) {
				return true
			}
		}
	}
	return false
}

var suspects = []string{"authorization", "cookie", "api-key", "api_key", "apikey", "bearer", "basic ", "token",
	"password", "passwd", "secret", "sig=", "signature", "sk_", "rk_", "pk_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "akia", "xox"}

// suspectsBy lists the suspects by their first byte, and suspectPair
// marks the first two bytes of each, so that suspicious reads its text
// once instead of once a word, and stops only where a suspect may begin.
var (
	suspectsBy = func() (t [256][]string) {
		for _, w := range suspects {
			t[w[0]] = append(t[w[0]], w)
		}
		return t
	}()
	suspectPair = func() (t [256][256]bool) {
		for _, w := range suspects {
			t[w[0]][w[1]] = true
		}
		return t
	}()
	lowerTable = func() (t [256]byte) {
		for i := range t {
			t[i] = lower(byte(i))
		}
		return t
	}()
)

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// hasPrefixFold reports whether s begins with the lower-case ASCII w, in
// any case.
func hasPrefixFold(s, w string) bool {
	for j := 0; j < len(w); j++ {
		if lower(s[j]) != w[j] {
			return false
		}
	}
	return true
}

// IsSecretHeader reports whether a header carries credentials and must
// not be shown or resent.
func IsSecretHeader(name string) bool {
	n := strings.ToLower(http.CanonicalHeaderKey(name))
	switch n {
	case "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key",
		"x-auth-token", "x-csrf-token", "x-xsrf-token", "private-token", "x-amz-security-token":
		return true
	}
	return strings.Contains(n, "api-key") || strings.Contains(n, "apikey") || strings.HasSuffix(n, "-token") ||
		strings.Contains(n, "secret") || strings.Contains(n, "password")
}
