package model

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
)

// HashKey is the normalised identifier idem's canonical schema logs instead
// of a raw key: "sha256:" and the first 16 hex digits of its SHA-256.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return "sha256:" + hex.EncodeToString(sum[:8])
}

// NormalizeKey removes the quotes of the structured-field string form of
// the Idempotency-Key header ("\"8e03…\"" → "8e03…").
func NormalizeKey(k string) string {
	k = strings.TrimSpace(k)
	if len(k) >= 2 && k[0] == '"' && k[len(k)-1] == '"' {
		k = k[1 : len(k)-1]
	}
	return k
}

// KeyQuery is a key as someone looking for its intent gives it: raw, in
// the header's quoted form, or as its hash (see HashKey).
type KeyQuery struct {
	// Key is the key as given, normalised.
	Key string
	// Forms are the keys an intent carrying it may have been stored
	// under: raw, or known only by hash ("hash:…"), either way round.
	Forms [4]string
	// ByHash says Key is a hash: an intent under a raw key whose hash it
	// is carries it too (the server logs sha256:…, the HAR the key).
	ByHash bool
}

// newKeyQuery makes the query for key.
func newKeyQuery(key string) *KeyQuery {
	key = NormalizeKey(key)
	hashed := HashKey(key)
	return &KeyQuery{Key: key, Forms: [4]string{key, "hash:" + key, hashed, "hash:" + hashed},
		ByHash: strings.HasPrefix(key, "sha256:")}
}

// Match reports whether an intent stored under key k carries q's key.
func (q *KeyQuery) Match(k string) bool {
	return slices.Contains(q.Forms[:], k) || q.ByHash && !strings.HasPrefix(k, "hash:") && HashKey(k) == q.Key
}

// retryKeyMakers are the client libraries that mint a key for their own
// retries when the caller gave none, and the prefix they name it with
// (stripe-node's `stripe-node-retry-UUID` for a POST it may retry; the
// Stainless-generated SDKs' `stainless-node-retry-UUID` and
// `stainless-python-retry-UUID` where the API declares an idempotency
// header). Only the library holds such a key, so a second send under it
// is the library's own.
var retryKeyMakers = []struct{ prefix, library string }{
	{"stripe-node-retry-", "Stripe's Node SDK"},
	{"stainless-node-retry-", "a Stainless-generated Node SDK"},
	{"stainless-python-retry-", "a Stainless-generated Python SDK"},
}

// KeyMaker names the client library that minted key for its own retries,
// or "" when no library's naming says so.
func KeyMaker(key string) string {
	for _, m := range retryKeyMakers {
		if len(key) > len(m.prefix) && strings.HasPrefix(key, m.prefix) {
			return m.library
		}
	}
	return ""
}
