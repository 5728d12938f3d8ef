package capture

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// NginxConfig is what a capture asks of nginx.
type NginxConfig struct {
	// Logs are the access logs it writes, each in its named format.
	Logs []AccessLog
	// HTTP is the rest of the http block (proxy settings, servers), given
	// the port to listen on, ending with a newline.
	HTTP func(port int) string
	// Dir is nginx's prefix; a new temporary directory when empty.
	Dir string
}

// nginxConf is what every nginx config of the captures starts with: nginx
// in the foreground with its own prefix (pid, error log, temporary files)
// in a directory of the test's, so that it runs as any user; the formats
// and access logs the capture names; and $req_id, the request id nginx
// passes on (the client's X-Request-Id, else its own), as ingress-nginx's
// nginx.tmpl defines it. The capture's http block follows.
const nginxConf = `daemon off;
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
  map $http_x_request_id $req_id {
    default $http_x_request_id;
    ""      $request_id;
  }
%[3]s%[4]s}
`

// StartNginx runs Debian's nginx on a free loopback port with the config
// c describes; it returns once nginx accepts connections, and stops it at
// the test's end. Stop is nginx's graceful stop (SIGQUIT): it logs what
// it was serving first.
func StartNginx(t testing.TB, c NginxConfig) *Proxy {
	t.Helper()
	bin := Tool(t, "apt-get install nginx", "nginx")
	dir := c.Dir
	if dir == "" {
		dir = t.TempDir()
	}
	for _, d := range []string{"tmp/body", "tmp/proxy", "tmp/fastcgi", "tmp/uwsgi", "tmp/scgi"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;" // workers would drop to nobody and lose the temp dir
	}
	var logs strings.Builder
	defined := map[string]bool{}
	for _, l := range c.Logs {
		if l.Format.Proxy != "nginx" {
			t.Fatalf("nginx cannot write %s's format %s", l.Format.Proxy, l.Format.Name)
		}
		if !defined[l.Format.Name] {
			defined[l.Format.Name] = true
			logs.WriteString("  " + l.Format.Def + "\n")
		}
	}
	for _, l := range c.Logs {
		fmt.Fprintf(&logs, "  access_log %s %s;\n", filepath.Join(dir, l.File), l.Format.Name)
	}
	port := FreePort(t)
	conf := WriteFile(t, dir, "nginx.conf", fmt.Sprintf(nginxConf, user, dir, logs.String(), c.HTTP(port)))
	p := newProxy(dir, port, conf, c.Logs)
	p.version = []string{"nginx", bin, "-v"}
	p.proc = Start(t, Cmd{Name: "nginx", Bin: bin, Args: []string{"-p", dir, "-c", conf, "-e", filepath.Join(dir, "error.log")},
		Listen: []string{p.Addr}, Graceful: syscall.SIGQUIT})
	return p
}
