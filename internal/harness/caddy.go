package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// caddyfile is Caddy as a reverse proxy with its JSON access log, its
// admin endpoint off and no HTTPS (loopback only).
const caddyfile = `{
	admin off
	auto_https off
	storage file_system %[1]s/data
}

http://127.0.0.1:%[2]d {
	bind 127.0.0.1
	log {
		output file %[1]s/access.json
		format json
	}
	handle /v1/slow/* {
		reverse_proxy %[3]s {
			transport http {
				response_header_timeout 500ms
			}
		}
	}
	handle /v1/down/* {
		reverse_proxy %[4]s
	}
	handle {
		reverse_proxy %[3]s
	}
}
`

// Caddy is a running Caddy.
type Caddy struct {
	URL string
	Log string
	Dir string
}

// StartCaddy runs Debian's Caddy in front of upstream.
func StartCaddy(t testing.TB, upstream, down string) *Caddy {
	t.Helper()
	bin := Tool(t, "apt-get install caddy", "caddy", "/usr/bin/caddy")
	dir := t.TempDir()
	port := FreePort(t)
	conf := WriteFile(t, dir, "Caddyfile", fmt.Sprintf(caddyfile, dir, port, upstream, down))
	c := &Caddy{URL: "http://" + Addr(port), Log: filepath.Join(dir, "access.json"), Dir: dir}
	env := []string{"HOME=" + dir, "XDG_DATA_HOME=" + dir + "/data", "XDG_CONFIG_HOME=" + dir + "/config"}
	Start(t, "caddy", nil, env, bin, []string{"run", "--config", conf, "--adapter", "caddyfile"}, Addr(port))
	return c
}

// Config is the Caddyfile it runs.
func (c *Caddy) Config() string {
	b, _ := os.ReadFile(filepath.Join(c.Dir, "Caddyfile"))
	return string(b)
}
