package capture

import (
	"fmt"
	"html"
	"os"
	"path/filepath"
	"testing"
)

// TomcatConfig is what a capture asks of Tomcat.
type TomcatConfig struct {
	// Logs are its AccessLogValves' logs, each in its named pattern.
	Logs []AccessLog
}

// tomcatHome is where Debian's tomcat10 installs Catalina.
const tomcatHome = "/usr/share/tomcat10"

// tomcatServer is a server.xml of the test's own (its CATALINA_BASE): one
// HTTP connector on a loopback port, no shutdown port, no web application
// (Tomcat answers 404 and logs the request like any other), and the
// capture's AccessLogValves, unbuffered so that each line is written when
// the request ends.
const tomcatServer = `<?xml version="1.0" encoding="UTF-8"?>
<Server port="-1" shutdown="SHUTDOWN">
  <Service name="Catalina">
    <Connector address="127.0.0.1" port="%[1]d" protocol="HTTP/1.1" connectionTimeout="20000"/>
    <Engine name="Catalina" defaultHost="localhost">
      <Host name="localhost" appBase="webapps" unpackWARs="false" autoDeploy="false" deployOnStartup="false">
%[2]s      </Host>
    </Engine>
  </Service>
</Server>
`

// StartTomcat runs Debian's Tomcat 10 (Catalina's Bootstrap on the JVM)
// with a CATALINA_BASE of the test's on a free loopback port, and stops it
// at the test's end (SIGTERM: the JVM's shutdown hook stops Catalina).
func StartTomcat(t testing.TB, c TomcatConfig) *Proxy {
	t.Helper()
	java := Tool(t, "apt-get install tomcat10", "java")
	if _, err := os.Stat(filepath.Join(tomcatHome, "bin", "bootstrap.jar")); err != nil {
		Missing(t, "tomcat10", "apt-get install tomcat10")
	}
	dir := t.TempDir()
	for _, d := range []string{"conf", "logs", "temp", "webapps", "work"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(t, filepath.Join(tomcatHome, "etc", "web.xml"), filepath.Join(dir, "conf", "web.xml"))
	var valves string
	for _, l := range c.Logs {
		if l.Format.Proxy != "tomcat" {
			t.Fatalf("Tomcat cannot write %s's format %s", l.Format.Proxy, l.Format.Name)
		}
		valves += fmt.Sprintf("        <Valve className=\"org.apache.catalina.valves.AccessLogValve\" directory=\"%s\" prefix=\"%s\" suffix=\"\" "+
			"rotatable=\"false\" buffered=\"false\" pattern=\"%s\"/>\n", html.EscapeString(dir), html.EscapeString(l.File), l.Format.Def)
	}
	port := FreePort(t)
	conf := WriteFile(t, filepath.Join(dir, "conf"), "server.xml", fmt.Sprintf(tomcatServer, port, valves))
	p := newProxy(dir, port, conf, c.Logs)
	p.version = []string{"tomcat10", java, "-cp", filepath.Join(tomcatHome, "lib", "catalina.jar"), "org.apache.catalina.util.ServerInfo"}
	cp := filepath.Join(tomcatHome, "bin", "bootstrap.jar") + ":" + filepath.Join(tomcatHome, "bin", "tomcat-juli.jar")
	p.proc = Start(t, Cmd{Name: "tomcat", Bin: java, Args: []string{"-cp", cp, "-Dcatalina.home=" + tomcatHome, "-Dcatalina.base=" + dir,
		"-Djava.io.tmpdir=" + filepath.Join(dir, "temp"), "-Duser.timezone=UTC", "org.apache.catalina.startup.Bootstrap", "start"},
		Listen: []string{p.Addr}})
	return p
}
