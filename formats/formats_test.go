package formats_test

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/model"
)

// readString reads one input given as a string and returns its observations.
func readString(t *testing.T, name, data string, opts ingest.Options) ([]*model.Observation, *model.Input) {
	t.Helper()
	opts.Stdin = strings.NewReader(data)
	var col ingest.Collector
	inputs, err := ingest.Read(context.Background(), []string{"-"}, opts, &col)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return col.Obs, inputs[0]
}

func TestFormats(t *testing.T) {
	tests := []struct {
		name string
		line string
		want model.Observation
	}{
		{
			name: "nginx json 499 with upstream commit",
			line: `{"time_iso8601":"2026-11-30T09:14:04+00:00","msec":"1796030044.512","request_id":"8f3e","http_x_request_id":"r-1","http_idempotency_key":"\"k-1\"","request_method":"POST","request_uri":"/v1/orders?token=abc","status":"499","request_time":"2.398","upstream_status":"201","upstream_addr":"10.0.0.1:80","remote_addr":"198.51.100.23"}`,
			want: model.Observation{Format: "nginx", Tier: model.TierProxy, RequestID: "r-1", AltRequestID: "8f3e", Key: "k-1", Method: "POST", Route: "/v1/orders",
				Status: 0, UpstreamStatus: 201, Outcome: model.OutcomeClientClosed, Duration: 2398 * time.Millisecond, Client: "198.51.100.23", Detail: "499 client closed request",
				Time: time.UnixMilli(1796030044512 - 2398).UTC()},
		},
		{
			name: "nginx json retried upstream",
			line: `{"msec":"1690184907.681","request_id":"abc123","request_method":"POST","request_uri":"/pay","status":"201","request_time":"1.001","upstream_status":"504, 201"}`,
			want: model.Observation{Format: "nginx", Tier: model.TierProxy, RequestID: "abc123", Method: "POST", Route: "/pay", Status: 201, UpstreamStatus: 201,
				Outcome: model.OutcomeOK, Duration: 1001 * time.Millisecond, Detail: "upstream_status 504, 201", UpstreamTries: 2, Time: time.UnixMilli(1690184907681 - 1001).UTC()},
		},
		{
			name: "envoy istio client disconnect",
			line: `{"start_time":"2025-12-14T15:31:56.209Z","method":"GET","path":"/delay/10000","protocol":"HTTP/1.1","response_code":"0","response_flags":"DC","response_code_details":"downstream_remote_disconnect","duration":"1870","request_id":"c9b2decb-ebc7-9ab4-99d6-69712772ef41","upstream_host":"10.244.1.4:8080"}`,
			want: model.Observation{Format: "envoy", Tier: model.TierProxy, RequestID: "c9b2decb-ebc7-9ab4-99d6-69712772ef41", Method: "GET", Route: "/delay/10000",
				Outcome: model.OutcomeClientClosed, Detail: "DC downstream_remote_disconnect", Duration: 1870 * time.Millisecond,
				Time: time.Date(2025, 12, 14, 15, 31, 56, 209e6, time.UTC)},
		},
		{
			name: "envoy upstream timeout",
			line: `{"start_time":"2025-05-15T20:00:21.626Z","method":"POST","path":"/items","response_code":"504","response_flags":"UT","duration":"501","request_id":"cb84","upstream_host":"10.10.0.13:3000"}`,
			want: model.Observation{Format: "envoy", Tier: model.TierProxy, RequestID: "cb84", Method: "POST", Route: "/items", Status: 504,
				Outcome: model.OutcomeUpstreamTimeout, Detail: "UT", Duration: 501 * time.Millisecond, Time: time.Date(2025, 5, 15, 20, 0, 21, 626e6, time.UTC)},
		},
		{
			name: "traefik",
			line: `{"ClientHost":"192.0.2.1","DownstreamStatus":499,"Duration":8184335,"OriginStatus":0,"RequestMethod":"POST","RequestPath":"/v1/pay?x=1","RetryAttempts":0,"StartUTC":"2024-12-29T11:42:47.503803974Z","request_X-Request-Id":"t-1","request_Idempotency-Key":"k-t","level":"info","msg":"","time":"2024-12-29T12:42:47+01:00"}`,
			want: model.Observation{Format: "traefik", Tier: model.TierProxy, RequestID: "t-1", Key: "k-t", Method: "POST", Route: "/v1/pay", Outcome: model.OutcomeClientClosed,
				Duration: 8184335, Client: "192.0.2.1", Time: time.Date(2024, 12, 29, 11, 42, 47, 503803974, time.UTC)},
		},
		{
			name: "caddy",
			line: `{"level":"info","ts":1646861401.5241024,"logger":"http.log.access","msg":"handled request","request":{"remote_ip":"127.0.0.1","client_ip":"127.0.0.1","proto":"HTTP/2.0","method":"POST","host":"localhost","uri":"/v1/orders","headers":{"Idempotency-Key":["k-c"],"X-Request-Id":["c-1"]}},"bytes_read":0,"duration":0.5,"size":10,"status":201,"resp_headers":{"Idempotent-Replayed":["true"]}}`,
			want: model.Observation{Format: "caddy", Tier: model.TierProxy, RequestID: "c-1", Key: "k-c", Method: "POST", Route: "/v1/orders", Status: 201,
				Outcome: model.OutcomeOK, Duration: 500 * time.Millisecond, Replayed: true, Client: "127.0.0.1",
				Time: time.Unix(1646861401, 24102400).UTC()},
		},
		{
			name: "pino-http",
			line: `{"level":30,"time":1531171074631,"pid":1,"hostname":"h","req":{"id":"p-1","method":"POST","url":"/v1/orders","headers":{"idempotency-key":"k-p"},"remoteAddress":"::1"},"res":{"statusCode":201,"headers":{}},"responseTime":31,"msg":"request completed"}`,
			want: model.Observation{Format: "pino-http", Tier: model.TierServer, RequestID: "p-1", Key: "k-p", Method: "POST", Route: "/v1/orders", Status: 201,
				Outcome: model.OutcomeOK, Duration: 31 * time.Millisecond, Client: "::1", Message: "request completed", Process: "h/1",
				Time: time.UnixMilli(1531171074631 - 31).UTC()},
		},
		{
			name: "slog canonical fields",
			line: `{"time":"2026-11-30T09:14:05.884Z","level":"INFO","msg":"idempotency replay","request_id":"r-2","route":"/v1/orders","method":"POST","key_hash":"sha256:0011","decision":"replay","state":"completed","fingerprint":"sha256:ab","result_id":"ord_1"}`,
			want: model.Observation{Format: "slog", Tier: model.TierServer, RequestID: "r-2", KeyHash: "sha256:0011", Method: "POST", Route: "/v1/orders",
				Decision: "replay", State: "completed", Fingerprint: "sha256:ab", ResultID: "ord_1", Replayed: true, Message: "idempotency replay",
				Time: time.Date(2026, 11, 30, 9, 14, 5, 884e6, time.UTC)},
		},
		{
			name: "zap effect line",
			line: `{"level":"info","ts":1700000000.5,"caller":"orders/create.go:42","msg":"order created","request_id":"z-1","idempotency_key":"k-z","order_id":"ord_9","duration":0.25}`,
			want: model.Observation{Format: "zap", Tier: model.TierServer, RequestID: "z-1", Key: "k-z", ResultID: "ord_9", Effect: true, Message: "order created",
				Duration: 250 * time.Millisecond, Time: time.Unix(1700000000, 5e8).UTC()},
		},
		{
			name: "zerolog",
			line: `{"level":"info","time":"2023-07-18T13:44:17Z","message":"charge captured","requestId":"zl-1","chargeId":"ch_1","Idempotency-Key":"k-zl"}`,
			want: model.Observation{Format: "zerolog", Tier: model.TierServer, RequestID: "zl-1", Key: "k-zl", ResultID: "ch_1", Effect: true, Message: "charge captured",
				Time: time.Date(2023, 7, 18, 13, 44, 17, 0, time.UTC)},
		},
		{
			name: "temporal activity",
			line: `{"time":"2024-01-15T10:30:45.123Z","level":"INFO","msg":"Activity complete after timeout.","Namespace":"default","TaskQueue":"publish","WorkerID":"1@host@","ActivityID":"5","ActivityType":"Publish","Attempt":2,"WorkflowType":"PublishArticle","WorkflowID":"article-107","RunID":"run-1"}`,
			want: model.Observation{Format: "temporal", Tier: model.TierWorker, Workflow: &model.Workflow{ID: "article-107", RunID: "run-1", ActivityID: "5", ActivityType: "Publish"},
				Attempt: 2, Message: "Activity complete after timeout.", Detail: "completed after timeout", Time: time.Date(2024, 1, 15, 10, 30, 45, 123e6, time.UTC)},
		},
		{
			name: "canonical provider tier",
			line: `{"time":"2026-11-30T10:00:00Z","tier":"provider","request_id":"ext-1","idempotency_key":"k-e","event":"effect","result_id":"pay_1"}`,
			want: model.Observation{Format: "canonical", Tier: model.TierProvider, RequestID: "ext-1", Key: "k-e", ResultID: "pay_1", Effect: true, Message: "effect",
				Time: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)},
		},
		{
			name: "otel flat record",
			line: `{"timeUnixNano":"1544712660300000000","body":{"stringValue":"request"},"attributes":[{"key":"http.request.method","value":{"stringValue":"POST"}},{"key":"url.path","value":{"stringValue":"/v1/x"}},{"key":"http.response.status_code","value":{"intValue":"409"}},{"key":"http.request.header.idempotency-key","value":{"arrayValue":{"values":[{"stringValue":"k-o"}]}}},{"key":"http.request.header.x-request-id","value":{"arrayValue":{"values":[{"stringValue":"o-1"}]}}}]}`,
			want: model.Observation{Format: "otel", Tier: model.TierServer, RequestID: "o-1", Key: "k-o", Method: "POST", Route: "/v1/x", Status: 409, Outcome: model.OutcomeOK,
				Message: "request", Time: time.Unix(0, 1544712660300000000).UTC()},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obs, in := readString(t, tt.name, tt.line+"\n", ingest.Options{Workers: 1})
			if len(obs) != 1 {
				t.Fatalf("got %d observations, want 1 (skipped %d: %v, ignored %d)", len(obs), in.Skipped, in.SkipSamples, in.Ignored)
			}
			got := *obs[0]
			tt.want.Source = model.Source{File: "-", Line: 1}
			if got.Fingerprint != "" && tt.want.Fingerprint == "" {
				tt.want.Fingerprint = got.Fingerprint
			}
			if !got.Time.Equal(tt.want.Time) {
				t.Errorf("time = %s, want %s", got.Time.Format(time.RFC3339Nano), tt.want.Time.Format(time.RFC3339Nano))
			}
			got.Time, tt.want.Time = time.Time{}, time.Time{}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("observation mismatch\n got: %+v (workflow %+v)\nwant: %+v (workflow %+v)", got, got.Workflow, tt.want, tt.want.Workflow)
			}
		})
	}
}

func TestOTLPBatchFlattens(t *testing.T) {
	line := `{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"orders"}}]},"scopeLogs":[{"scope":{"name":"x"},"logRecords":[` +
		`{"timeUnixNano":"1544712660300000000","attributes":[{"key":"http.request.method","value":{"stringValue":"POST"}},{"key":"http.request.header.idempotency-key","value":{"arrayValue":{"values":[{"stringValue":"k1"}]}}}]},` +
		`{"timeUnixNano":"1544712660400000000","attributes":[{"key":"http.request.method","value":{"stringValue":"POST"}},{"key":"http.request.header.idempotency-key","value":{"arrayValue":{"values":[{"stringValue":"k2"}]}}}]}]}]}]}`
	obs, _ := readString(t, "otlp", line+"\n", ingest.Options{})
	if len(obs) != 2 || obs[0].Key != "k1" || obs[1].Key != "k2" || obs[0].Source.Line != 1 {
		t.Fatalf("got %d observations: %+v", len(obs), obs)
	}
}

func TestHARDocument(t *testing.T) {
	obs, in := readString(t, "har", mustRead(t, "../fixtures/incident/client.har"), ingest.Options{})
	if len(obs) != 3 {
		t.Fatalf("got %d observations from the HAR, want 3", len(obs))
	}
	first := obs[0]
	if first.Outcome != model.OutcomeTimeout || first.Status != 0 || first.Detail != "net::ERR_TIMED_OUT" || first.Key == "" || first.Fingerprint == "" {
		t.Errorf("first entry: %+v", first)
	}
	if first.Source.Line != 10 {
		t.Errorf("first entry starts at line %d, want 10", first.Source.Line)
	}
	if !obs[1].Replayed || obs[1].ResultID != "ord_8H2kQ" || obs[1].Status != 201 {
		t.Errorf("second entry: %+v", obs[1])
	}
	if obs[0].Fingerprint != obs[1].Fingerprint {
		t.Errorf("same body, different fingerprints")
	}
	if in.Secrets["request.headers.authorization"] != 3 {
		t.Errorf("secrets counted: %v", in.Secrets)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestApplicationLoggersAsTheyReallyLog pins what the real libraries
// write: zerolog's durations in milliseconds, pino-http's counter ids
// scoped to their process (the propagated X-Request-Id preferred), echo's
// id and end-of-request time, OTLP's result aliases.
func TestApplicationLoggersAsTheyReallyLog(t *testing.T) {
	at := func(s string) time.Time { v, _ := model.ParseTime(s); return v }
	tests := []struct {
		name, line string
		format     string
		rid        string
		dur        time.Duration
		start      time.Time
		result     string
		effect     bool
	}{
		{"zerolog hlog.AccessHandler: duration in ms",
			`{"level":"info","method":"POST","url":"/v1/orders","status":201,"size":57,"duration":2500.37,"time":"2026-11-30T09:14:04Z","message":"request"}`,
			"zerolog", "", 2500370 * time.Microsecond, at("2026-11-30T09:14:01.49963Z"), "", false},
		{"pino-http: the propagated header wins over the counter",
			`{"level":30,"time":1796030044000,"pid":7,"hostname":"api-1","req":{"id":3,"method":"POST","url":"/v1/orders","headers":{"x-request-id":"c9b2decb-ebc7-4a9b-99d6-69712772ef41"}},"res":{"statusCode":201},"responseTime":12,"msg":"request completed"}`,
			"pino-http", "c9b2decb-ebc7-4a9b-99d6-69712772ef41", 12 * time.Millisecond, at("2026-11-30T09:14:03.988Z"), "", false},
		{"pino-http: a counter id belongs to its process",
			`{"level":30,"time":1796030044000,"pid":7,"hostname":"api-1","req":{"id":3,"method":"POST","url":"/v1/orders","headers":{}},"res":{"statusCode":201},"responseTime":12,"msg":"request completed"}`,
			"pino-http", "api-1/7#3", 12 * time.Millisecond, at("2026-11-30T09:14:03.988Z"), "", false},
		{"pino: a reqId counter belongs to its process",
			`{"level":30,"time":1796030044000,"pid":7,"hostname":"api-1","reqId":3,"order_id":"ord_1","msg":"order created"}`,
			"pino", "api-1/7#3", 0, at("2026-11-30T09:14:04Z"), "ord_1", true},
		{"echo Logger: id is the request id, time is the end",
			`{"time":"2026-11-30T09:14:04.5Z","id":"c9b2decb-ebc7-4a9b-99d6-69712772ef41","remote_ip":"10.0.0.7","host":"api","method":"POST","uri":"/v1/orders","user_agent":"curl/8.5.0","status":201,"error":"","latency":1500000000,"latency_human":"1.5s","bytes_in":41,"bytes_out":57}`,
			"echo", "c9b2decb-ebc7-4a9b-99d6-69712772ef41", 1500 * time.Millisecond, at("2026-11-30T09:14:03Z"), "", false},
		{"OTLP: order_id on 'order created' is an effect",
			`{"timeUnixNano":"1796030044000000000","body":{"stringValue":"order created"},"attributes":[{"key":"request_id","value":{"stringValue":"r-1"}},{"key":"order_id","value":{"stringValue":"ord_1"}}]}`,
			"otel", "r-1", 0, at("2026-11-30T09:14:04Z"), "ord_1", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obs, in := readString(t, tt.name, tt.line+"\n", ingest.Options{})
			if len(obs) != 1 {
				t.Fatalf("%d observations; skipped %v", len(obs), in.SkipSamples)
			}
			o := obs[0]
			if o.Format != tt.format || o.RequestID != tt.rid || o.Duration != tt.dur || !o.Time.Equal(tt.start) || o.ResultID != tt.result || o.Effect != tt.effect {
				t.Errorf("got format %s rid %q duration %s start %s result %q effect %v\nwant %s %q %s %s %q %v",
					o.Format, o.RequestID, o.Duration, o.Time.Format(time.RFC3339Nano), o.ResultID, o.Effect,
					tt.format, tt.rid, tt.dur, tt.start.Format(time.RFC3339Nano), tt.result, tt.effect)
			}
		})
	}
}

// TestECSDocumentWithItsOwnRequestFields: an ECS document whose message is
// plain text and whose own fields hold the request used to be unwrapped
// as ECS again and again until the stack overflowed.
func TestECSDocumentWithItsOwnRequestFields(t *testing.T) {
	line := `{"@timestamp":"2021-09-09T18:42:20.799Z","message":"handled request","ecs":{"version":"1.6.0"},"http":{"request":{"method":"POST"},"response":{"status_code":201}},"url":{"path":"/v1/orders"}}`
	obs, in := readString(t, "ecs", line+"\n", ingest.Options{})
	if len(obs) != 1 || in.Skipped != 0 || obs[0].Method != "POST" {
		t.Fatalf("%d observations, %d skipped %v: %+v", len(obs), in.Skipped, in.SkipSamples, obs)
	}
}

// TestTraceIDsJoinTiersWithoutRequestIDs: a browser that sends only a W3C
// traceparent and a backend that logs OpenTelemetry's trace_id make one
// delivery, named after the trace; a stack trace is no trace id.
func TestTraceIDsJoinTiersWithoutRequestIDs(t *testing.T) {
	har := `{"startedDateTime":"2026-11-30T09:14:02.105Z","time":120,"request":{"method":"POST","url":"https://shop.example.com/v1/orders","headers":[{"name":"traceparent","value":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},{"name":"Idempotency-Key","value":"k-1"}]},"response":{"status":201,"headers":[],"content":{}},"timings":{}}`
	app := `{"time":"2026-11-30T09:14:02.150Z","level":"INFO","msg":"order created","trace_id":"4BF92F3577B34DA6A3CE929D0E0E4736","span_id":"a2fb4a1d1a96d312","idempotency_key":"k-1","order_id":"ord_1"}`
	gcp := `{"time":"2026-11-30T09:14:02.160Z","level":"INFO","msg":"charged","logging.googleapis.com/trace":"projects/shop/traces/4bf92f3577b34da6a3ce929d0e0e4736","idempotency_key":"k-1"}`
	stack := `{"time":"2026-11-30T09:14:02.170Z","level":"ERROR","msg":"boom","trace":"goroutine 1 [running]: main.main()","idempotency_key":"k-1"}`
	obs, _ := readString(t, "traces", har+"\n"+app+"\n"+gcp+"\n"+stack+"\n", ingest.Options{})
	if len(obs) != 4 {
		t.Fatalf("%d observations", len(obs))
	}
	for i, o := range obs[:3] {
		if o.RequestID != "trace:4bf92f3577b34da6a3ce929d0e0e4736" {
			t.Errorf("line %d: request id %q, want the trace's", i+1, o.RequestID)
		}
	}
	if obs[3].RequestID != "" {
		t.Errorf("a stack trace was taken for a trace id: %q", obs[3].RequestID)
	}
}

// TestSecretsCountedAreWhatRedactMasks: secret-in-logs counts the fields
// every report masks, by one list (redact's), and none that a report
// needs: an id, a key, a trace.
func TestSecretsCountedAreWhatRedactMasks(t *testing.T) {
	line := `{"time":"2026-11-30T09:14:02Z","msg":"order created","request_id":"r1","idempotency_key":"k1","trace_id":"t1",` +
		`"session":"s3cr3t","jwt":"eyJx","user_password":"p","api_token":"t","headers":{"X-Amz-Signature":"abc","Cookie":"c=1","Idempotency-Key":"k1","X-Request-Id":"r1"}}`
	_, in := readString(t, "slog", line+"\n", ingest.Options{})
	for _, want := range []string{"session", "jwt", "user_password", "api_token", "headers.X-Amz-Signature", "headers.Cookie"} {
		if in.Secrets[want] != 1 {
			t.Errorf("secret field %s counted %d times, want 1 (counted: %v)", want, in.Secrets[want], in.Secrets)
		}
	}
	for _, not := range []string{"request_id", "idempotency_key", "trace_id", "headers.Idempotency-Key", "headers.X-Request-Id", "msg"} {
		if _, ok := in.Secrets[not]; ok {
			t.Errorf("%s counted as a secret: %v", not, in.Secrets)
		}
	}
}

// TestEveryHeaderReaderAcceptsEveryHeaderName: the key and request-id
// headers are one list (grammar.RequestHeader), so a HAR, a JSON logger's
// header map and a W3C column read the same names, whatever the case.
func TestEveryHeaderReaderAcceptsEveryHeaderName(t *testing.T) {
	readers := []struct {
		format, line string
	}{
		{"har", `{"log":{"entries":[{"startedDateTime":"2026-11-30T09:14:02.105Z","time":48,"request":{"method":"POST","url":"https://a.example/v1/orders",` +
			`"headers":[{"name":"%[1]s","value":"rid-1"},{"name":"%[2]s","value":"key-1"}]},"response":{"status":201,"headers":[]}}]}}`},
		{"caddy", `{"level":"info","ts":1796129097.09,"logger":"http.log.access.log0","msg":"handled request","request":{"remote_ip":"127.0.0.10","method":"POST",` +
			`"uri":"/v1/orders","headers":{"%[1]s":["rid-1"],"%[2]s":["key-1"]}},"duration":0.0008,"size":40,"status":201,"resp_headers":{}}`},
		{"pino-http", `{"level":30,"time":1531171074631,"pid":657,"hostname":"box","req":{"id":1,"method":"POST","url":"/v1/orders",` +
			`"headers":{"%[1]s":"rid-1","%[2]s":"key-1"}},"res":{"statusCode":201},"responseTime":31,"msg":"request completed"}`},
		{"w3c", "#Version: 1.0\n#Fields: date time cs-method cs-uri-stem sc-status %[1]s %[2]s\n2026-11-30 09:14:02 POST /v1/orders 201 rid-1 key-1"},
	}
	for _, r := range readers {
		for _, rid := range []string{"X-Request-Id", "x-request-id", "Request-Id", "X-Correlation-Id"} {
			for _, key := range []string{"Idempotency-Key", "idempotency-key", "X-Idempotency-Key"} {
				if r.format == "w3c" {
					rid, key = strings.ToLower(rid), strings.ToLower(key)
				}
				obs, _ := readString(t, r.format, fmt.Sprintf(r.line, rid, key)+"\n", ingest.Options{})
				if len(obs) != 1 || obs[0].RequestID != "rid-1" || obs[0].Key != "key-1" {
					t.Errorf("%s with %s and %s: %d observations %+v", r.format, rid, key, len(obs), obs)
				}
			}
		}
	}
}

// TestOutboundCallsAreTheCallers: a logger's line about a call it made
// (an absolute URL with the send's number, or a retry's words) is the
// client tier's, by meaning; a handled request stays the server's.
func TestOutboundCallsAreTheCallers(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		want       model.Tier
	}{
		{"an attempt to an absolute URL", `{"time":"2026-12-07T21:30:07.69Z","level":"INFO","msg":"POST /v1/orders attempt 1: 504","idempotency_key":"k1","method":"POST","url":"http://127.0.0.1:35155/v1/orders","attempt":1,"status":504}`, model.TierClient},
		{"a retry's words and an absolute URL", `{"time":"2026-12-07T21:30:07.69Z","level":"WARN","msg":"request failed, retrying in 1s","idempotency_key":"k1","method":"POST","url":"https://api.example.com/v1/orders","status":503}`, model.TierClient},
		{"a handled request with an attempt header", `{"time":"2026-12-07T21:30:07.69Z","level":"INFO","msg":"order created","idempotency_key":"k1","method":"POST","path":"/v1/orders","attempt":2,"status":201}`, model.TierServer},
		{"an absolute URL a server logged, no send number", `{"time":"2026-12-07T21:30:07.69Z","level":"INFO","msg":"request completed","idempotency_key":"k1","method":"POST","url":"http://shop.example.com/v1/orders","status":201}`, model.TierServer},
		{"a tier the line names", `{"time":"2026-12-07T21:30:07.69Z","tier":"proxy","msg":"retrying in 1s","idempotency_key":"k1","method":"POST","url":"http://a/v1/orders","attempt":2,"status":502}`, model.TierProxy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obs, _ := readString(t, "", tc.line+"\n", ingest.Options{})
			if len(obs) != 1 || obs[0].Tier != tc.want {
				t.Fatalf("got %+v, want tier %s", obs, tc.want)
			}
		})
	}
}
