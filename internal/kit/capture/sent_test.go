package capture

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestSentReadsEveryRecord reads a request as each record under
// fixtures/real/ holds it, and as MarshalJSON writes it.
func TestSentReadsEveryRecord(t *testing.T) {
	tests := []struct {
		name, record string
		want         Sent
	}{
		{"run.json, a response",
			`{"name":"created","key":"k1","path":"/v1/orders","end":"created","request_id":"r1","start":"2026-12-01T10:12:47.827336429Z",` +
				`"finish":"2026-12-01T10:12:47.827940495Z","status":201,"result_id":"ord_1","reached_backend":true}`,
			Sent{Step: "created", Key: "k1", Path: "/v1/orders", Meant: "created", RequestID: "r1", Start: at("2026-12-01T10:12:47.827336429Z"),
				End: at("2026-12-01T10:12:47.827940495Z"), Ended: EndedResponse, Status: 201, ResultID: "ord_1", Reached: true}},
		{"run.json, a client timeout",
			`{"name":"retry-1-timeout","path":"/v1/orders?delay=1200ms","timeout":400000000,"end":"client_timeout","request_id":"r2",` +
				`"start":"2026-12-01T10:12:47Z","finish":"2026-12-01T10:12:48Z","error":"timeout","reached_backend":true}`,
			Sent{Step: "retry-1-timeout", Path: "/v1/orders?delay=1200ms", Timeout: 400 * time.Millisecond, Meant: "client_timeout", RequestID: "r2",
				Start: at("2026-12-01T10:12:47Z"), End: at("2026-12-01T10:12:48Z"), Ended: EndedTimeout, Error: "timeout", Reached: true}},
		{"run.json, a browser's abort",
			`{"name":"abort","end":"client_abort","request_id":"r3","start":"2026-12-01T10:12:40.682Z","finish":"2026-12-01T10:12:41.084Z",` +
				`"error":"AbortError: signal is aborted without reason"}`,
			Sent{Step: "abort", Meant: "client_abort", RequestID: "r3", Start: at("2026-12-01T10:12:40.682Z"), End: at("2026-12-01T10:12:41.084Z"),
				Ended: EndedAborted, Error: "AbortError: signal is aborted without reason"}},
		{"appharness's harness.json, a lost response",
			`{"name":"lost","key":"key-slog-2","request_id":"req-slog-2","body":"{}","delay":1200000000,"timeout":400000000,` +
				`"start":"2026-12-01T10:17:31.005916231Z","end":"2026-12-01T10:17:31.409720533Z","timed_out":true}`,
			Sent{Step: "lost", Key: "key-slog-2", RequestID: "req-slog-2", Body: "{}", Delay: 1200 * time.Millisecond, Timeout: 400 * time.Millisecond,
				Start: at("2026-12-01T10:17:31.005916231Z"), End: at("2026-12-01T10:17:31.409720533Z"), Ended: EndedTimeout}},
		{"appharness's harness.json, an answer",
			`{"name":"keyed-ok","request_id":"req-1","body":"{}","delay":250000000,"timeout":10000000000,"start":"2026-12-01T10:17:31Z",` +
				`"end":"2026-12-01T10:17:32Z","status":201,"response_request_id":"req-1"}`,
			Sent{Step: "keyed-ok", RequestID: "req-1", Body: "{}", Delay: 250 * time.Millisecond, Timeout: 10 * time.Second,
				Start: at("2026-12-01T10:17:31Z"), End: at("2026-12-01T10:17:32Z"), Ended: EndedResponse, Status: 201, ResponseRequestID: "req-1"}},
		{"the servers' harness.json",
			`{"step":"clean","client":"127.0.0.10","key":"k","request_id":"r","body":"{}","delay_ms":1500,"timeout_ms":10000,"start":"2026-12-01T12:44:57Z",` +
				`"end":"2026-12-01T12:44:58Z","ended":"response","status":201,"replayed":true,"response":"{\"order_id\":\"ord_1\"}","effect":"ord_1"}`,
			Sent{Step: "clean", Client: "127.0.0.10", Key: "k", RequestID: "r", Body: "{}", Delay: 1500 * time.Millisecond, Timeout: 10 * time.Second,
				Start: at("2026-12-01T12:44:57Z"), End: at("2026-12-01T12:44:58Z"), Ended: EndedResponse, Status: 201, Replayed: true,
				Response: `{"order_id":"ord_1"}`, Effect: "ord_1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Sent
			if err := json.Unmarshal([]byte(tt.record), &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got  %+v\nwant %+v", got, tt.want)
			}
			// What MarshalJSON writes reads back the same.
			b, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			var again Sent
			if err := json.Unmarshal(b, &again); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(again, tt.want) {
				t.Fatalf("%s reads back as %+v", b, again)
			}
		})
	}
}

func TestSentWritesMilliseconds(t *testing.T) {
	b, err := json.Marshal(Sent{Step: "s", Delay: 1500 * time.Millisecond, Timeout: 400 * time.Millisecond, Ended: EndedTimeout})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m["delay_ms"] != 1500.0 || m["timeout_ms"] != 400.0 || m["ended"] != "timeout" || m["step"] != "s" {
		t.Fatalf("%s", b)
	}
	for _, k := range []string{"delay", "timeout", "name", "finish", "timed_out"} {
		if _, ok := m[k]; ok {
			t.Errorf("%s writes %q, a field of the older records", b, k)
		}
	}
}

func TestEndedOf(t *testing.T) {
	tests := []struct {
		status int
		err    string
		want   ended
	}{
		{201, "", EndedResponse},
		{502, "", EndedResponse},
		{0, "timeout", EndedTimeout},
		{0, "TimeoutError: signal timed out", EndedTimeout},
		{0, "aborted", EndedAborted},
		{0, "AbortError: signal is aborted without reason", EndedAborted},
		{0, "refused", endedRefused},
		{0, "TypeError: Failed to fetch", endedError},
		{200, "unexpected EOF", endedError},
		{0, "", endedError},
	}
	for _, tt := range tests {
		if got := EndedOf(tt.status, tt.err); got != tt.want {
			t.Errorf("EndedOf(%d, %q) = %s, want %s", tt.status, tt.err, got, tt.want)
		}
	}
}

func TestSentRoute(t *testing.T) {
	s := Sent{Path: "/v1/orders?delay=1200ms"}
	if s.Route() != "/v1/orders" || s.HTTPMethod() != "POST" {
		t.Fatalf("route %q, method %q", s.Route(), s.HTTPMethod())
	}
	if a, b := (Sent{Body: `{"a":1}`}).Fingerprint(), (Sent{Body: `{"a":2}`}).Fingerprint(); a == b || a[:7] != "sha256:" {
		t.Fatalf("fingerprints %s and %s", a, b)
	}
}
