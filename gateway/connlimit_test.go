package gateway

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// TestIdleFloodIsBounded opens a few hundred connections that send one
// request and then sit idle (or send nothing at all), from one client and
// then from another: the server holds no more than its limits, and a new
// client is still served at once.
func TestIdleFloodIsBounded(t *testing.T) {
	const flood, overall, perClient = 300, 40, 25
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addrc := make(chan string, 1)
	go Serve(ctx, "127.0.0.1:0", New(Options{}, mustOpen(t, "")).Handler(), DefaultTimeouts(0),
		Limits{Conns: overall, ConnsPerClient: perClient}, func(a string) { addrc <- a })
	addr := <-addrc

	deadline := time.Now().Add(20 * time.Second)
	open := func(from string, n int) []net.Conn {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Deadline: deadline}
		var conns []net.Conn
		for i := 0; i < n; i++ {
			c, err := d.Dial("tcp", addr)
			if err != nil {
				t.Fatalf("dial %d from %s: %v", i, from, err)
			}
			t.Cleanup(func() { c.Close() })
			c.SetDeadline(deadline)
			conns = append(conns, c)
			if i%2 == 1 {
				continue // sends nothing
			}
			// One request, then idle on a kept-alive connection; a
			// connection the server closed to make room reads nothing.
			io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
			if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}
		return conns
	}
	// alive counts the connections the server still holds: a read that
	// waits is open, one that ends was closed by the server.
	alive := func(conns []net.Conn) int {
		n := 0
		for _, c := range conns {
			c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
			_, err := c.Read(make([]byte, 1))
			if errors.Is(err, os.ErrDeadlineExceeded) {
				n++
			}
		}
		return n
	}
	served := func(from string) {
		t.Helper()
		c := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
			DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}).DialContext}}
		resp, err := c.Get("http://" + addr + "/healthz")
		if err != nil {
			t.Fatalf("a new client from %s after the flood: %v", from, err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("a new client from %s: %d", from, resp.StatusCode)
		}
	}

	first := open("127.0.0.1", flood)
	served("127.0.0.1")
	if n := alive(first); n > perClient {
		t.Errorf("the server holds %d of %d idle connections from one client, want at most %d", n, flood, perClient)
	}
	if probe, err := net.ListenPacket("udp", "127.0.0.2:0"); err != nil {
		t.Logf("no second loopback address here (%v): the overall bound is not tried", err)
		return
	} else {
		probe.Close()
	}
	second := open("127.0.0.2", perClient)
	served("127.0.0.2")
	a, b := alive(first), alive(second)
	if a+b > overall || a > perClient || b > perClient {
		t.Errorf("the server holds %d + %d idle connections, want at most %d overall, %d per client", a, b, overall, perClient)
	}
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Fatalf("listening on %s", addr)
	}
}
