package formats_test

import (
	"testing"

	"github.com/idem-cli/idem/ingest"
)

// TestEffectIsACreatedThing: a line saying it made something names what
// it made by a field named for it, whatever the domain's noun; a line
// answering again names the old one; an id of a place or a party is no
// result.
func TestEffectIsACreatedThing(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		res        string
		effect     bool
		replayed   bool
	}{
		{"a refund, beside the order it refunds", `{"time":"2026-12-08T10:00:00Z","msg":"refund created","refund_id":"rf_1","order_id":"ord_1","idempotency_key":"k-1"}`, "rf_1", true, false},
		{"a booking, camelCase", `{"time":"2026-12-08T10:00:00Z","msg":"booking confirmed and created","bookingId":"bk_9","idempotency_key":"k-1"}`, "bk_9", true, false},
		{"a ticket named id", `{"time":"2026-12-08T10:00:00Z","msg":"ticket issued","id":"T-77","idempotency_key":"k-1"}`, "T-77", true, false},
		{"a noun on no list", `{"time":"2026-12-08T10:00:00Z","msg":"created voucher","voucherID":"v-3","idempotency_key":"k-1"}`, "v-3", true, false},
		{"logfmt after a prefix", `INFO:shop:subscription created subscription_id=sub_5 idempotency_key=k-1`, "sub_5", true, false},
		{"a replay names the old one", `{"time":"2026-12-08T10:00:00Z","msg":"replaying stored response","refund_id":"rf_1","idempotency_key":"k-1"}`, "rf_1", false, true},
		// Must not: ids of a party or a place; no word of making.
		{"a session's and a user's id", `{"time":"2026-12-08T10:00:00Z","msg":"session created","session_id":"s-1","user_id":"u-1","idempotency_key":"k-1"}`, "", false, false},
		{"no word of making", `{"time":"2026-12-08T10:00:00Z","msg":"refund looked up","refund_id":"rf_1","idempotency_key":"k-1"}`, "", false, false},
		{"a trace's id", `{"time":"2026-12-08T10:00:00Z","msg":"charge created","span_id":"00f067aa0ba902b7","idempotency_key":"k-1"}`, "", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obs, _ := readString(t, tc.name, tc.line+"\n", ingest.Options{})
			if len(obs) != 1 {
				t.Fatalf("%d observations", len(obs))
			}
			if o := obs[0]; o.ResultID != tc.res || o.Effect != tc.effect || o.Replayed != tc.replayed {
				t.Errorf("result %q, effect %v, replayed %v; want %q, %v, %v", o.ResultID, o.Effect, o.Replayed, tc.res, tc.effect, tc.replayed)
			}
		})
	}
}
