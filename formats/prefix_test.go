package formats_test

import (
	"testing"
	"time"

	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/model"
)

// TestDefaultPrefixesPeeled: a message of key=value pairs after a
// logging library's default prefix is read, with the prefix's time where
// it holds the date; a line the prefix does not begin, or whose words
// do not end where its pairs begin, is left to the formats after.
func TestDefaultPrefixesPeeled(t *testing.T) {
	at := func(s string) time.Time { tm, _ := model.ParseTime(s); return tm }
	for _, tc := range []struct {
		name, line string
		format     string
		key, res   string
		effect     bool
		time       time.Time
	}{
		{"python basicConfig", "INFO:orders:order created order_id=ord_1 idempotency_key=k-1", "logfmt", "k-1", "ord_1", true, time.Time{}},
		{"python asctime", "2026-12-08 10:00:00,123 - orders - INFO - order created order_id=ord_1 idempotency_key=k-1", "logfmt", "k-1", "ord_1", true, at("2026-12-08T10:00:00.123Z")},
		{"logback default", "12:00:01.234 [main] INFO  c.e.Orders - order created order_id=ord_1 idempotency_key=k-1", "logfmt", "k-1", "ord_1", true, time.Time{}},
		{"spring boot", "2026-12-08T10:00:00.123Z  INFO 1234 --- [main] c.e.Orders               : order created order_id=ord_1 idempotency_key=k-1", "logfmt", "k-1", "ord_1", true, at("2026-12-08T10:00:00.123Z")},
		{"ruby logger", "I, [2026-12-08T10:00:00.123456 #1234]  INFO -- : order created order_id=ord_1 idempotency_key=k-1", "logfmt", "k-1", "ord_1", true, at("2026-12-08T10:00:00.123456Z")},
		{"go log", "2026/12/08 10:00:00 order created order_id=ord_1 idempotency_key=k-1", "logfmt", "k-1", "ord_1", true, at("2026-12-08T10:00:00Z")},
		{"go log with a prefix", "orders: 2026/12/08 10:00:00 replaying stored response order_id=ord_1 idempotency_key=k-1", "logfmt", "k-1", "ord_1", false, at("2026-12-08T10:00:00Z")},
		// Must not: the request lines the formats after read.
		{"urllib3 through basicConfig", `DEBUG:urllib3.connectionpool:http://127.0.0.1:8080 "POST /v1/orders HTTP/1.1" 201 14`, "requestline", "", "", false, time.Time{}},
		{"uvicorn's access line", `INFO:     127.0.0.1:52000 - "POST /v1/orders HTTP/1.1" 201 Created`, "requestline", "", "", false, time.Time{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obs, in := readString(t, tc.name, tc.line+"\n", ingest.Options{})
			if in.Skipped != 0 || len(obs) != 1 {
				t.Fatalf("%d observations, %d skipped", len(obs), in.Skipped)
			}
			o := obs[0]
			if o.Format != tc.format || o.Key != tc.key || o.ResultID != tc.res || o.Effect != tc.effect || !o.Time.Equal(tc.time) {
				t.Errorf("got format %s, key %q, result %q, effect %v, time %v", o.Format, o.Key, o.ResultID, o.Effect, o.Time)
			}
		})
	}
	// A prefixed line with no pair, or with words after its pairs, is no
	// logfmt: left to the formats after, and skipped where none reads it.
	for _, line := range []string{"INFO:orders:starting orders", "2026/12/08 10:00:00 listening on :8080",
		"INFO:orders:order created order_id=ord_1 in 3 ms"} {
		obs, in := readString(t, line, line+"\n", ingest.Options{})
		if len(obs) != 0 || in.Skipped != 1 {
			t.Errorf("%q: %d observations, %d skipped; want it skipped", line, len(obs), in.Skipped)
		}
	}
}
