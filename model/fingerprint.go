package model

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"

	"github.com/tidwall/gjson"
)

// Fingerprint identifies a payload: "sha256:" and the hex SHA-256 of its
// canonical JSON (object keys sorted, no insignificant whitespace), so two
// bodies that differ only in key order or spacing have one fingerprint. A
// body that is not JSON is hashed as it is.
func Fingerprint(body []byte) string {
	if !gjson.ValidBytes(body) {
		return hashHex(body)
	}
	var b bytes.Buffer
	canonical(&b, gjson.ParseBytes(body), 0)
	return hashHex(b.Bytes())
}

// FingerprintValue fingerprints a logged body: a JSON value, or a string
// holding a JSON document.
func FingerprintValue(v gjson.Result) string {
	if v.Type == gjson.String {
		return Fingerprint([]byte(v.Str))
	}
	return Fingerprint([]byte(v.Raw))
}

func hashHex(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// maxDepth bounds recursion on hostile, deeply nested documents; deeper
// levels are hashed as written.
const maxDepth = 64

// canonicalJSON writes v with sorted object keys and no whitespace.
func canonicalJSON(v gjson.Result) []byte {
	var b bytes.Buffer
	canonical(&b, v, 0)
	return b.Bytes()
}

func canonical(b *bytes.Buffer, v gjson.Result, depth int) {
	if depth > maxDepth {
		b.WriteString(v.Raw)
		return
	}
	switch {
	case v.IsObject():
		type kv struct {
			k string
			v gjson.Result
		}
		var members []kv
		v.ForEach(func(k, val gjson.Result) bool {
			members = append(members, kv{k.Str, val})
			return true
		})
		sort.SliceStable(members, func(i, j int) bool { return members[i].k < members[j].k })
		b.WriteByte('{')
		for i, m := range members {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, m.k)
			b.WriteByte(':')
			canonical(b, m.v, depth+1)
		}
		b.WriteByte('}')
	case v.IsArray():
		b.WriteByte('[')
		i := 0
		v.ForEach(func(_, val gjson.Result) bool {
			if i > 0 {
				b.WriteByte(',')
			}
			i++
			canonical(b, val, depth+1)
			return true
		})
		b.WriteByte(']')
	case v.Type == gjson.String:
		writeString(b, v.Str)
	default:
		b.WriteString(v.Raw)
	}
}

func writeString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)       // a string always encodes
	b.Truncate(b.Len() - 1) // Encode appends a newline
}
