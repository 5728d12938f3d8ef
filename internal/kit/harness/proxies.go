package harness

import (
	"fmt"
	"testing"

	"github.com/idem-cli/idem/internal/kit/capture"
)

// The proxies' routes make a request end each way the plan needs: /v1/slow/
// has a 500 ms upstream timeout, /v1/down/ goes to an upstream nothing
// listens on, everything else to the backend.

// nginxHTTP is the http block of StartNginx's config.
const nginxHTTP = `  proxy_http_version 1.1;
  proxy_set_header X-Request-ID $req_id;
  proxy_next_upstream off;
  server {
    listen 127.0.0.1:%[1]d;
    set $proxy_upstream_name "default-orders-8080";
    set $proxy_alternative_upstream_name "";
    location / {
      proxy_pass http://%[2]s;
    }
    location /v1/slow/ {
      proxy_read_timeout 500ms;
      proxy_pass http://%[2]s;
    }
    location /v1/down/ {
      set $proxy_upstream_name "default-gone-8080";
      proxy_pass http://%[3]s;
    }
  }
`

// The access logs StartNginx writes side by side for the same traffic.
const (
	nginxJSONLog     = "access.json.log"     // capture.NginxJSON
	nginxCombinedLog = "access.combined.log" // capture.NginxCombined
	nginxIngressLog  = "access.ingress.log"  // capture.NginxIngress: ingress-nginx's default, which writes no key
	nginxVHostLog    = "access.vhost.log"    // capture.NginxVHost
)

// startNginx runs nginx in front of upstream, with down as an upstream
// nothing listens on, writing its four access logs.
func startNginx(t testing.TB, upstream, down string) *capture.Proxy {
	t.Helper()
	return capture.StartNginx(t, capture.NginxConfig{
		Logs: []capture.AccessLog{
			{File: nginxJSONLog, Format: capture.NginxJSON},
			{File: nginxCombinedLog, Format: capture.NginxCombined},
			{File: nginxIngressLog, Format: capture.NginxIngress},
			{File: nginxVHostLog, Format: capture.NginxVHost},
		},
		HTTP: func(port int) string { return fmt.Sprintf(nginxHTTP, port, upstream, down) },
	})
}

// egressLog is the access log of StartEgress.
const egressLog = "egress.json.log"

// egressHTTP is the http block of StartEgress's config.
const egressHTTP = `  proxy_http_version 1.1;
  proxy_next_upstream off;
  server {
    listen 127.0.0.1:%[1]d;
    location / {
      proxy_pass http://%[2]s;
    }
  }
`

// startEgress runs nginx as the egress proxy in front of a provider at
// upstream, logging each call as the provider's side (capture.NginxProvider).
func startEgress(t testing.TB, upstream string) *capture.Proxy {
	t.Helper()
	return capture.StartNginx(t, capture.NginxConfig{
		Logs: []capture.AccessLog{{File: egressLog, Format: capture.NginxProvider}},
		HTTP: func(port int) string { return fmt.Sprintf(egressHTTP, port, upstream) },
	})
}

// haProxyLog is the access log of StartHAProxy.
const haProxyLog = "haproxy.log"

// haproxyRoutes are StartHAProxy's frontend rules and backends.
const haproxyRoutes = `  use_backend slow if { path_beg /v1/slow/ }
  use_backend down if { path_beg /v1/down/ }
  default_backend app

backend app
  server app1 %[1]s

backend slow
  timeout server 500ms
  server app1 %[1]s

backend down
  server gone %[2]s
`

// startHAProxy runs HAProxy with option httplog in front of upstream,
// capturing the named request headers in that order.
func startHAProxy(t testing.TB, upstream, down string, captures ...string) *capture.Proxy {
	t.Helper()
	return capture.StartHAProxy(t, capture.HAProxyConfig{
		Log:      capture.AccessLog{File: haProxyLog, Format: capture.HAProxyHTTPLog},
		Captures: captures,
		Routes:   fmt.Sprintf(haproxyRoutes, upstream, down),
	})
}

// caddyLog is the access log of StartCaddy.
const caddyLog = "access.json"

// caddyRoutes are StartCaddy's handlers.
const caddyRoutes = `	handle /v1/slow/* {
		reverse_proxy %[1]s {
			transport http {
				response_header_timeout 500ms
			}
		}
	}
	handle /v1/down/* {
		reverse_proxy %[2]s
	}
	handle {
		reverse_proxy %[1]s
	}
`

// startCaddy runs Caddy with its JSON access log in front of upstream.
func startCaddy(t testing.TB, upstream, down string) *capture.Proxy {
	t.Helper()
	return capture.StartCaddy(t, capture.CaddyConfig{
		Log:    capture.AccessLog{File: caddyLog, Format: capture.CaddyJSON},
		Routes: fmt.Sprintf(caddyRoutes, upstream, down),
	})
}

// Down is an address nothing listens on: the upstream of /v1/down/.
func Down(t testing.TB) string { return capture.Addr(capture.FreePort(t)) }

// RunNginx runs nginx with the http block that http writes (dir is
// nginx's prefix, port its port); the gateway's tests put nginx in front
// of its replicas with it.
func RunNginx(t testing.TB, http func(dir string, port int) string) *capture.Proxy {
	t.Helper()
	dir := t.TempDir()
	return capture.StartNginx(t, capture.NginxConfig{Dir: dir, HTTP: func(port int) string { return http(dir, port) }})
}
