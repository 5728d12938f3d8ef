package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// haproxyConf is HAProxy with option httplog, logging to stdout in the raw
// format (what containers run: no syslog header), one backend per way a
// request can end.
const haproxyConf = `global
  log stdout format raw local0
  pidfile %[1]s/haproxy.pid

defaults
  mode http
  log global
  option httplog
  # As Debian's haproxy.cfg: no line for a connection that sent nothing
  # (the harness's readiness probe).
  option dontlognull
  # Without it HAProxy waits for the server and logs its 201 with "----"
  # after the client has gone; with it the line says CH--.
  option abortonclose
  timeout connect 1s
  timeout client 10s
  timeout server 10s

frontend fe
  bind 127.0.0.1:%[2]d
%[3]s
  use_backend slow if { path_beg /v1/slow/ }
  use_backend down if { path_beg /v1/down/ }
  default_backend app

backend app
  server app1 %[4]s

backend slow
  timeout server 500ms
  server app1 %[4]s

backend down
  server gone %[5]s
`

// HAProxy is a running HAProxy.
type HAProxy struct {
	URL      string
	Log      string
	Captures []string
	Dir      string
}

// StartHAProxy runs Debian's HAProxy in front of upstream, capturing the
// named request headers in that order (capture request header NAME len N).
func StartHAProxy(t testing.TB, upstream, down string, captures ...string) *HAProxy {
	t.Helper()
	bin := Tool(t, "apt-get install haproxy", "haproxy", "/usr/sbin/haproxy")
	dir := t.TempDir()
	var caps strings.Builder
	for _, c := range captures {
		fmt.Fprintf(&caps, "  capture request header %s len 128\n", c)
	}
	port := FreePort(t)
	conf := WriteFile(t, dir, "haproxy.cfg", fmt.Sprintf(haproxyConf, dir, port, caps.String(), upstream, down))
	h := &HAProxy{URL: "http://" + Addr(port), Log: filepath.Join(dir, "haproxy.log"), Captures: captures, Dir: dir}
	f, err := os.Create(h.Log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	// -db: stay in the foreground; -W would add a master process.
	Start(t, "haproxy", f, nil, bin, []string{"-db", "-f", conf}, Addr(port))
	return h
}

// Config is the haproxy.cfg it runs.
func (h *HAProxy) Config() string {
	b, _ := os.ReadFile(filepath.Join(h.Dir, "haproxy.cfg"))
	return string(b)
}
