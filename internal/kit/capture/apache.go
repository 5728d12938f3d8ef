package capture

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// ApacheConfig is what a capture asks of Apache httpd.
type ApacheConfig struct {
	// Logs are the access logs it writes, each in its named format.
	Logs []AccessLog
	// Routes are the server's proxy directives (ProxyPass, <Proxy
	// balancer://…>, RequestHeader), given the port it listens on,
	// ending with a newline.
	Routes func(port int) string
}

// apacheModules are the modules the captures load, from Debian's
// apache2-bin: the event MPM, mod_unique_id's id for each request,
// mod_headers to pass it on, and mod_proxy with its HTTP and balancer
// parts.
var apacheModules = []string{"mpm_event", "authz_core", "unique_id", "headers", "proxy", "proxy_http", "proxy_balancer",
	"slotmem_shm", "lbmethod_byrequests"}

// apacheConf is Apache httpd with its own server root, pid file, error
// log and runtime directory in a directory of the test's, listening on a
// loopback port, never the packaged service's config.
const apacheConf = `ServerRoot %[1]s
ServerName 127.0.0.1
Listen 127.0.0.1:%[2]d
PidFile %[1]s/httpd.pid
DefaultRuntimeDir %[1]s/run
ErrorLog %[1]s/error.log
LogLevel warn
%[3]s
%[4]s%[5]s`

// StartApache runs Debian's Apache httpd (apache2) on a free loopback
// port in the foreground (-DFOREGROUND) with the config c describes, and
// stops it at the test's end; Stop is its graceful stop (SIGWINCH), which
// lets the requests it serves finish and be logged.
func StartApache(t testing.TB, c ApacheConfig) *Proxy {
	t.Helper()
	bin := Tool(t, "apt-get install apache2", "apache2")
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "run"), 0o755); err != nil {
		t.Fatal(err)
	}
	var mods, logs strings.Builder
	for _, m := range apacheModules {
		fmt.Fprintf(&mods, "LoadModule %s_module /usr/lib/apache2/modules/mod_%s.so\n", m, m)
	}
	defined := map[string]bool{}
	for _, l := range c.Logs {
		if l.Format.Proxy != "apache" {
			t.Fatalf("Apache cannot write %s's format %s", l.Format.Proxy, l.Format.Name)
		}
		if !defined[l.Format.Name] {
			defined[l.Format.Name] = true
			logs.WriteString(l.Format.Def + "\n")
		}
		fmt.Fprintf(&logs, "CustomLog %s %s\n", filepath.Join(dir, l.File), l.Format.Name)
	}
	port := FreePort(t)
	conf := WriteFile(t, dir, "httpd.conf", fmt.Sprintf(apacheConf, dir, port, mods.String(), logs.String(), c.Routes(port)))
	p := newProxy(dir, port, conf, c.Logs)
	p.version = []string{"apache2", bin, "-v"}
	// Debian's apache2 wants its envvars only with its own config; a
	// config of the test's needs none of them.
	p.proc = Start(t, Cmd{Name: "apache2", Bin: bin, Args: []string{"-f", conf, "-DFOREGROUND"},
		Listen: []string{p.Addr}, Graceful: syscall.SIGWINCH})
	return p
}
