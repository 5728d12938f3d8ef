package formats

import (
	"testing"

	"github.com/idem-cli/idem/model"
)

// The values a positional field held in real logs: only generated ids
// may be taken for a request id or a key.
func TestGeneratedIDShapes(t *testing.T) {
	accept := []string{
		"c9b2decb-ebc7-4a9b-99d6-69712772ef41",     // UUID v4 (the harness's X-Request-Id)
		"C9B2DECB-EBC7-4A9B-99D6-69712772EF41",     // in upper case
		`"8e03978e-40d5-43e8-bc93-6894a57f9324"`,   // a structured-field string (the key draft)
		"cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2",     // Envoy's x-request-id
		"14fe277217966d99b9a47cbebced2b9c",         // nginx's $request_id
		"e0726b2e0c22976ac8ccd04d52d7c83b",         // ingress-nginx's $req_id
		"00f067aa0ba902b7",                         // 16 hex digits
		"01ARZ3NDEKTSV4RRFFQ69G5FAV",               // ULID (its spec's example)
		"0ujtsYcgvSTl8PAuAdqWYSMnLOv",              // KSUID (segmentio/ksuid's example)
		"9m4e2mr0ui3e8a215n4g",                     // xid (rs/xid's example)
		"Root=1-58337262-36d228ad5d99923122bbe354", // AWS X-Amzn-Trace-Id
		"Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1",
		"1-5da09932-2c342a443bfb96249aa50ed7",                                // an X-Ray trace id alone
		"projects/kd-ix-eur-dev-gke/traces/2d896f99c8857caa08c77f0d61954778", // Google Cloud
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",            // W3C traceparent
	}
	reject := []string{
		"", "-", `""`,
		"10.225.192.17, 10.2.2.1", // a quoted X-Forwarded-For list
		"127.0.0.1, 127.0.0.2", "10.225.192.17", "127.0.0.1",
		"2a02:6b8:c1b:360d:10b:7acd:0:429a", "::1", // addresses
		"localhost:8888", "combinator.vs.market.yandex.net:8080", "sub.example.com", "1wt.eu", // hosts and host:port
		"http-nio-8080-exec-1",                                                                                  // Tomcat's %I, a thread's name
		"Host-host-1", "Host-api-wearerealitygames-com-2", "https-bk@docker", "websecure-netbird-signal@docker", // Traefik's routers
		"http://172.19.0.3:5601", "http://172.29.0.2:8111", "tcp://10.0.2.1:80", // backend URLs
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6)", "curl/7.68.0", "idem-harness/1", "Android", // user agents
		"10145", "1206629", "1234567890123456", "623112", "2.398", "201", "504, 201", // numbers, %D, counts
		"inbound|8000||", "outbound_.8000_._.httpbin.default.svc.cluster.local", "catalog.istioinaction.io:30000",
		"TLS_AES_128_GCM_SHA256", "ord_12345", "r-9a41e2f9c", "k-1",
		"00000000000000000000000000000000", // W3C's invalid trace id, and a number
		"Root=1-xyz", "deadbeef",
		"backend not found",
		"c9b2decb-ebc7-4a9b-99d6-69712772ef4",   // one digit short
		"c9b2decb-ebc7-4a9b-99d6-69712772ef41x", // one too many
		"c9b2decbXebc7-4a9b-99d6-69712772ef41",
		"aBcDeF0123456789", // hex in two cases is no hex id
	}
	for _, v := range accept {
		if !generatedID(v) {
			t.Errorf("generatedID(%q) = false, want true", v)
		}
	}
	for _, v := range reject {
		if generatedID(v) {
			t.Errorf("generatedID(%q) = true, want false", v)
		}
	}
}

// TestPositionalReadersTakeNoShapeAlike reads real lines whose unnamed
// fields hold values shaped like ids (a forwarded-for list, a router's
// name, a backend's URL, a captured host:port, a thread's name): no
// positional reader may take them for a request id or a key.
func TestPositionalReadersTakeNoShapeAlike(t *testing.T) {
	for _, tc := range []struct {
		name, line, format string
		rid, key           string
	}{
		{
			name:   "nginx combined with a quoted X-Forwarded-For list appended",
			line:   `10.2.2.1 - - [02/Dec/2026:04:09:52 +0000] "POST /v1/orders HTTP/1.1" 201 15 "-" "curl/8.5.0" "10.225.192.17, 10.2.2.1"`,
			format: "combined",
		}, {
			name: "Traefik's common log format: the request count, the router's name, the backend's URL, the duration (elastic/integrations traefik test-format-common.log)",
			line: `192.168.33.1 - - [02/Oct/2017:20:22:07 +0000] "GET /ui/favicons/favicon-16x16.png HTTP/1.1" 304 0 "http://example.com/login" ` +
				`"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/61.0.3163.100 Safari/537.36" 262 "Host-host-1" "http://172.19.0.3:5601" 2ms`,
			format: "combined",
		}, {
			name:   "Tomcat's %a and %I after %D, read with no config",
			line:   `127.0.0.1 - - [02/Dec/2026:04:09:59 +0000] "POST /v1/orders HTTP/1.1" 404 692 "-" "idem-harness/1" 7114 "127.0.0.1" "http-nio-8080-exec-1"`,
			format: "combined",
		}, {
			name: "a Tomcat X-Forwarded-For named in the line (elastic/integrations apache_tomcat test-access.log)",
			line: `81.2.69.144 - admin [02/Mar/2023:18:58:17 +0530] "POST /host-manager/images/asf-logo.svg HTTP/1.1" 200 20486 81.2.69.145 + 400 ` +
				`"http://localhost:8080/host-manager/html" "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/109.0.0.0 Safari/537.36" ` +
				`X-Forwarded-For="127.0.0.1, 127.0.0.2"`,
			format: "combined",
		}, {
			name:   "nginx combined ending in $request_length: no duration, no id",
			line:   `10.2.2.1 - - [02/Dec/2026:04:09:52 +0000] "POST /v1/orders HTTP/1.1" 201 15 "-" "curl/8.5.0" 612`,
			format: "combined",
		}, {
			name:   "HAProxy capturing the Host header as host:port, no capture order in the config",
			line:   `127.0.0.1:50312 [02/Dec/2026:04:10:01.120] fe be/app 0/0/0/3/3 201 120 - - ---- 1/1/0/0/0 0/0 {localhost:8888|curl/8.5.0} "POST /v1/orders HTTP/1.1"`,
			format: "haproxy",
		}, {
			name:   "HAProxy capturing an X-Forwarded-For list and a generated id, unnamed",
			line:   `127.0.0.1:50312 [02/Dec/2026:04:10:01.120] fe be/app 0/0/0/3/3 201 120 - - ---- 1/1/0/0/0 0/0 {10.225.192.17, 10.2.2.1|c9b2decb-ebc7-4a9b-99d6-69712772ef41} "POST /v1/orders HTTP/1.1"`,
			format: "haproxy", rid: "c9b2decb-ebc7-4a9b-99d6-69712772ef41",
		}, {
			name: "Istio's default text line: what follows the upstream host is the cluster and addresses, never a key",
			line: `[2020-11-25T21:26:18.409Z] "GET /status/418 HTTP/1.1" 418 - via_upstream - "-" 0 135 4 4 "-" "curl/7.73.0-DEV" ` +
				`"84961386-6d84-929d-98bd-c5aee93b5c88" "httpbin:8000" "127.0.0.1:80" inbound|8000|| 127.0.0.1:41854 10.44.1.27:80 10.44.1.23:37652 ` +
				`outbound_.8000_._.httpbin.default.svc.cluster.local default`,
			format: "envoy-text", rid: "84961386-6d84-929d-98bd-c5aee93b5c88",
		}, {
			name: "ingress-nginx with a field appended that is no key",
			line: `192.168.0.139 - - [27/Nov/2020:10:04:38 +0000] "GET /api HTTP/2.0" 200 760 "-" "curl/8" 50 1.279 [app-core-80] [] 10.244.4.100:8080 760 1.279 200 ` +
				`e0726b2e0c22976ac8ccd04d52d7c83b "10.225.192.17, 10.2.2.1"`,
			format: "ingress-nginx", rid: "e0726b2e0c22976ac8ccd04d52d7c83b",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewParser(nil, nil)
			var res Result
			p.Into(&res)
			p.Line([]byte(tc.line), model.Source{File: "x.log", Line: 1})
			if len(res.Obs) != 1 {
				t.Fatalf("%d observations, skips %v", len(res.Obs), res.Skips)
			}
			o := res.Obs[0]
			if o.Format != tc.format || o.RequestID != tc.rid || o.Key != tc.key {
				t.Errorf("read as %s, request id %q, key %q; want %s, %q, %q", o.Format, o.RequestID, o.Key, tc.format, tc.rid, tc.key)
			}
			if o.Format == "combined" && o.Duration != 0 && tc.rid == "" && o.Method != "" && o.Status == 201 {
				t.Errorf("duration %s read from an unnamed integer", o.Duration)
			}
		})
	}
}
