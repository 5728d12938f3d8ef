package sdkharness

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idem-cli/idem/internal/kit/capture"
)

// openai is a Stainless-generated SDK: each attempt says how many came
// before it in x-stainless-retry-count. It sends no Idempotency-Key of its
// own; the caller gives one for the call.
var openai = sdk{name: "openai", module: "openai", evidence: "x-stainless-retry-count", marks: func(first, second map[string]string) (string, error) {
	a, b := first["x-stainless-retry-count"], second["x-stainless-retry-count"]
	if a != "0" || b != "1" {
		return "", fmt.Errorf("x-stainless-retry-count %q then %q, want 0 then 1", a, b)
	}
	if ua := second["user-agent"]; !strings.HasPrefix(ua, "OpenAI/JS ") {
		return "", fmt.Errorf("user-agent %q", ua)
	}
	return "the first carried x-stainless-retry-count: 0, the second x-stainless-retry-count: 1", nil
}}

// aws is the AWS SDK for JavaScript v3: each attempt carries
// amz-sdk-request "attempt=N; max=M" and the call's amz-sdk-invocation-id.
var aws = sdk{name: "aws", module: "@aws-sdk/client-dynamodb", evidence: "amz-sdk-request", marks: func(first, second map[string]string) (string, error) {
	a, b := first["amz-sdk-request"], second["amz-sdk-request"]
	if a != "attempt=1; max=2" || b != "attempt=2; max=2" {
		return "", fmt.Errorf("amz-sdk-request %q then %q, want attempt=1; max=2 then attempt=2; max=2", a, b)
	}
	id := first["amz-sdk-invocation-id"]
	if id == "" || second["amz-sdk-invocation-id"] != id {
		return "", fmt.Errorf("amz-sdk-invocation-id %q then %q, want one id", id, second["amz-sdk-invocation-id"])
	}
	return fmt.Sprintf("the first carried amz-sdk-request: %s, the second amz-sdk-request: %s, both amz-sdk-invocation-id: %s", a, b, id), nil
}}

// stripe keys every POST itself (stripe-node-retry-UUID) and sends the
// key again on its retry; no header counts the attempts.
var stripe = sdk{name: "stripe", module: "stripe", evidence: "Stripe", marks: func(first, second map[string]string) (string, error) {
	k := first["idempotency-key"]
	if !strings.HasPrefix(k, "stripe-node-retry-") {
		return "", fmt.Errorf("Idempotency-Key %q: Stripe's own begins stripe-node-retry-", k)
	}
	for _, h := range []map[string]string{first, second} {
		if ua := h["user-agent"]; !strings.HasPrefix(ua, "Stripe/v1 NodeBindings/") {
			return "", fmt.Errorf("user-agent %q", ua)
		}
	}
	return fmt.Sprintf("both carried Stripe's own Idempotency-Key %s and user-agent %s", k, second["user-agent"]), nil
}}

// Each SDK against each server: Test<SDK> with no key store (two
// orders), Test<SDK>Store with express-idempotency refusing the retry
// while the first runs, Test<SDK>StoreCompleted with it replaying the
// first's stored answer (one order each).
func TestOpenAI(t *testing.T)               { run(t, openai, plain) }
func TestOpenAIStore(t *testing.T)          { run(t, openai, store) }
func TestOpenAIStoreCompleted(t *testing.T) { run(t, openai, completed) }
func TestAWS(t *testing.T)                  { run(t, aws, plain) }
func TestAWSStore(t *testing.T)             { run(t, aws, store) }
func TestAWSStoreCompleted(t *testing.T)    { run(t, aws, completed) }
func TestStripe(t *testing.T)               { run(t, stripe, plain) }
func TestStripeStore(t *testing.T)          { run(t, stripe, store) }
func TestStripeStoreCompleted(t *testing.T) { run(t, stripe, completed) }

// TestCaptures checks the committed captures, so that what they prove
// stays proven where node and nginx are not installed.
func TestCaptures(t *testing.T) {
	for _, s := range []sdk{openai, aws, stripe} {
		for _, mode := range []string{plain, store, completed} {
			dir := s.dir(mode)
			t.Run(s.name+"/"+filepath.Base(dir), func(t *testing.T) {
				capture.Recorded(t, dir, harnessJSON, "go test ./internal/kit/sdkharness -run '^Test' -update")
				check(t, s, dir)
			})
		}
	}
}
