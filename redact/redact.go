// Package redact removes credentials from text before it reaches any
// output. It recognises them by name (a header, JSON key, query parameter
// or form field that names a credential) and by shape (bearer tokens,
// JWTs, card numbers that pass the Luhn check, passwords in URL userinfo
// and DSNs, well-known API key formats). It works on free text because log
// fields (messages, URLs, error strings, bodies) carry secrets in every
// shape; a whole JSON document is redacted by structure, byte for byte
// elsewhere, so that it stays valid JSON.
package redact

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
)

// Mask replaces every secret value.
const Mask = "[REDACTED]"

// A named value is a name, a separator and the value it introduces: a
// header line, a JSON or logfmt field. The regexps find the name and its
// separator only; the value's end is found by scanning, so that text with
// many separators is read once (a regexp that also matched the value
// would read the rest of the line again at every separator).
type named struct {
	re  *regexp.Regexp
	end func(s string, i int) int // where the value that starts at i ends
}

var (
	// "password": "x", the value running to its closing quote.
	quotedValue = named{regexp.MustCompile(`([A-Za-z0-9_.-]+)("\s*:\s*")`), quotedEnd}
	// The same inside a JSON string of a log line: {\"password\":\"x\"}.
	escapedValue = named{regexp.MustCompile(`([A-Za-z0-9_.-]+)(\\"\s*:\s*\\")`), escapedEnd}
	// password=x, Authorization: Bearer x, to the next delimiter.
	unquotedValue = named{regexp.MustCompile(`([A-Za-z0-9_.-]+)("?[ \t]*[:=][ \t]*"?)`), delimitedEnd}
	paramValue    = regexp.MustCompile(`([?&;\s]|^)([A-Za-z0-9_.-]+)=([^&\s"#]+)`)
)

func quotedEnd(s string, i int) int {
	for i < len(s) && s[i] != '"' && s[i] != '\r' && s[i] != '\n' {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		i++
	}
	return min(i, len(s))
}

// escapedEnd ends at \" (one backslash): \\\" is a quote escaped inside
// the inner string, \\ an escaped backslash.
func escapedEnd(s string, i int) int {
	for i < len(s) && s[i] != '"' && s[i] != '\r' && s[i] != '\n' {
		if s[i] == '\\' {
			switch {
			case strings.HasPrefix(s[i:], `\\\"`):
				i += 4
				continue
			case strings.HasPrefix(s[i:], `\\`):
				i += 2
				continue
			case strings.HasPrefix(s[i:], `\"`):
				return i
			}
		}
		i++
	}
	return min(i, len(s))
}

func delimitedEnd(s string, i int) int {
	if j := strings.IndexAny(s[i:], "\"\r\n,;}&"); j >= 0 {
		return i + j
	}
	return len(s)
}

// shape is a credential recognised by its form; it is tried only when
// the text holds one of its words (a bitmask over suspects).
type shape struct {
	re   *regexp.Regexp
	repl string
	need uint64
}

var shapes = []shape{
	// A password in URL userinfo, DSNs included (postgres://app:pw@db/shop).
	{regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)([^/\s:@"'<>]*):([^/\s@"'<>]+)@`), "$1$2:" + Mask + "@", words("://")},
	// Bearer and Basic credentials anywhere.
	{regexp.MustCompile(`(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{6,}`), "$1 " + Mask, words("bearer", "basic ")},
	// JWTs (header.payload.signature, the header base64url of `{"`).
	{regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*`), Mask, words("eyj")},
	// Well-known key shapes (Stripe, GitHub, AWS, Slack, Google).
	{regexp.MustCompile(`\b(sk|rk|pk)_(live|test)_[A-Za-z0-9]{8,}`), Mask, words("sk_", "rk_", "pk_")},
	{regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{20,}`), Mask, words("ghp_", "gho_", "ghu_", "ghs_", "ghr_")},
	{regexp.MustCompile(`\bAKIA[0-9A-Z]{16}\b`), Mask, words("akia")},
	{regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9-]{10,}`), Mask, words("xox")},
	{regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}\b`), Mask, words("aiza")},
}

// nameWords are the suspects a credential's name contains: only text
// that holds one goes through the name patterns.
var nameWords = words("auth", "cookie", "api-key", "api_key", "apikey", "access-key", "access_key", "accesskey",
	"private-key", "private_key", "privatekey", "bearer", "token", "pass", "pwd", "secret", "sig", "session", "credential",
	"jwt", "oidc", "cvc", "cvv", "code", "key=") | words(moreNames...)

// cardRun is a candidate card number: 13 to 19 digits, single spaces or
// dashes allowed between them, starting with a card network's digit (2-6:
// Mastercard, Amex, Visa, Discover) so that epoch times are left alone.
var cardRun = regexp.MustCompile(`\b[2-6](?:[ -]?[0-9]){12,18}\b`)

// String redacts s. Most text has no secret: a cheap scan for the words
// that introduce one skips the regexps, and picks the ones to run.
func String(s string) string {
	if s == "" {
		return s
	}
	found, digits := scan(s)
	if found == 0 && !digits {
		return s
	}
	if t := strings.TrimSpace(s); t != "" && (t[0] == '{' || t[0] == '[') {
		if out, ok := jsonDocument(s); ok {
			return out
		}
	}
	return text(s, found, digits)
}

// text redacts free text, given what scan found in it.
func text(s string, found uint64, digits bool) string {
	for _, p := range shapes {
		if found&p.need != 0 {
			s = p.re.ReplaceAllString(s, p.repl)
		}
	}
	if found&nameWords != 0 {
		s = replaceNamed(escapedValue, s)
		s = replaceNamed(quotedValue, s)
		s = replaceNamed(unquotedValue, s)
		s = paramValue.ReplaceAllStringFunc(s, func(m string) string {
			g := paramValue.FindStringSubmatch(m)
			if !IsSecretParam(g[2]) || (isURLOnly(g[2]) && g[1] != "?" && g[1] != "&" && g[1] != ";") {
				return m
			}
			return g[1] + g[2] + "=" + Mask
		})
	}
	if !digits || !cardStart(s) {
		return s
	}
	var uuids [][]int // looked for when a run passes Luhn: most never do
	looked := false
	var b strings.Builder
	pos := 0
	for _, m := range cardRun.FindAllStringIndex(s, -1) {
		if !luhn(s[m[0]:m[1]]) {
			continue
		}
		if !looked {
			uuids, looked = uuidPattern.FindAllStringIndex(s, -1), true
		}
		if insideUUID(uuids, m[0], m[1]) {
			continue
		}
		b.WriteString(s[pos:m[0]])
		b.WriteString(Mask)
		pos = m[1]
	}
	if pos == 0 {
		return s
	}
	b.WriteString(s[pos:])
	return b.String()
}

// uuidPattern is a UUID's grammar (RFC 9562: 8-4-4-4-12 hexadecimal
// digits). Digits that pass Luhn inside one are a UUID's, not a card's:
// about one random UUID in ten thousand starts with 16 decimal digits that
// do (12345678-1234-4567-…), and it is often the Idempotency-Key that
// names an intent.
var uuidPattern = regexp.MustCompile(`\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b`)

// insideUUID reports whether s[from:to] lies within one of the spans.
func insideUUID(spans [][]int, from, to int) bool {
	for _, u := range spans {
		if u[0] <= from && to <= u[1] {
			return true
		}
	}
	return false
}

// replaceNamed masks the values whose name is a credential's.
func replaceNamed(n named, s string) string {
	locs := n.re.FindAllStringSubmatchIndex(s, -1)
	var b strings.Builder
	pos := 0
	for _, loc := range locs {
		if loc[0] < pos || !IsSecretName(s[loc[2]:loc[3]]) {
			continue
		}
		start, end := loc[1], n.end(s, loc[1])
		if end == start || s[start:end] == Mask {
			continue
		}
		b.WriteString(s[pos:start])
		b.WriteString(Mask)
		pos = end
	}
	if pos == 0 {
		return s
	}
	b.WriteString(s[pos:])
	return b.String()
}

// cardStart reports whether cardRun matches in s, without running it: a
// 2-6 at a word boundary, then 12 to 18 more digits, a space or dash
// allowed before each, and a word boundary after the last. Ids like
// a693-4801-9820-224b or 2345-4678-9123-4567ab have the digits but not
// the boundaries.
func cardStart(s string) bool {
	for p := 0; p+13 <= len(s); p++ {
		if s[p] < '2' || s[p] > '6' || p > 0 && isWordByte(s[p-1]) {
			continue
		}
		n := 1
		for j := p + 1; j < len(s) && n < 19; j++ {
			c := s[j]
			if (c == ' ' || c == '-') && j+1 < len(s) {
				j++
				c = s[j]
			}
			if c < '0' || c > '9' {
				break
			}
			if n++; n >= 13 && (j+1 == len(s) || !isWordByte(s[j+1])) {
				return true
			}
		}
	}
	return false
}

// isWordByte is \b's word byte: an ASCII letter, digit or underscore.
func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// luhn reports whether the digits of s (separators ignored) are a card
// number: 13 to 19 digits whose Luhn checksum is 0.
func luhn(s string) bool {
	sum, n := 0, 0
	for i := len(s) - 1; i >= 0; i-- {
		c := s[i]
		if c == ' ' || c == '-' {
			continue
		}
		d := int(c - '0')
		if n%2 == 1 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		n++
	}
	return n >= 13 && n <= 19 && sum%10 == 0
}

// jsonDocument redacts a whole JSON document: the values of keys that name
// a credential (whatever they hold, objects and arrays included) become
// the mask, strings are redacted as text, card numbers are masked. Every
// other byte is kept, so the document keeps its layout and stays valid.
func jsonDocument(s string) (string, bool) {
	if !json.Valid([]byte(s)) {
		return s, false
	}
	type frame struct{ object, expectKey, secret bool }
	var (
		b         strings.Builder
		stack     []frame
		secretKey bool // the key just read names a credential
	)
	b.Grow(len(s))
	// A frame is secret when it or a container around it is the value
	// of a credential's key.
	inSecret := func() bool {
		return secretKey || (len(stack) > 0 && stack[len(stack)-1].secret)
	}
	top := func() *frame {
		if len(stack) == 0 {
			return nil
		}
		return &stack[len(stack)-1]
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			j++ // past the closing quote (the document is valid)
			tok := s[i:j]
			if f := top(); f != nil && f.object && f.expectKey {
				var k string
				_ = json.Unmarshal([]byte(tok), &k)
				secretKey = IsSecretName(k)
				b.WriteString(tok)
			} else {
				b.WriteString(jsonValue(tok, inSecret()))
				secretKey = false
			}
			i = j
		case c == '{' || c == '[':
			stack = append(stack, frame{object: c == '{', expectKey: c == '{', secret: inSecret()})
			secretKey = false
			b.WriteByte(c)
			i++
		case c == '}' || c == ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			b.WriteByte(c)
			i++
		case c == ':':
			if f := top(); f != nil {
				f.expectKey = false
			}
			b.WriteByte(c)
			i++
		case c == ',':
			if f := top(); f != nil && f.object {
				f.expectKey = true
			}
			b.WriteByte(c)
			i++
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			b.WriteByte(c)
			i++
		default: // a number, true, false or null
			j := i
			for j < len(s) && !strings.ContainsRune(",:]} \t\r\n", rune(s[j])) {
				j++
			}
			lit := s[i:j]
			switch {
			case lit == "null":
				b.WriteString(lit)
			case inSecret(), strings.Trim(lit, "0123456789") == "" && len(lit) >= 13 && lit[0] >= '2' && lit[0] <= '6' && luhn(lit):
				b.WriteString(`"` + Mask + `"`)
			default:
				b.WriteString(lit)
			}
			secretKey = false
			i = j
		}
	}
	return b.String(), true
}

// jsonValue redacts one JSON string token.
func jsonValue(tok string, secret bool) string {
	if secret {
		return `"` + Mask + `"`
	}
	var v string
	if json.Unmarshal([]byte(tok), &v) != nil {
		return tok
	}
	r := String(v)
	if r == v {
		return tok
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(r)
	return strings.TrimSuffix(b.String(), "\n")
}

// suspicious is a cheap test for what introduces a secret: a suspect word,
// or a run of digits as long as a card number. ("key" alone is not a
// suspect: every report says "key" for the Idempotency-Key.)
func suspicious(s string) bool {
	found, digits := scan(s)
	return found != 0 || digits
}

// scan reads s once and returns the suspects it holds, as a bitmask over
// suspects, and whether it has a card-length run of digits.
func scan(s string) (found uint64, digits bool) {
	i := 0
	// Two pairs at a time, most of which start no suspect. A pair in the
	// last two bytes starts none: every suspect has three bytes or more.
	for ; i+2 < len(s); i += 2 {
		a, b, c := uint16(s[i]), uint16(s[i+1]), uint16(s[i+2])
		if suspectPair[a|b<<8]|suspectPair[b|c<<8] != 0 {
			found |= suspectsAt(s, i) | suspectsAt(s, i+1)
		}
	}
	return found, hasDigitRun(s)
}

// suspectsAt returns the suspects that begin at s[i], as a bitmask.
func suspectsAt(s string, i int) (found uint64) {
	k := suspectPair[uint16(s[i])|uint16(s[i+1])<<8]
	if k == 0 || i+2 >= len(s) {
		return 0 // every suspect has three bytes or more
	}
	p := &pairs[k-1]
	if c := s[i+2]; p.third[c>>6]&(1<<(c&63)) == 0 {
		return 0
	}
	for _, w := range p.suspects {
		if len(s)-i >= len(suspects[w]) && hasPrefixFold(s[i:], suspects[w]) {
			found |= suspectBit(w)
		}
	}
	return found
}

// hasDigitRun reports whether s has 13 digits in a row, single spaces or
// dashes allowed between them. Such a run lies inside a stretch of at
// least 13 digits and separators, so where the 13th byte from a stretch's
// possible start is neither, no run starts before it: most text is read
// a byte in 13.
func hasDigitRun(s string) bool {
	// i is 0 or follows a byte that is neither a digit nor a separator.
	for i := 0; i+13 <= len(s); {
		if !digitOrSep[s[i+12]] {
			i += 13
			continue
		}
		j := i + 12
		for j > i && digitOrSep[s[j-1]] {
			j--
		}
		// s[j] starts a stretch: read it whole as the run's definition says.
		n, sep := 0, false
		for ; j < len(s) && digitOrSep[s[j]]; j++ {
			if c := s[j]; c >= '0' && c <= '9' {
				n++
				sep = false
				if n >= 13 {
					return true
				}
			} else if n > 0 && !sep {
				sep = true
			} else {
				n, sep = 0, false
			}
		}
		i = j + 1
	}
	return false
}

// suspects are the words every name and shape above contains.
var suspects = append([]string{"auth", "cookie", "api-key", "api_key", "apikey", "access-key", "access_key", "accesskey",
	"private-key", "private_key", "privatekey", "bearer", "basic ", "token", "pass", "pwd", "secret", "sig", "session",
	"credential", "jwt", "oidc", "cvc", "cvv", "code", "eyj", "://", "sk_", "rk_", "pk_", "ghp_", "gho_", "ghu_", "ghs_",
	"ghr_", "akia", "aiza", "xox", "key="}, moreNames...)

// moreNames are the suspects of the names that only the name patterns
// use (names.go): a short word is a suspect only before a separator, as
// in "pin": or pin=, since ping and mapping are everywhere (and 2fa in hex).
var moreNames = []string{"dpop", "hmac", "principal", "saml", "sessid", "onetime", "one_time", "one-time", "verifier",
	"otp", `pin"`, "pin=", "pin:", `pin\`, `mac"`, "mac=", "mac:", `mac\`, "mfa", `2fa"`, "2fa=", "2fa:", `2fa\`, "twofa",
	"iban", "ssn", "social", "national", "taxid", "tax_id", "tax-id", "passport", "personnummer", "aadhaar",
	"identity", "idcard", "id_card", "id-card", "nino", "cpf", "curp", "pesel", "dni",
	"ticket=", "state=", "sid=", "assertion"}

// suspectBit is a suspect's bit in a scan's bitmask. The suspects past
// the 63rd share the last bit: they are names', and the name patterns
// run for any of them.
func suspectBit(i int) uint64 { return 1 << min(i, 63) }

// words is the bitmask of the named suspects.
func words(ws ...string) uint64 {
	var m uint64
	for _, w := range ws {
		i := slices.Index(suspects, w)
		if i < 0 {
			panic("redact: " + w + " is not a suspect")
		}
		m |= suspectBit(i)
	}
	return m
}

// suspectPair numbers, from 1, each pair of bytes that begins a suspect
// (in either case, the first in the low byte); pairs holds, by that
// number, the third bytes that may follow and the suspects (their index)
// that begin so. scan reads its text once instead of once a word, with
// one look-up a byte and a branch that is seldom taken.
type pair struct {
	third    [4]uint64 // a bit a byte
	suspects []int
}

var (
	suspectPair, pairs = func() (index *[1 << 16]uint8, pairs []pair) {
		index = new([1 << 16]uint8)
		for i, w := range suspects {
			k := index[uint16(w[0])|uint16(w[1])<<8]
			if k == 0 {
				pairs = append(pairs, pair{})
				k = uint8(len(pairs))
				for _, a := range []byte{w[0], upper(w[0])} {
					for _, b := range []byte{w[1], upper(w[1])} {
						index[uint16(a)|uint16(b)<<8] = k
					}
				}
			}
			p := &pairs[k-1]
			p.suspects = append(p.suspects, i)
			for _, c := range []byte{w[2], upper(w[2])} {
				p.third[c>>6] |= 1 << (c & 63)
			}
		}
		return index, pairs
	}()
	digitOrSep = func() (t [256]bool) {
		for c := '0'; c <= '9'; c++ {
			t[c] = true
		}
		t[' '], t['-'] = true, true
		return t
	}()
)

func upper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

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
