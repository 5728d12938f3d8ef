package capture

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// TestProxies sends one request through each proxy the kit starts, in
// front of a backend, and checks that every access log it names holds it
// in its format.
func TestProxies(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusCreated) }))
	defer backend.Close()
	upstream := strings.TrimPrefix(backend.URL, "http://")
	tests := []struct {
		name  string
		start func(t *testing.T) *Proxy
		// in is a piece of every log's line the format writes
		in map[string]string
	}{
		{"nginx", func(t *testing.T) *Proxy {
			return StartNginx(t, NginxConfig{
				Logs: []AccessLog{{File: "a.json", Format: NginxJSON}, {File: "b.log", Format: NginxCombined}, {File: "c.json", Format: NginxJSON}},
				HTTP: func(port int) string {
					return fmt.Sprintf("  server {\n    listen 127.0.0.1:%d;\n    location / { proxy_pass %s; }\n  }\n", port, backend.URL)
				},
			})
		}, map[string]string{"a.json": `"status":"201"`, "b.log": `"POST /v1/orders HTTP/1.1" 201`, "c.json": `"request_method":"POST"`}},
		{"haproxy", func(t *testing.T) *Proxy {
			return StartHAProxy(t, HAProxyConfig{Log: AccessLog{File: "haproxy.log", Format: HAProxyHTTPLog}, Captures: []string{"X-Request-Id"},
				Routes: "  default_backend app\n\nbackend app\n  server app1 " + upstream + "\n"})
		}, map[string]string{"haproxy.log": `"POST /v1/orders HTTP/1.1"`}},
		{"caddy", func(t *testing.T) *Proxy {
			return StartCaddy(t, CaddyConfig{Log: AccessLog{File: "access.json", Format: CaddyJSON}, Routes: "\treverse_proxy " + upstream + "\n"})
		}, map[string]string{"access.json": `"status":201`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.start(t)
			s := Send(context.Background(), Request{Step: "one", Base: p.URL, Path: "/v1/orders", RequestID: NewID(), Body: "{}"})
			if s.Status != http.StatusCreated {
				t.Fatalf("through %s: %+v", tt.name, s)
			}
			logs := p.Logs()
			if len(logs) != len(tt.in) {
				t.Fatalf("logs %v, want %d", logs, len(tt.in))
			}
			for file, path := range logs {
				WaitLogged(t, []Sent{s}, path)
				b, err := os.ReadFile(p.Log(file))
				if err != nil || !strings.Contains(string(b), tt.in[file]) {
					t.Errorf("%s: %v, without %s: %s", file, err, tt.in[file], b)
				}
			}
			if p.Software() == "" || !strings.Contains(p.Config(), p.Addr) {
				t.Errorf("software %q, config %s", p.Software(), p.Config())
			}
			p.Stop()
			if _, err := http.Get(p.URL); err == nil {
				t.Errorf("%s still answers after Stop", tt.name)
			}
		})
	}
}

func TestNginxDefinesEachFormatOnce(t *testing.T) {
	p := StartNginx(t, NginxConfig{
		Logs: []AccessLog{{File: "a.json", Format: NginxJSON}, {File: "b.json", Format: NginxJSON}, {File: "i.log", Format: NginxIngress}},
		HTTP: func(port int) string {
			return fmt.Sprintf("  server {\n    listen 127.0.0.1:%d;\n    set $proxy_upstream_name \"x\";\n    set $proxy_alternative_upstream_name \"\";\n  }\n", port)
		},
	})
	conf := p.Config()
	if strings.Count(conf, "log_format idem_json ") != 1 || strings.Count(conf, " idem_json;") != 2 || !strings.Contains(conf, "map $http_x_request_id $req_id") {
		t.Fatalf("config:\n%s", conf)
	}
}
