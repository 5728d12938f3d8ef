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
	ApacheReorderedLog = "apache.reordered.log" // capture.ApacheReordered
	ApacheIdemLog      = "apache.idem.log"      // capture.ApacheIdem
	TomcatEpochLog     = "tomcat.epoch.log"     // capture.TomcatEpoch
	TomcatStockLog     = "tomcat.stock.log"     // capture.TomcatStock
	LighttpdLog        = "lighttpd.both.log"    // capture.LighttpdBoth
	VarnishLog         = "varnish.iso.log"      // capture.VarnishISO
	NginxPipedLog      = "nginx.piped.log"      // capture.NginxPiped
	NginxNestedLog     = "nginx.nested.log"     // capture.NginxNestedJSON
	HAProxyLog         = "haproxy.captured.log" // capture.HAProxyCaptured
	SquidNativeLog     = "squid.native.log"     // capture.SquidNative
	SquidIdemLog       = "squid.idem.log"       // capture.SquidIdem
	SquidCombinedLog   = "squid.combined.log"   // capture.SquidCombined
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

// StartApache runs Apache httpd writing both its logs.
func StartApache(t testing.TB, upstream, down string) *capture.Proxy {
	t.Helper()
	return capture.StartApache(t, capture.ApacheConfig{
		Logs: []capture.AccessLog{
			{File: ApacheReorderedLog, Format: capture.ApacheReordered},
			{File: ApacheIdemLog, Format: capture.ApacheIdem},
		},
		Routes: func(int) string { return fmt.Sprintf(apacheRoutes, upstream, down) },
	})
}

// StartTomcat runs Tomcat writing both its logs; it serves the requests
// itself (a 404: no application is deployed).
func StartTomcat(t testing.TB) *capture.Proxy {
	t.Helper()
	return capture.StartTomcat(t, capture.TomcatConfig{Logs: []capture.AccessLog{
		{File: TomcatEpochLog, Format: capture.TomcatEpoch},
		{File: TomcatStockLog, Format: capture.TomcatStock},
	}})
}

// lighttpdRoutes are mod_proxy's upstreams.
const lighttpdRoutes = `proxy.server = ("" => (("host" => "127.0.0.1", "port" => %[1]s)))
$HTTP["url"] =~ "^/v1/down/" {
  proxy.server = ("" => (("host" => "127.0.0.1", "port" => %[2]s)))
}
`

// StartLighttpd runs lighttpd in front of upstream.
func StartLighttpd(t testing.TB, upstream, down string) *capture.Proxy {
	t.Helper()
	return capture.StartLighttpd(t, capture.LighttpdConfig{
		Log:    capture.AccessLog{File: LighttpdLog, Format: capture.LighttpdBoth},
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

// StartVarnish runs Varnish in front of upstream with varnishncsa logging.
func StartVarnish(t testing.TB, upstream, down string) *capture.Proxy {
	t.Helper()
	return capture.StartVarnish(t, capture.VarnishConfig{
		Log: capture.AccessLog{File: VarnishLog, Format: capture.VarnishISO},
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

// StartNginx runs nginx writing its two unusual logs.
func StartNginx(t testing.TB, upstream, down string) *capture.Proxy {
	t.Helper()
	return capture.StartNginx(t, capture.NginxConfig{
		Logs: []capture.AccessLog{{File: NginxPipedLog, Format: capture.NginxPiped}, {File: NginxNestedLog, Format: capture.NginxNestedJSON}},
		HTTP: func(p int) string { return fmt.Sprintf(nginxHTTP, p, upstream, down) },
	})
}

// HAProxyCaptures are the request headers StartHAProxy captures, in order.
var HAProxyCaptures = []string{"X-Request-Id", "Idempotency-Key"}

// haproxyRoutes are StartHAProxy's frontend rules and backends.
const haproxyRoutes = `  use_backend down if { path_beg /v1/down/ }
  default_backend app

backend app
  server app1 %[1]s

backend down
  server gone %[2]s
`

// StartHAProxy runs HAProxy with its unusual log-format.
func StartHAProxy(t testing.TB, upstream, down string) *capture.Proxy {
	t.Helper()
	return capture.StartHAProxy(t, capture.HAProxyConfig{
		Log:      capture.AccessLog{File: HAProxyLog, Format: capture.HAProxyCaptured},
		Captures: HAProxyCaptures,
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

// StartSquid runs squid as a reverse proxy writing its native log, its
// combined log and one with the ids.
func StartSquid(t testing.TB, upstream, down string) *capture.Proxy {
	t.Helper()
	return capture.StartSquid(t, capture.SquidConfig{
		Logs: []capture.AccessLog{{File: SquidNativeLog, Format: capture.SquidNative}, {File: SquidIdemLog, Format: capture.SquidIdem},
			{File: SquidCombinedLog, Format: capture.SquidCombined}},
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
