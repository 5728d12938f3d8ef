package diagnose_test

import (
	"fmt"
	"testing"
)

// TestOneFileTwoProcesses: two replicas of a framework that numbers its
// requests (Fastify's req-1, req-2) write one file, each line naming its
// pid and host as pino does. The same counter value from two processes is
// two trips: two deliveries, no request-id-reused. From one process, one
// id under two keys is a reuse, and the rule fires.
func TestOneFileTwoProcesses(t *testing.T) {
	line := func(pid int, ms int, rid, key, msg string) string {
		return fmt.Sprintf(`{"level":30,"time":%d,"pid":%d,"hostname":"vm","reqId":%q,"idempotencyKey":%q,"method":"POST","url":"/v1/orders","statusCode":201,"msg":%q}`,
			1796678827000+ms, pid, rid, key, msg)
	}
	for _, tc := range []struct {
		name       string
		pidB       int
		deliveries int
		reused     bool
	}{
		{"two processes' counters", 26470, 2, false},
		{"one process, one id under two keys", 26469, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := write(t, t.TempDir(), "app.log",
				line(26469, 0, "req-1", "key-a", "order created"),
				line(tc.pidB, 400, "req-1", "key-b", "order created"))
			res, set := diagnoseFiles(t, path)
			if got := set.DeliveryCount(); got != tc.deliveries {
				t.Errorf("%d deliveries, want %d", got, tc.deliveries)
			}
			reused := false
			for _, f := range res.Findings {
				reused = reused || f.Rule.ID == "request-id-reused"
			}
			if reused != tc.reused {
				t.Errorf("request-id-reused fired: %v, want %v (findings %v)", reused, tc.reused, res.Findings)
			}
		})
	}
}
