package gateway

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// Connections are bounded overall and per client, so that a flood of idle
// keep-alive connections cannot use up the process's descriptors and shut
// everyone else out. At a limit, a new connection takes the place of the
// one that has waited longest without a request in it (an idle keep-alive
// connection, which every HTTP client must expect to see closed, or a new
// one that has sent nothing yet); when every one is busy, the new one is
// closed at once. Either way the server keeps serving.

// Limits bound the connections a server holds; 0 is no bound.
type Limits struct {
	Conns          int // overall
	ConnsPerClient int // from one client address
}

// DefaultLimits suit a reference server behind a proxy or two.
var DefaultLimits = Limits{Conns: 4096, ConnsPerClient: 256}

// connLimiter is a listener that holds to Limits.
type connLimiter struct {
	net.Listener
	limits  Limits
	mu      sync.Mutex
	conns   map[*limitedConn]struct{}
	clients map[string]int
}

// limitedConn is one admitted connection.
type limitedConn struct {
	net.Conn
	l      *connLimiter
	client string
	// waiting is when the connection last had no request in it; zero
	// while a request is being served. Guarded by l.mu.
	waiting time.Time
}

func limitListener(ln net.Listener, limits Limits) *connLimiter {
	return &connLimiter{Listener: ln, limits: limits, conns: map[*limitedConn]struct{}{}, clients: map[string]int{}}
}

// Accept returns the next connection within the limits.
func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if lc := l.admit(c); lc != nil {
			return lc, nil
		}
		c.Close()
	}
}

// admit registers c, making room by closing the connections that waited
// longest, or returns nil when there is no room.
func (l *connLimiter) admit(c net.Conn) *limitedConn {
	client := c.RemoteAddr().String()
	if host, _, err := net.SplitHostPort(client); err == nil {
		client = host
	}
	var evict []*limitedConn
	l.mu.Lock()
	if l.limits.ConnsPerClient > 0 && l.clients[client] >= l.limits.ConnsPerClient {
		v := l.longestWaiting(client)
		if v == nil {
			l.mu.Unlock()
			return nil
		}
		l.forget(v)
		evict = append(evict, v)
	}
	if l.limits.Conns > 0 && len(l.conns) >= l.limits.Conns {
		v := l.longestWaiting("")
		if v == nil {
			l.mu.Unlock()
			return nil
		}
		l.forget(v)
		evict = append(evict, v)
	}
	lc := &limitedConn{Conn: c, l: l, client: client, waiting: time.Now()}
	l.conns[lc] = struct{}{}
	l.clients[client]++
	l.mu.Unlock()
	for _, v := range evict {
		v.Conn.Close()
	}
	return lc
}

// longestWaiting is the connection (of client, or of any) that has waited
// longest without a request in it, or nil when all are busy.
func (l *connLimiter) longestWaiting(client string) *limitedConn {
	var best *limitedConn
	for c := range l.conns {
		if c.waiting.IsZero() || (client != "" && c.client != client) {
			continue
		}
		if best == nil || c.waiting.Before(best.waiting) {
			best = c
		}
	}
	return best
}

// forget unregisters c; l.mu is held.
func (l *connLimiter) forget(c *limitedConn) {
	if _, ok := l.conns[c]; !ok {
		return
	}
	delete(l.conns, c)
	if l.clients[c.client]--; l.clients[c.client] <= 0 {
		delete(l.clients, c.client)
	}
}

// connState follows each connection: a request in it, or none.
func (l *connLimiter) connState(c net.Conn, state http.ConnState) {
	lc, ok := c.(*limitedConn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch state {
	case http.StateActive:
		lc.waiting = time.Time{}
	case http.StateIdle:
		lc.waiting = time.Now()
	case http.StateHijacked, http.StateClosed:
		l.forget(lc)
	}
}

func (c *limitedConn) Close() error {
	c.l.mu.Lock()
	c.l.forget(c)
	c.l.mu.Unlock()
	return c.Conn.Close()
}

// CloseWrite passes the half-close through, which net/http uses to end a
// connection gracefully (without it, a client's unread bytes reset it).
func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
