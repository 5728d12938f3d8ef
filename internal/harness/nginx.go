package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// NginxLogs are the access logs nginx writes side by side for the
// same traffic.
type NginxLogs struct {
	JSON     string // log_format escape=json keyed by nginx variable names
	Combined string // the combined format with the request time, upstream status, request id and key appended
	Ingress  string // ingress-nginx's default log-format-upstream
	VHost    string // vhost_combined (the virtual host first) with the same fields appended
}

// NginxJSONFormat is the JSON log_format, keyed by nginx variable names.
const NginxJSONFormat = `log_format idem_json escape=json '{"time_iso8601":"$time_iso8601","msec":"$msec",'
    '"request_id":"$request_id","http_x_request_id":"$http_x_request_id",'
    '"http_idempotency_key":"$http_idempotency_key","remote_addr":"$remote_addr",'
    '"request_method":"$request_method","request_uri":"$request_uri","status":"$status",'
    '"request_time":"$request_time","upstream_addr":"$upstream_addr",'
    '"upstream_status":"$upstream_status","upstream_response_time":"$upstream_response_time",'
    '"http_user_agent":"$http_user_agent"}';`

// NginxCombinedFormat is combined with the fields idem needs appended, in
// the order formats/combined.go reads them by shape.
const NginxCombinedFormat = `log_format idem_combined '$remote_addr - $remote_user [$time_local] "$request" '
    '$status $body_bytes_sent "$http_referer" "$http_user_agent" '
    '$request_time "$upstream_status" "$http_x_request_id" "$http_idempotency_key"';`

// NginxVHostFormat is Apache's vhost_combined (the virtual host and port
// before the address), as nginx setups copy it, with the combined
// format's fields appended.
const NginxVHostFormat = `log_format vhost_combined '$host:$server_port $remote_addr - $remote_user [$time_local] "$request" '
    '$status $body_bytes_sent "$http_referer" "$http_user_agent" '
    '$request_time "$upstream_status" "$http_x_request_id" "$http_idempotency_key"';`

// IngressFormat is ingress-nginx's default log-format-upstream, as its
// documentation gives it (user-guide/nginx-configuration/log-format):
// $proxy_upstream_name, $proxy_alternative_upstream_name and $req_id are
// the controller's variables, defined below as its nginx.tmpl does.
const IngressFormat = `log_format upstreaminfo
    '$remote_addr - $remote_user [$time_local] "$request" '
    '$status $body_bytes_sent "$http_referer" "$http_user_agent" '
    '$request_length $request_time [$proxy_upstream_name] [$proxy_alternative_upstream_name] $upstream_addr '
    '$upstream_response_length $upstream_response_time $upstream_status $req_id';`

// nginxHTTP is the http block of StartNginx's configuration.
const nginxHTTP = `  %[5]s
  %[6]s
  %[7]s
  %[9]s
  # ingress-nginx's nginx.tmpl: a client's X-Request-ID is kept, else
  # nginx makes one.
  map $http_x_request_id $req_id {
    default $http_x_request_id;
    ""      $request_id;
  }
  access_log %[2]s/access.json.log idem_json;
  access_log %[2]s/access.combined.log idem_combined;
  access_log %[2]s/access.ingress.log upstreaminfo;
  access_log %[2]s/access.vhost.log vhost_combined;
  proxy_http_version 1.1;
  proxy_set_header X-Request-ID $req_id;
  proxy_next_upstream off;
  server {
    listen 127.0.0.1:%[3]d;
    set $proxy_upstream_name "default-orders-8080";
    set $proxy_alternative_upstream_name "";
    location / {
      proxy_pass http://%[4]s;
    }
    location /v1/slow/ {
      proxy_read_timeout 500ms;
      proxy_pass http://%[4]s;
    }
    location /v1/down/ {
      set $proxy_upstream_name "default-gone-8080";
      proxy_pass http://%[8]s;
    }
  }
`

// Nginx is a running nginx.
type Nginx struct {
	URL  string
	Logs NginxLogs
	Dir  string
	proc *Proc
}

// StartNginx runs Debian's nginx (its own prefix in a temporary
// directory) in front of upstream, with down as an upstream nothing
// listens on.
func StartNginx(t testing.TB, upstream, down string) *Nginx {
	t.Helper()
	n := RunNginx(t, func(dir string, port int) string {
		return fmt.Sprintf(nginxHTTP, "", dir, port, upstream,
			NginxJSONFormat, NginxCombinedFormat, IngressFormat, down, NginxVHostFormat)
	})
	n.Logs = NginxLogs{
		JSON:     filepath.Join(n.Dir, "access.json.log"),
		Combined: filepath.Join(n.Dir, "access.combined.log"),
		Ingress:  filepath.Join(n.Dir, "access.ingress.log"),
		VHost:    filepath.Join(n.Dir, "access.vhost.log"),
	}
	return n
}

// nginxMain is what every configuration here starts with: nginx in the
// foreground with its own prefix (pid, error log, temporary files) in a
// directory of the test's, so that it runs as any user. The http block's
// contents follow.
const nginxMain = `daemon off;
%[1]s
worker_processes 1;
pid %[2]s/nginx.pid;
error_log %[2]s/error.log info;
events { worker_connections 2048; }
http {
  client_body_temp_path %[2]s/tmp/body;
  proxy_temp_path %[2]s/tmp/proxy;
  fastcgi_temp_path %[2]s/tmp/fastcgi;
  uwsgi_temp_path %[2]s/tmp/uwsgi;
  scgi_temp_path %[2]s/tmp/scgi;
%[3]s
}
`

// RunNginx runs Debian's nginx on a free loopback port, its prefix a
// temporary directory, with the http block that http(dir, port) writes;
// it returns once nginx accepts connections, and stops it at the test's
// end. Its Logs are the caller's to name.
func RunNginx(t testing.TB, http func(dir string, port int) string) *Nginx {
	t.Helper()
	bin := Tool(t, "apt-get install nginx", "nginx", "/usr/sbin/nginx")
	dir := t.TempDir()
	for _, d := range []string{"tmp/body", "tmp/proxy", "tmp/fastcgi", "tmp/uwsgi", "tmp/scgi"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;" // workers would drop to nobody and lose the temp dir
	}
	port := FreePort(t)
	conf := WriteFile(t, dir, "nginx.conf", fmt.Sprintf(nginxMain, user, dir, http(dir, port)))
	n := &Nginx{URL: "http://" + Addr(port), Dir: dir}
	n.proc = Start(t, "nginx", nil, nil, bin, []string{"-p", dir, "-c", conf, "-e", filepath.Join(dir, "error.log")}, Addr(port))
	return n
}

// Stop stops nginx gracefully; its port refuses connections afterwards.
func (n *Nginx) Stop() { n.proc.Stop(syscall.SIGQUIT) }

// Config is the nginx.conf it runs.
func (n *Nginx) Config() string {
	b, _ := os.ReadFile(filepath.Join(n.Dir, "nginx.conf"))
	return string(b)
}

// EgressFormat is a log_format in idem's canonical schema
// (docs/log-schema.md) for an egress proxy in front of a third party:
// the line names its tier, provider, so that what went out to the
// provider is read as the provider's side.
const EgressFormat = `log_format provider escape=json '{"time":"$time_iso8601","tier":"provider",'
    '"request_id":"$http_x_request_id","idempotency_key":"$http_idempotency_key",'
    '"method":"$request_method","route":"$uri","status":$status,"msg":"provider call"}';`

// egressHTTP is the http block of StartEgress's configuration.
const egressHTTP = `  %[5]s
  access_log %[2]s/egress.json.log provider;
  proxy_http_version 1.1;
  proxy_next_upstream off;
  server {
    listen 127.0.0.1:%[3]d;
    location / {
      proxy_pass http://%[4]s;
    }
  }
`

// StartEgress runs Debian's nginx as the egress proxy in front of a
// provider at upstream, logging each call in EgressFormat to Logs.JSON.
func StartEgress(t testing.TB, upstream string) *Nginx {
	t.Helper()
	n := RunNginx(t, func(dir string, port int) string {
		return fmt.Sprintf(egressHTTP, "", dir, port, upstream, EgressFormat)
	})
	n.Logs = NginxLogs{JSON: filepath.Join(n.Dir, "egress.json.log")}
	return n
}
