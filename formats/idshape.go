package formats

import "strings"

// Where a format logs values by position and does not say what they are
// (nginx's combined line with quoted fields appended, HAProxy's captured
// headers without the config's capture order, a key appended to Envoy's
// default format), a value is taken for a request id or a key only when it
// has the exact shape of an id a machine generated. A forwarded-for list,
// a host name, a host:port, an address, a user agent, a number, a thread's
// or a router's name never is one, however it is laid out: reading them
// as ids merged unrelated requests into one delivery.

// generatedID reports whether v has the exact shape of a generated id:
//
//	c9b2decb-ebc7-4a9b-99d6-69712772ef41                     UUID (any version)
//	14fe277217966d99b9a47cbebced2b9c                         16 or more hex digits (nginx's $request_id)
//	01HF8Y3ZJ5Q0V5X0M7G3N2K4PB                               ULID
//	0ujtsYcgvSTl8PAuAdqWYSMnLOv                              KSUID
//	9m4e2mr0ui3e8a215n4g                                     xid
//	Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1       AWS X-Ray (and 1-5759e988-bd862e3fe1be46a994272793)
//	projects/p/traces/4bf92f3577b34da6a3ce929d0e0e4736        Google Cloud trace
//	00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01  W3C traceparent
//
// A value may be quoted as a structured-field string ("…").
func generatedID(v string) bool {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		v = v[1 : len(v)-1]
	}
	n := len(v)
	if strings.ContainsAny(v, " \t,") { // a list, a user agent, a sentence
		return false
	}
	switch {
	case n < 16 || n > 256:
		return false
	case n == 36 && v[8] == '-' && v[13] == '-' && v[18] == '-' && v[23] == '-':
		return hexRun(v[:8]) && hexRun(v[9:13]) && hexRun(v[14:18]) && hexRun(v[19:23]) && hexRun(v[24:])
	case n == 26 && isULID(v), n == 27 && isKSUID(v), n == 20 && isXID(v):
		return true
	case v[0] == 'R' || v[0] == '1' && v[1] == '-':
		return traceID(v) != "" || traceID("Root="+v) != ""
	case v[0] == 'p' || n == 55 && v[2] == '-':
		return traceID(v) != ""
	}
	return n <= 128 && hexRun(v) && strings.IndexFunc(v, isHexLetter) >= 0
}

// taggedID reports whether a bracketed tag before a message may be the
// request id a logger tags its lines with (chi's "[host/abc-000042]",
// Rails' log_tags "[5f8a2c1e-…]"): a word of one piece that carries a
// digit, as every id a machine makes does. A level ("[INFO]", "[warn]",
// "[ERROR]") or a logger's name ("[GIN]", "[api]") is a tag, not an id.
func taggedID(tag string) bool {
	if tag == "" || len(tag) > 128 || strings.ContainsAny(tag, " \t\"[]") || logLevel(tag) {
		return false
	}
	return strings.ContainsAny(tag, "0123456789")
}

// hexRun reports whether s is all hex digits, in one case.
func hexRun(s string) bool {
	lower, upper := false, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
		case c >= 'a' && c <= 'f':
			lower = true
		case c >= 'A' && c <= 'F':
			upper = true
		default:
			return false
		}
	}
	return s != "" && !(lower && upper)
}

func isHexLetter(r rune) bool { return r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F' }

// classes says which of digits, upper and lower case letters s holds.
func classes(s string) (digit, upper, lower bool) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lower = true
		}
	}
	return
}

// isULID: 26 characters of Crockford's base32 (no I, L, O, U), in one
// case, the first at most 7 (a 48-bit time), with digits and letters.
func isULID(s string) bool {
	if s[0] < '0' || s[0] > '7' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20 // lower case
		ok := c >= '0' && c <= '9' || c >= 'a' && c <= 'z' && c != 'i' && c != 'l' && c != 'o' && c != 'u'
		if !ok {
			return false
		}
	}
	d, u, l := classes(s)
	return d && u != l
}

// isKSUID: 27 characters of base62 with digits and letters of both cases
// (its 160 random and time bits leave none of them out in practice).
func isKSUID(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	d, u, l := classes(s)
	return d && u && l && s[0] <= 'a'
}

// isXID: 20 characters of base32hex in lower case (0-9, a-v), with
// digits and letters.
func isXID(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'v') {
			return false
		}
	}
	d, _, l := classes(s)
	return d && l
}
