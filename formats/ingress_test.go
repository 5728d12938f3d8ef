package formats

import (
	"testing"

	"github.com/idem-cli/idem/model"
)

// ingress-nginx's lines are the ones its stock format writes, with the key
// appended or not; a line with a bare field left empty, a date nginx does
// not write or a vhost before the address is not one.
func TestIngressReadsItsStockFormat(t *testing.T) {
	const stock = `10.1.2.3 - - [30/Nov/2026:09:14:04 +0000] "POST /v1/orders HTTP/1.1" 201 5 "-" "curl/8" 301 0.398 [shop-api-8080] [] ` +
		`10.244.1.7:8080 5 0.397 201 c9b2decb-ebc7-4a9b-99d6-69712772ef41`
	for _, tc := range []struct {
		name, line, rid, key string
		read                 bool
	}{
		{"stock", stock, "c9b2decb-ebc7-4a9b-99d6-69712772ef41", "", true},
		{"the key appended, quoted", stock + ` "5d41402abc4b2a76b9719d911017c592"`, "c9b2decb-ebc7-4a9b-99d6-69712772ef41", "5d41402abc4b2a76b9719d911017c592", true},
		{"the key appended, bare", stock + ` 5d41402abc4b2a76b9719d911017c592`, "c9b2decb-ebc7-4a9b-99d6-69712772ef41", "5d41402abc4b2a76b9719d911017c592", true},
		{"a field appended that is no key", stock + ` "10.225.192.17, 10.2.2.1"`, "c9b2decb-ebc7-4a9b-99d6-69712772ef41", "", true},
		{"a 400 without a request", `10.1.2.3 - - [30/Nov/2026:09:14:04 +0000] "-" 400 0 "-" "-" 0 0.001 [] [] - - - - 2c1f0d6e8b3a4f5e9d7c6b5a4f3e2d1c`,
			"2c1f0d6e8b3a4f5e9d7c6b5a4f3e2d1c", "", true},
		{"a bare field left empty", `10.1.2.3 - - [30/Nov/2026:09:14:04 +0000] "POST /v1/orders HTTP/1.1" 201 5 "-" "curl/8" 301 0.398 [x] []  5 0.397 201 r-1`,
			"", "", false},
		{"a date nginx does not write", `10.1.2.3 - - [1796030044] "POST /v1/orders HTTP/1.1" 201 5 "-" "curl/8" 301 0.398 [x] [] 10.0.0.1:80 5 0.397 201 r-1`,
			"", "", false},
		{"a vhost before the address", `shop:443 10.1.2.3 - - [30/Nov/2026:09:14:04 +0000] "POST /v1/orders HTTP/1.1" 201 5 "-" "curl/8" 301 0.398 [x] [] ` +
			`10.0.0.1:80 5 0.397 201 r-1`, "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewParser(nil, nil)
			var res Result
			p.Into(&res)
			read := readIngressNginx(p, tc.line, model.Source{File: "ingress.log", Line: 1})
			if read != tc.read {
				t.Fatalf("read %v, want %v", read, tc.read)
			}
			if !read {
				return
			}
			if o := res.Obs[0]; o.RequestID != tc.rid || o.Key != tc.key {
				t.Errorf("request id %q, key %q; want %q, %q", o.RequestID, o.Key, tc.rid, tc.key)
			}
		})
	}
}

// BenchmarkIngressLine reads ingress-nginx's samples (one upstream, and
// nginx's lists), the observation made.
func BenchmarkIngressLine(b *testing.B) {
	var lines []string
	size := 0
	for _, s := range ingressNginxFormat.Samples {
		lines = append(lines, s.Line)
		size += len(s.Line) + 1
	}
	src := model.Source{File: "ingress.log", Line: 1}
	p := NewParser(nil, nil)
	var res Result
	p.Into(&res)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range lines {
			if !readIngressNginx(p, s, src) {
				b.Fatal("not read")
			}
		}
		res.Obs = res.Obs[:0]
	}
}
