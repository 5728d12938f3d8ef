package capture

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// HAProxyConfig is what a capture asks of HAProxy.
type HAProxyConfig struct {
	// Log is the access log: HAProxy writes it to its standard output,
	// which goes to the file.
	Log AccessLog
	// Captures are the request headers captured into the log line, in
	// that order (capture request header NAME len 128).
	Captures []string
	// Routes are the frontend's routing lines (use_backend,
	// default_backend) and the backends, ending with a newline.
	Routes string
}

// haproxyConf is HAProxy logging to stdout in the raw format (what
// containers run: no syslog header) in front of the capture's backends.
const haproxyConf = `global
  log stdout format raw local0
  pidfile %[1]s/haproxy.pid

defaults
  mode http
  log global
  # As Debian's haproxy.cfg: no line for a connection that sent nothing
  # (the kit's readiness probe).
  option dontlognull
  # Without it HAProxy waits for the server and logs its 201 with "----"
  # after the client has gone; with it the line says CH--.
  option abortonclose
  timeout connect 1s
  timeout client 10s
  timeout server 10s

frontend fe
  bind 127.0.0.1:%[3]d
  # The log format is the frontend's: a log-format's sample fetches
  # need the HTTP request the frontend has.
  %[2]s
%[4]s%[5]s`

// StartHAProxy runs Debian's HAProxy on a free loopback port with the
// config c describes, in the foreground, and stops it at the test's end.
func StartHAProxy(t testing.TB, c HAProxyConfig) *Proxy {
	t.Helper()
	bin := Tool(t, "apt-get install haproxy", "haproxy")
	if c.Log.Format.Proxy != "haproxy" {
		t.Fatalf("HAProxy cannot write %s's format %s", c.Log.Format.Proxy, c.Log.Format.Name)
	}
	dir := t.TempDir()
	var caps strings.Builder
	for _, h := range c.Captures {
		fmt.Fprintf(&caps, "  capture request header %s len 128\n", h)
	}
	port := FreePort(t)
	conf := WriteFile(t, dir, "haproxy.cfg", fmt.Sprintf(haproxyConf, dir, c.Log.Format.Def, port, caps.String(), c.Routes))
	p := newProxy(dir, port, conf, []AccessLog{c.Log})
	p.version = []string{"haproxy", bin, "-v"}
	f, err := os.Create(filepath.Join(dir, c.Log.File))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	// -db: stay in the foreground; -W would add a master process.
	p.proc = Start(t, Cmd{Name: "haproxy", Bin: bin, Args: []string{"-db", "-f", conf}, Stdout: f, Listen: []string{p.Addr}})
	return p
}
