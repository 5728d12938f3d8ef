package redact

import "testing"

// BenchmarkString measures redaction of the fields reports print: most
// hold no secret, some hold a URL or a route.
func BenchmarkString(b *testing.B) {
	fields := []string{"order created", "/v1/orders", "https://shop.example.com/v1/orders?page=2", "c9b2decb-ebc7-4a9b-99d6-69712772ef41",
		"sha256:0da6983d5be4c82203ac1bd602fa40926c7f8ce5c44253057c3d4618e3f7880e", "idempotency reservation", "2026-11-30T09:14:02.118Z",
		"upstream timed out (110: Connection timed out) while reading response header", "POST /v1/orders?token=abc HTTP/1.1"}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for _, f := range fields {
			_ = String(f)
		}
	}
}
