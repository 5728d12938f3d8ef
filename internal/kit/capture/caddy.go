package capture

import (
	"fmt"
	"path/filepath"
	"testing"
)

// CaddyConfig is what a capture asks of Caddy.
type CaddyConfig struct {
	// Log is the site's access log.
	Log AccessLog
	// Routes are the site's handlers (reverse_proxy, handle blocks).
	Routes string
}

// caddyfile is Caddy serving one site on a loopback port with its access
// log, its admin endpoint off and no HTTPS (loopback only).
const caddyfile = `{
	admin off
	auto_https off
	storage file_system %[1]s/data
}

http://127.0.0.1:%[2]d {
	bind 127.0.0.1
	log {
		output file %[3]s
		%[4]s
	}
%[5]s}
`

// StartCaddy runs Debian's Caddy on a free loopback port with the config
// c describes, and stops it at the test's end.
func StartCaddy(t testing.TB, c CaddyConfig) *Proxy {
	t.Helper()
	bin := Tool(t, "apt-get install caddy", "caddy")
	if c.Log.Format.Proxy != "caddy" {
		t.Fatalf("Caddy cannot write %s's format %s", c.Log.Format.Proxy, c.Log.Format.Name)
	}
	dir := t.TempDir()
	port := FreePort(t)
	conf := WriteFile(t, dir, "Caddyfile", fmt.Sprintf(caddyfile, dir, port, filepath.Join(dir, c.Log.File), c.Log.Format.Def, c.Routes))
	p := newProxy(dir, port, conf, []AccessLog{c.Log})
	p.version = []string{"caddy", bin, "version"}
	env := []string{"HOME=" + dir, "XDG_DATA_HOME=" + dir + "/data", "XDG_CONFIG_HOME=" + dir + "/config"}
	p.proc = Start(t, Cmd{Name: "caddy", Bin: bin, Args: []string{"run", "--config", conf, "--adapter", "caddyfile"}, Env: env,
		Listen: []string{p.Addr}})
	return p
}
