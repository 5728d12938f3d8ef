package capture

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// LighttpdConfig is what a capture asks of lighttpd.
type LighttpdConfig struct {
	// Log is its access log (mod_accesslog), in its named format.
	Log AccessLog
	// Routes are mod_proxy's proxy.server settings, ending with a newline.
	Routes string
}

// lighttpdConf is lighttpd serving on a loopback port, in front of the
// capture's upstreams, with its access log in the capture's format.
const lighttpdConf = `server.document-root = "%[1]s"
server.bind = "127.0.0.1"
server.port = %[2]d
server.errorlog = "%[1]s/error.log"
server.modules = ("mod_proxy", "mod_accesslog")
accesslog.filename = "%[3]s"
accesslog.format = "%[4]s"
%[5]s`

// StartLighttpd runs Debian's lighttpd on a free loopback port in the
// foreground (-D) and stops it at the test's end; Stop is its graceful
// stop (SIGINT), which lets the requests it serves finish.
func StartLighttpd(t testing.TB, c LighttpdConfig) *Proxy {
	t.Helper()
	bin := Tool(t, "apt-get install lighttpd", "lighttpd")
	if c.Log.Format.Proxy != "lighttpd" {
		t.Fatalf("lighttpd cannot write %s's format %s", c.Log.Format.Proxy, c.Log.Format.Name)
	}
	dir := t.TempDir()
	port := FreePort(t)
	format := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(c.Log.Format.Def)
	conf := WriteFile(t, dir, "lighttpd.conf", fmt.Sprintf(lighttpdConf, dir, port, filepath.Join(dir, c.Log.File), format, c.Routes))
	p := newProxy(dir, port, conf, []AccessLog{c.Log})
	p.version = []string{"lighttpd", bin, "-v"}
	p.proc = Start(t, Cmd{Name: "lighttpd", Bin: bin, Args: []string{"-D", "-f", conf}, Listen: []string{p.Addr}, Graceful: syscall.SIGINT})
	return p
}
