package capture

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// SquidConfig is what a capture asks of squid.
type SquidConfig struct {
	// Logs are its access logs (access_log stdio:FILE NAME), each in its
	// named logformat: squid's own (squid, common, combined) need none.
	Logs []AccessLog
	// Routes are its cache_peer lines and the rules that pick one, ending
	// with a newline.
	Routes string
}

// squidConf is squid as a reverse proxy (accel) on a loopback port,
// caching nothing, with every file of its own in the capture's
// directory: no cache_dir (memory only), no pinger, no ICP.
const squidConf = `http_port 127.0.0.1:%[2]d accel defaultsite=127.0.0.1
http_access allow all
never_direct allow all
cache deny all
pid_filename %[1]s/squid.pid
cache_log %[1]s/cache.log
coredump_dir %[1]s
pinger_enable off
visible_hostname idem-capture
# It logs what it was serving, then stops, within a second.
shutdown_lifetime 1 seconds
%[3]s%[4]s`

// squidOwn are squid's predefined logformats: no logformat line names them.
var squidOwn = map[string]bool{"squid": true, "common": true, "combined": true, "referrer": true, "useragent": true}

// StartSquid runs Debian's squid in the foreground (-N) on a free
// loopback port, under a service name of its own (-n: squid names its
// shared memory after it, so that captures run side by side), and stops
// it at the test's end. Run as root, squid drops to the proxy user
// (cache_effective_user, Debian's default) and refuses to run as root:
// its directory is then made the proxy user's, outside the test's own
// (which only root may enter).
func StartSquid(t testing.TB, c SquidConfig) *Proxy {
	t.Helper()
	bin := Tool(t, "apt-get install squid", "squid")
	dir := squidDir(t)
	var logs strings.Builder
	for _, l := range c.Logs {
		if l.Format.Proxy != "squid" {
			t.Fatalf("squid cannot write %s's format %s", l.Format.Proxy, l.Format.Name)
		}
		if !squidOwn[l.Format.Name] {
			fmt.Fprintf(&logs, "%s\n", l.Format.Def)
		}
		fmt.Fprintf(&logs, "access_log stdio:%s %s\n", filepath.Join(dir, l.File), l.Format.Name)
	}
	port := FreePort(t)
	conf := WriteFile(t, dir, "squid.conf", fmt.Sprintf(squidConf, dir, port, logs.String(), c.Routes))
	p := newProxy(dir, port, conf, c.Logs)
	p.version = []string{"squid", bin, "-v"}
	p.proc = Start(t, Cmd{Name: "squid", Bin: bin, Args: []string{"-N", "-n", "idem" + strconv.Itoa(port), "-f", conf}, Listen: []string{p.Addr}})
	return p
}

// squidDir is a directory squid may write in as the user it runs as.
func squidDir(t testing.TB) string {
	t.Helper()
	if os.Geteuid() != 0 {
		return t.TempDir()
	}
	dir, err := os.MkdirTemp("", "idem-squid-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	u, err := user.Lookup("proxy")
	if err != nil {
		t.Fatalf("squid runs as the proxy user, which is missing: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		t.Fatal(err)
	}
	return dir
}
