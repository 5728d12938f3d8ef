package capture

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// VarnishConfig is what a capture asks of Varnish.
type VarnishConfig struct {
	// Log is what varnishncsa writes, in its named format (-F).
	Log AccessLog
	// VCL is the VCL it runs (backends and routing).
	VCL string
}

// StartVarnish runs Debian's varnishd in the foreground on a free
// loopback port with a working directory of the test's (-n), without a
// jail (-j none: as the test's user), and varnishncsa reading its log
// into the capture's file; both stop at the test's end. Stop stops
// varnishd, then varnishncsa once it has written what varnishd logged.
func StartVarnish(t testing.TB, c VarnishConfig) *Proxy {
	t.Helper()
	bin := Tool(t, "apt-get install varnish", "varnishd")
	ncsa := Tool(t, "apt-get install varnish", "varnishncsa")
	if c.Log.Format.Proxy != "varnish" {
		t.Fatalf("Varnish cannot write %s's format %s", c.Log.Format.Proxy, c.Log.Format.Name)
	}
	dir := t.TempDir()
	work := filepath.Join(dir, "varnish")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	port := FreePort(t)
	vcl := WriteFile(t, dir, "default.vcl", c.VCL)
	p := newProxy(dir, port, vcl, []AccessLog{c.Log})
	p.version = []string{"varnish", bin, "-V"}
	// varnishncsa first, waiting (-t off) for varnishd's shared log, so
	// that it reads it from varnishd's first request on.
	logger := Start(t, Cmd{Name: "varnishncsa", Bin: ncsa, Args: []string{"-n", work, "-t", "off", "-F", c.Log.Format.Def,
		"-w", filepath.Join(dir, c.Log.File)}})
	// A small malloc store and one small thread pool: a capture's traffic
	// is a few requests.
	varnishd := Start(t, Cmd{Name: "varnishd", Bin: bin, Args: []string{"-F", "-j", "none", "-n", work, "-a", p.Addr, "-f", vcl,
		"-s", "malloc,32m", "-p", "thread_pools=1", "-p", "thread_pool_min=5"}, Listen: []string{p.Addr}})
	// varnishncsa finds the shared log of the child varnishd starts, which
	// may listen before it does: a request sent then would not be logged.
	// Nothing says when it has; it polls for the log twice a second.
	time.Sleep(1500 * time.Millisecond)
	p.proc = varnishd
	t.Cleanup(logger.Stop)
	p.after = logger
	return p
}
