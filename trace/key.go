package trace

import "strings"

// NormalizeKey removes the quotes of the structured-field string form of
// the Idempotency-Key header ("\"8e03…\"" → "8e03…").
func NormalizeKey(k string) string {
	k = strings.TrimSpace(k)
	if len(k) >= 2 && k[0] == '"' && k[len(k)-1] == '"' {
		k = k[1 : len(k)-1]
	}
	return k
}
