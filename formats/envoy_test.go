package formats

import (
	"testing"

	"github.com/idem-cli/idem/model"
)

// Envoy's and Istio's text lines are the ones their stock formats write,
// with the key appended or not; a line with a bare operator left empty, or
// a line Envoy does not write, is not one.
func TestEnvoyTextReadsItsStockFormats(t *testing.T) {
	const (
		envoy = `[2026-12-01T09:00:00.101Z] "POST /v1/orders HTTP/1.1" 201 - 57 15 311 309 "10.0.0.7" "okhttp/4.12.0" ` +
			`"c9b2decb-ebc7-4a9b-99d6-69712772ef41" "orders.shop:8080" "10.244.1.7:8080"`
		istio = `[2026-11-30T09:14:02.114Z] "POST /v1/orders HTTP/1.1" 503 UF upstream_reset_before_response_started{connection_failure} - ` +
			`"delayed_connect_error:_111" 312 91 3 - "-" "okhttp/4.12.0" "c9b2decb-ebc7-4a9b-99d6-69712772ef41" "shop.example.com" ` +
			`"10.44.1.27:8080" outbound|8080||api - 10.44.1.27:8080 10.0.0.7:51544 - default`
		rid = "c9b2decb-ebc7-4a9b-99d6-69712772ef41"
		key = "5d41402abc4b2a76b9719d911017c592"
	)
	for _, tc := range []struct {
		name, line, rid, key, detail, client string
		read                                 bool
	}{
		{"envoy's", envoy, rid, "", "", "10.0.0.7", true},
		{"envoy's, the key appended quoted", envoy + ` "` + key + `"`, rid, key, "", "10.0.0.7", true},
		{"envoy's, the key appended bare", envoy + ` ` + key, rid, key, "", "10.0.0.7", true},
		{"envoy's, more appended that is no key", envoy + ` "10.225.192.17, 10.2.2.1" x`, rid, "", "", "10.0.0.7", true},
		{"istio's: every reason, the client without its port", istio, rid, "",
			"UF upstream_reset_before_response_started{connection_failure} delayed_connect_error:_111", "10.0.0.7", true},
		{"istio's, the key appended", istio + ` "` + key + `"`, rid, key,
			"UF upstream_reset_before_response_started{connection_failure} delayed_connect_error:_111", "10.0.0.7", true},
		{"a bare operator left empty", `[2026-12-01T09:00:00.101Z] "POST /v1/orders HTTP/1.1" 201 - 57  311 309 "10.0.0.7" "okhttp/4.12.0" ` +
			`"r-1" "orders.shop:8080" "10.244.1.7:8080"`, "", "", "", "", false},
		{"bytes that are no number", `[2026-12-01T09:00:00.101Z] "POST /v1/orders HTTP/1.1" 201 - x 15 311 309 "10.0.0.7" "okhttp/4.12.0" ` +
			`"r-1" "orders.shop:8080" "10.244.1.7:8080"`, "", "", "", "", false},
		{"a time that is none", `[yesterday] "POST /v1/orders HTTP/1.1" 201 - 57 15 311 309 "10.0.0.7" "okhttp/4.12.0" ` +
			`"r-1" "orders.shop:8080" "10.244.1.7:8080"`, "", "", "", "", false},
		{"no method", `[2026-12-01T09:00:00.101Z] "- - -" 400 DPE 0 11 0 - "-" "-" "-" "-" "-"`, "", "", "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewParser(nil, nil)
			var res Result
			p.Into(&res)
			read := readEnvoyText(p, tc.line, model.Source{File: "envoy.log", Line: 1})
			if read != tc.read {
				t.Fatalf("read %v, want %v", read, tc.read)
			}
			if !read {
				return
			}
			if o := res.Obs[0]; o.RequestID != tc.rid || o.Key != tc.key || o.Detail != tc.detail || o.Client != tc.client {
				t.Errorf("request id %q, key %q, detail %q, client %q; want %q, %q, %q, %q",
					o.RequestID, o.Key, o.Detail, o.Client, tc.rid, tc.key, tc.detail, tc.client)
			}
		})
	}
}

// BenchmarkEnvoyTextLine reads Envoy's and Istio's default text lines
// (the samples, and the wrapped ones unwrapped), the observation made.
func BenchmarkEnvoyTextLine(b *testing.B) {
	var lines []string
	size := 0
	for _, s := range envoyTextFormat.Samples[:2] {
		lines = append(lines, s.Line)
		size += len(s.Line) + 1
	}
	src := model.Source{File: "envoy.log", Line: 1}
	p := NewParser(nil, nil)
	var res Result
	p.Into(&res)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range lines {
			if !readEnvoyText(p, s, src) {
				b.Fatal("not read")
			}
		}
		res.Obs = res.Obs[:0]
	}
}
