package capture

import (
	"os"
	"path/filepath"
)

// AccessLog is one access log a proxy writes: the file, in the proxy's
// directory, and its format.
type AccessLog struct {
	File   string
	Format LogFormat
}

// Proxy is a running proxy: nginx, HAProxy or Caddy, on a free loopback
// port, its config, pid and logs in a temporary directory of the test's.
type Proxy struct {
	URL  string // http://127.0.0.1:PORT
	Addr string // 127.0.0.1:PORT, as the next hop of a chain names it
	Dir  string

	version []string // Version's arguments
	config  string   // its config file's path
	logs    []AccessLog
	proc    *Proc
	// after, when set, is a process that writes the proxy's log and stops
	// after it (varnishncsa).
	after *Proc
}

// Log is the path of the access log written to file.
func (p *Proxy) Log(file string) string {
	for _, l := range p.logs {
		if l.File == file {
			return filepath.Join(p.Dir, file)
		}
	}
	panic("capture: the proxy writes no log " + file)
}

// Logs are the paths of its access logs, by file name.
func (p *Proxy) Logs() map[string]string {
	out := map[string]string{}
	for _, l := range p.logs {
		out[l.File] = filepath.Join(p.Dir, l.File)
	}
	return out
}

// Config is the config it runs, as a capture keeps it beside the logs.
func (p *Proxy) Config() string {
	b, _ := os.ReadFile(p.config)
	return string(b)
}

// ConfigName is the name of its config file (nginx.conf, haproxy.cfg,
// Caddyfile).
func (p *Proxy) ConfigName() string { return filepath.Base(p.config) }

// Software names the proxy and its version, as Version does.
func (p *Proxy) Software() string { return Version(p.version[0], p.version[1], p.version[2:]...) }

// Stop stops it gracefully, so that it logs what it was serving first;
// its port refuses connections afterwards.
func (p *Proxy) Stop() {
	p.proc.Stop()
	if p.after != nil {
		p.after.Stop()
	}
}

func newProxy(dir string, port int, config string, logs []AccessLog) *Proxy {
	return &Proxy{URL: "http://" + Addr(port), Addr: Addr(port), Dir: dir, config: config, logs: logs}
}
