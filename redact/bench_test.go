package redact

import "testing"

// BenchmarkString measures redaction of the fields reports print: most
// hold no secret, some hold a URL or a route; narratives, ids and sources
// are most of a big report's bytes.
func BenchmarkString(b *testing.B) {
	fields := []string{"order created", "/v1/orders", "https://shop.example.com/v1/orders?page=2", "c9b2decb-ebc7-4a9b-99d6-69712772ef41",
		"sha256:0da6983d5be4c82203ac1bd602fa40926c7f8ce5c44253057c3d4618e3f7880e", "idempotency reservation", "2026-11-30T09:14:02.118Z",
		"upstream timed out (110: Connection timed out) while reading response header", "POST /v1/orders?token=abc HTTP/1.1",
		"At 00:01:43.684Z delivery 712f00e8-ddb2-40de-a73c-3b61893ee2d2 of key 1f170a57-3918-453a-ae0d-a8e13bee60e4 reached the server, which committed the request (the proxy logged the server's 201) at 00:01:43.684Z, but the proxy saw the client close the connection (499 client closed request); no retry with the same key followed, so the caller was left with an unknown outcome.",
		"At 00:01:43.684Z delivery 712f00e8-ddb2-40de-a73c-3b61893ee2d2 (key 1f170a57-3918-453a-ae0d-a8e13bee60e4) lost its response after the server answered, and 5.001s later the same client 143.26.124.99 sent POST /v1/bookings under a new key 193b877f-836d-4ab9-9d84-8f793160495d, which the server answered too; no tier logged the payloads, so this is a likely, not a proven, retry under a new key.",
		"/var/log/nginx/access.jsonl:129", "9cec7b3a-a693-4801-9820-224b45f549c6", "499 client closed request"}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for _, f := range fields {
			_ = String(f)
		}
	}
}

// BenchmarkClean measures the pre-check alone, on fields with nothing to
// redact: most of what a big report prints.
func BenchmarkClean(b *testing.B) {
	fields := []string{"order created", "/v1/orders", "c9b2decb-ebc7-4a9b-99d6-69712772ef41", "2026-11-30T09:14:02.118Z",
		"At 00:01:43.684Z delivery 712f00e8-ddb2-40de-a73c-3b61893ee2d2 of key 1f170a57-3918-453a-ae0d-a8e13bee60e4 reached the server, which committed the request (the proxy logged the server's 201) at 00:01:43.684Z, but the proxy saw the client close the connection (499 client closed request); no retry with the same key followed, so the caller was left with an unknown outcome.",
		"At 00:01:43.684Z delivery 712f00e8-ddb2-40de-a73c-3b61893ee2d2 (key 1f170a57-3918-453a-ae0d-a8e13bee60e4) lost its response after the server answered, and 5.001s later the same client 143.26.124.99 sent POST /v1/bookings under a new key 193b877f-836d-4ab9-9d84-8f793160495d, which the server answered too; no tier logged the payloads, so this is a likely, not a proven, retry under a new key.",
		"/var/log/nginx/access.jsonl:129", "9cec7b3a-a693-4801-9820-224b45f549c6", "499 client closed request"}
	n := 0
	for _, f := range fields {
		n += len(f)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for _, f := range fields {
			_ = String(f)
		}
	}
}
