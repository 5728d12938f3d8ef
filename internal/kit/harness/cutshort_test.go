package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/internal/kit/capture"
)

// The cut-short capture: connections no HTTP client makes, sent by hand
// to nginx (its packages' "main" format, X-Forwarded-For appended), to
// HAProxy (option httplog capturing Host and X-Forwarded-For, no ids),
// to Apache (idem's LogFormat) and to Tomcat (its stock pattern):
// TLS bytes to a plain port, a request whose headers never end, one
// whose client closes while sending them, and a request through two
// proxies (a forwarded-for list, a Host with a port) that carries an
// X-Request-Id and a key neither format logs. Every line each proxy
// writes is a request it saw and must be read; none may give a request
// id or a key, since no format names one.

const cutShortDir = "cut-short"

// cutShortRun is the capture's record, cutshort.json.
type cutShortRun struct {
	Software string                   `json:"software"`
	Sent     map[string][]capture.Raw `json:"sent"` // by log file
}

// cutShortTraffic is what is sent to each proxy, in order: the steps
// named, all of them when none is. After each, it waits until the proxy
// has logged it (its log grew by a line), so that the lines are in the
// order of the steps.
func cutShortTraffic(t *testing.T, p *capture.Proxy, file string, only ...string) []capture.Raw {
	addr := p.Addr
	tls := []byte("\x16\x03\x01\x00\xf1\x01\x00\x00\xed\x03\x03")
	for i := range 32 {
		tls = append(tls, byte(i*7))
	}
	head := "POST /v1/orders HTTP/1.1\r\nHost: localhost\r\n"
	fwd := fmt.Sprintf("POST /v1/orders HTTP/1.1\r\nHost: localhost:8888\r\nX-Forwarded-For: 10.225.192.17, 10.2.2.1\r\n"+
		"X-Request-Id: %s\r\nIdempotency-Key: %s\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
		capture.NewID(), capture.NewID())
	steps := []struct {
		name       string
		data       []byte
		closeAfter time.Duration
	}{
		{"tls-bytes", tls, 0},
		{"headers-timeout", []byte(head), 0},
		{"headers-abort", []byte(head), 200 * time.Millisecond},
		{"forwarded", []byte(fwd), 0},
	}
	var out []capture.Raw
	for _, s := range steps {
		if len(only) == 0 || slices.Contains(only, s.name) {
			out = append(out, capture.SendRaw(addr, s.name, s.data, s.closeAfter, 3*time.Second))
			deadline := time.Now().Add(5 * time.Second)
			for {
				lines, _ := capture.ReadLines(p.Log(file))
				if len(lines) >= len(out) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s: step %s was not logged within 5s", file, s.name)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
	}
	return out
}

func TestCutShort(t *testing.T) {
	b := StartBackend(t)
	n := capture.StartNginx(t, capture.NginxConfig{
		Logs: []capture.AccessLog{{File: "nginx.log", Format: capture.NginxMain}},
		HTTP: func(port int) string {
			return fmt.Sprintf("  client_header_timeout 1s;\n  server {\n    listen 127.0.0.1:%d;\n    location / {\n      proxy_pass http://%s;\n    }\n  }\n", port, b.Addr)
		},
	})
	h := capture.StartHAProxy(t, capture.HAProxyConfig{
		Log:      capture.AccessLog{File: "haproxy.log", Format: capture.HAProxyHTTPLog},
		Captures: []string{"Host", "X-Forwarded-For"},
		Routes:   fmt.Sprintf("  timeout http-request 1s\n  default_backend app\n\nbackend app\n  server app1 %s\n", b.Addr),
	})
	// Apache with the layout idem's apache format names (read with no
	// config); mod_reqtimeout is not loaded, so Timeout bounds the
	// headers' wait.
	a := capture.StartApache(t, capture.ApacheConfig{
		Logs: []capture.AccessLog{{File: "apache.log", Format: capture.ApacheIdem}},
		Routes: func(int) string {
			return fmt.Sprintf("Timeout 1\nProxyPass / http://%s/\n", b.Addr)
		},
	})
	// Tomcat with its stock pattern and the ids, answering itself: what
	// it writes for bytes that are no HTTP, and for a forwarded request.
	tc := capture.StartTomcat(t, capture.TomcatConfig{Logs: []capture.AccessLog{{File: "tomcat.log", Format: capture.TomcatStock}}})
	proxies := map[string]*capture.Proxy{"nginx.log": n, "haproxy.log": h, "apache.log": a, "tomcat.log": tc}
	run := cutShortRun{Software: strings.Join([]string{n.Software(), h.Software(), a.Software(), tc.Software()}, "; "), Sent: map[string][]capture.Raw{
		"nginx.log":   cutShortTraffic(t, n, "nginx.log"),
		"haproxy.log": cutShortTraffic(t, h, "haproxy.log"),
		"apache.log":  cutShortTraffic(t, a, "apache.log"),
		"tomcat.log":  cutShortTraffic(t, tc, "tomcat.log", "tls-bytes", "forwarded"),
	}}
	f := capture.Folder{Logs: map[string]string{}, Texts: map[string]string{}, RecordName: "cutshort.json", Record: run}
	for file, p := range proxies {
		p.Stop()
		f.Logs[file] = p.Log(file)
		f.Texts[strings.TrimSuffix(file, ".log")+"-"+p.ConfigName()] = p.Config()
	}
	f.Keep(t, filepath.Join(realDir, cutShortDir), *update, verifyCutShort)
}

// TestRecordedCutShort checks the committed capture.
func TestRecordedCutShort(t *testing.T) {
	dir := filepath.Join(realDir, cutShortDir)
	capture.Recorded(t, dir, "cutshort.json", "go test ./internal/kit/harness -run TestCutShort -update")
	verifyCutShort(t, dir)
}

// verifyCutShort checks what idem reads from the capture in dir against
// what was sent: one observation per connection a proxy logged (each
// proxy logs every one here), none skipped; no request id and no key (no
// format names one: the forwarded-for list, the Host's host:port and the
// X-Request-Id that neither logs must not become one); the request's
// method and path where the proxy logged them, never others; the status
// the client received where it received one; and where the client left
// before an answer, an outcome that says no response reached it (nginx
// logs a 400 for a client that closed while sending its headers: its
// line cannot say otherwise, so that step checks only that it is read).
func verifyCutShort(t *testing.T, dir string) {
	// The formats that name the request id and the key (Apache's and
	// Tomcat's layouts with "%{X-Request-Id}i" "%{Idempotency-Key}i"):
	// their lines give what was sent; the others none.
	namesIDs := map[string]bool{"apache.log": true, "tomcat.log": true}
	var run cutShortRun
	capture.ReadJSON(t, filepath.Join(dir, "cutshort.json"), &run)
	for file, sent := range run.Sent {
		path := filepath.Join(dir, file)
		if _, err := os.Stat(path); err != nil {
			t.Fatal(err)
		}
		r := capture.MustRead(t, path)
		in := r.Input(path)
		obs := r.From(path)
		if in.Skipped != 0 || len(obs) != len(sent) {
			t.Errorf("%s: %d observations, %d skipped (%v), %d connections sent", file, len(obs), in.Skipped, in.SkipSamples, len(sent))
			continue
		}
		for i, s := range sent {
			o := obs[i]
			what := file + " " + s.Step
			wantRID, wantKey := "", ""
			if namesIDs[file] {
				wantRID, wantKey = s.RequestID, s.Key
			}
			if o.RequestID != wantRID || o.Key != wantKey {
				t.Errorf("%s: request id %q, key %q; sent %q, %q (its format logs them: %v)", what, o.RequestID, o.Key, wantRID, wantKey, namesIDs[file])
			}
			if o.Method != "" && (o.Method != s.Method || o.Route != strings.Split(s.Path, "?")[0]) {
				t.Errorf("%s: %s %s read, %q %q sent", what, o.Method, o.Route, s.Method, s.Path)
			}
			switch {
			case s.Status != 0 && o.Status != s.Status:
				t.Errorf("%s: status %d read, the client received %d", what, o.Status, s.Status)
			case s.Closed && file == "haproxy.log" && (o.Responded() || o.Outcome.String() == "ok"):
				t.Errorf("%s: outcome %s status %d, but the client left before any answer", what, o.Outcome, o.Status)
			}
			if o.Time.Before(s.Start.Add(-time.Second)) || o.Time.After(s.End.Add(time.Second)) {
				t.Errorf("%s: time %s, sent between %s and %s", what, o.Time, s.Start, s.End)
			}
		}
		if n := r.Set.DeliveryCount(); !namesIDs[file] && n != 0 {
			t.Errorf("%s: %d deliveries from lines that log no id", file, n)
		}
	}
}
