package grammarharness

import (
	"fmt"
	"strings"
	"testing"

	"github.com/idem-cli/idem/internal/kit/capture"
)

// The proxies' routes: /v1/down/ goes to an upstream nothing listens on,
// everything else to the backend.

// The logs each proxy writes.
const (
	apacheReorderedLog = "apache.reordered.log" // capture.ApacheReordered
	apacheIdemLog      = "apache.idem.log"      // capture.ApacheIdem
	tomcatEpochLog     = "tomcat.epoch.log"     // capture.TomcatEpoch
	tomcatStockLog     = "tomcat.stock.log"     // capture.TomcatStock
	lighttpdLog        = "lighttpd.both.log"    // capture.LighttpdBoth
	varnishLog         = "varnish.iso.log"      // capture.VarnishISO
	nginxPipedLog      = "nginx.piped.log"      // capture.NginxPiped
	nginxNestedLog     = "nginx.nested.log"     // capture.NginxNestedJSON
	haProxyLog         = "haproxy.captured.log" // capture.HAProxyCaptured
	squidNativeLog     = "squid.native.log"     // capture.SquidNative
	squidIdemLog       = "squid.idem.log"       // capture.SquidIdem
	squidCombinedLog   = "squid.combined.log"   // capture.SquidCombined
)

// apacheRoutes put mod_proxy_balancer in front of the backend, pass on
// mod_unique_id's id where the client sent no X-Request-Id, and send
// /v1/down/ to nothing.
const apacheRoutes = `ProxyRequests Off
RequestHeader setifempty X-Request-Id %%{UNIQUE_ID}e
ProxyPass /v1/down/ http://%[2]s/v1/down/
ProxyPass / balancer://app/
<Proxy balancer://app>
  BalancerMember http://%[1]s
</Proxy>
`

// startApache runs Apache httpd writing both its logs.
func startApache(t testing.TB, upstream, down string) *capture.Proxy {
	t.Helper()
	return capture.StartApache(t, capture.ApacheConfig{
		Logs: []capture.AccessLog{
			{File: apacheReorderedLog, Format: capture.ApacheReordered},
			{File: apacheIdemLog, Format: capture.ApacheIdem},
		},
		Routes: func(int) string { return fmt.Sprintf(apacheRoutes, upstream, down) },
	})
}

// startTomcat runs Tomcat writing both its logs; it serves the requests
// itself (a 404: no application is deployed).
func startTomcat(t testing.TB) *capture.Proxy {
	t.Helper()
	return capture.StartTomcat(t, capture.TomcatConfig{Logs: []capture.AccessLog{
		{File: tomcatEpochLog, Format: capture.TomcatEpoch},
		{File: tomcatStockLog, Format: capture.TomcatStock},
	}})
}

// lighttpdRoutes are mod_proxy's upstreams.
const lighttpdRoutes = `proxy.server = ("" => (("host" => "127.0.0.1", "port" => %[1]s)))
$HTTP["url"] =~ "^/v1/down/" {
  proxy.server = ("" => (("host" => "127.0.0.1", "port" => %[2]s)))
}
`

// startLighttpd runs lighttpd in front of upstream.
func startLighttpd(t testing.TB, upstream, down string) *capture.Proxy {
	t.Helper()
	return capture.StartLighttpd(t, capture.LighttpdConfig{
		Log:    capture.AccessLog{File: lighttpdLog, Format: capture.LighttpdBoth},
		Routes: fmt.Sprintf(lighttpdRoutes, port(upstream), port(down)),
	})
}

// varnishVCL passes every request to the backend (POSTs are never
// cached), /v1/down/ to nothing.
const varnishVCL = `vcl 4.1;
backend app { .host = "127.0.0.1"; .port = "%[1]s"; }
backend gone { .host = "127.0.0.1"; .port = "%[2]s"; }
sub vcl_recv {
  if (req.url ~ "^/v1/down/") { set req.backend_hint = gone; } else { set req.backend_hint = app; }
  return (pass);
}
`

// startVarnish runs Varnish in front of upstream with varnishncsa logging.
func startVarnish(t testing.TB, upstream, down string) *capture.Proxy {
	t.Helper()
	return capture.StartVarnish(t, capture.VarnishConfig{
		Log: capture.AccessLog{File: varnishLog, Format: capture.VarnishISO},
		VCL: fmt.Sprintf(varnishVCL, port(upstream), port(down)),
	})
}

// nginxHTTP is the http block of StartNginx.
const nginxHTTP = `  proxy_http_version 1.1;
  proxy_set_header X-Request-ID $req_id;
  proxy_next_upstream off;
  server {
    listen 127.0.0.1:%[1]d;
    location / { proxy_pass http://%[2]s; }
    location /v1/down/ { proxy_pass http://%[3]s; }
  }
`

// startNginx runs nginx writing its two unusual logs.
func startNginx(t testing.TB, upstream, down string) *capture.Proxy {
	t.Helper()
	return capture.StartNginx(t, capture.NginxConfig{
		Logs: []capture.AccessLog{{File: nginxPipedLog, Format: capture.NginxPiped}, {File: nginxNestedLog, Format: capture.NginxNestedJSON}},
		HTTP: func(p int) string { return fmt.Sprintf(nginxHTTP, p, upstream, down) },
	})
}

// haProxyCaptures are the request headers StartHAProxy captures, in order.
var haProxyCaptures = []string{"X-Request-Id", "Idempotency-Key"}

// haproxyRoutes are StartHAProxy's frontend rules and backends.
const haproxyRoutes = `  use_backend down if { path_beg /v1/down/ }
  default_backend app

backend app
  server app1 %[1]s

backend down
  server gone %[2]s
`

// startHAProxy runs HAProxy with its unusual log-format.
func startHAProxy(t testing.TB, upstream, down string) *capture.Proxy {
	t.Helper()
	return capture.StartHAProxy(t, capture.HAProxyConfig{
		Log:      capture.AccessLog{File: haProxyLog, Format: capture.HAProxyCaptured},
		Captures: haProxyCaptures,
		Routes:   fmt.Sprintf(haproxyRoutes, upstream, down),
	})
}

// squidRoutes send /v1/down/ to a peer nothing listens on, everything
// else to the backend.
const squidRoutes = `cache_peer %[1]s parent %[2]s 0 no-query originserver name=app
cache_peer %[3]s parent %[4]s 0 no-query originserver name=down
acl down urlpath_regex ^/v1/down/
cache_peer_access down allow down
cache_peer_access down deny all
cache_peer_access app deny down
cache_peer_access app allow all
`

// startSquid runs squid as a reverse proxy writing its native log, its
// combined log and one with the ids.
func startSquid(t testing.TB, upstream, down string) *capture.Proxy {
	t.Helper()
	return capture.StartSquid(t, capture.SquidConfig{
		Logs: []capture.AccessLog{{File: squidNativeLog, Format: capture.SquidNative}, {File: squidIdemLog, Format: capture.SquidIdem},
			{File: squidCombinedLog, Format: capture.SquidCombined}},
		Routes: fmt.Sprintf(squidRoutes, host(upstream), port(upstream), host(down), port(down)),
	})
}

// host is the host of a loopback host:port.
func host(addr string) string { return strings.TrimSuffix(addr, ":"+port(addr)) }

// port is the port of a loopback host:port.
func port(addr string) string {
	for i := len(addr) - 1; i >= 0; i-- {
		if addr[i] == ':' {
			return addr[i+1:]
		}
	}
	return addr
}
