package formats_test

import (
	"strings"
	"testing"

	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/model"
)

// TestCallersLinesAreTheClients: a log whose lines say they are a
// caller's (an absolute URL it sends to, its send's error, its retry)
// is the client's, every line of it, whatever the logger's shape; a
// server's stays the server's, and a log no line of which says whose it
// is keeps its format's tier, marked assumed.
func TestCallersLinesAreTheClients(t *testing.T) {
	const (
		send     = `{"time":"2026-12-08T10:00:00.000Z","level":"info","msg":"sending order request","method":"POST","url":"http://127.0.0.1:9000/v1/orders","idempotencyKey":"k-1","attempt":1}`
		got201   = `{"time":"2026-12-08T10:00:00.100Z","level":"info","msg":"order response","idempotencyKey":"k-1","status":201,"orderId":"ord_1"}`
		timedOut = `{"time":"2026-12-08T10:00:01.000Z","level":"warn","msg":"retrying order request after ETIMEDOUT","idempotencyKey":"k-2","retryCount":1,"attempt":1,"code":"ETIMEDOUT"}`
		refused  = `{"time":"2026-12-08T10:00:02.000Z","level":"error","msg":"order request failed","idempotencyKey":"k-3","error":"connect ECONNREFUSED 127.0.0.1:9001"}`
		hangUp   = `{"time":"2026-12-08T10:00:03.000Z","level":"error","msg":"order request failed: socket hang up","idempotencyKey":"k-4"}`
		handled  = `{"time":"2026-12-08T10:00:00.000Z","level":"INFO","msg":"request handled","method":"POST","path":"/v1/orders","status":201,"idempotency_key":"k-1","duration_ms":12}`
		created  = `{"time":"2026-12-08T10:00:00.000Z","level":"INFO","msg":"order created","idempotency_key":"k-1","order_id":"ord_1"}`
		dbDown   = `{"time":"2026-12-08T10:00:00.000Z","level":"ERROR","msg":"request failed","method":"POST","path":"/v1/orders","status":500,"idempotency_key":"k-9","error":"connect ECONNREFUSED 10.0.0.5:5432"}`
		gone     = `{"time":"2026-12-08T10:00:00.000Z","level":"ERROR","msg":"write failed: ECONNRESET","method":"POST","path":"/v1/orders","idempotency_key":"k-9"}`
	)
	type want struct {
		tier    model.Tier
		outcome model.Outcome
		effect  bool
	}
	for _, tc := range []struct {
		name    string
		lines   []string
		tier    string
		assumed bool
		want    []want
	}{
		{"a caller's sends, answers and errors", []string{send, got201, timedOut, refused, hangUp}, "client", false, []want{
			{model.TierClient, model.OutcomeUnknown, false}, {model.TierClient, model.OutcomeOK, false},
			{model.TierClient, model.OutcomeTimeout, false}, {model.TierClient, model.OutcomeNotDelivered, false},
			{model.TierClient, model.OutcomeReset, false}}},
		{"an answer received before any send the log shows", []string{got201, send}, "client", false, []want{
			{model.TierServer, model.OutcomeOK, false}, {model.TierClient, model.OutcomeUnknown, false}}},
		{"a server's handled requests and effects", []string{created, handled, handled}, "server", false, []want{
			{model.TierServer, model.OutcomeUnknown, true}, {model.TierServer, model.OutcomeOK, false}, {model.TierServer, model.OutcomeOK, false}}},
		{"a server's own outbound call failing", []string{handled, dbDown}, "server", false, []want{
			{model.TierServer, model.OutcomeOK, false}, {model.TierServer, model.OutcomeOK, false}}},
		{"a server whose client went away", []string{gone, handled}, "server", false, []want{
			{model.TierServer, model.OutcomeReset, false}, {model.TierServer, model.OutcomeOK, false}}},
		{"effects alone: the tier is assumed", []string{created, created}, "server", true, []want{
			{model.TierServer, model.OutcomeUnknown, true}, {model.TierServer, model.OutcomeUnknown, true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obs, in := readString(t, tc.name, strings.Join(tc.lines, "\n")+"\n", ingest.Options{})
			if len(obs) != len(tc.want) {
				t.Fatalf("%d observations, want %d", len(obs), len(tc.want))
			}
			for i, w := range tc.want {
				if o := obs[i]; o.Tier != w.tier || o.Outcome != w.outcome || o.Effect != w.effect {
					t.Errorf("line %d: tier %s, outcome %s, effect %v; want %s, %s, %v", i+1, o.Tier, o.Outcome, o.Effect, w.tier, w.outcome, w.effect)
				}
			}
			if in.Tier != tc.tier || in.TierAssumed != tc.assumed {
				t.Errorf("input: tier %s, assumed %v; want %s, %v", in.Tier, in.TierAssumed, tc.tier, tc.assumed)
			}
		})
	}
}
