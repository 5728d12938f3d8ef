package gateway

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"syscall"
	"time"
)

// Serving on an address: binding it with an error that says what to do,
// and timeouts that keep a slow client from holding a connection.

// listen binds addr with an error that says what to do about it.
func listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		return ln, nil
	}
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return nil, fmt.Errorf("cannot listen on %s (is another gateway running? choose another address): %w", addr, syscall.EADDRINUSE)
	case errors.Is(err, syscall.EACCES):
		return nil, fmt.Errorf("cannot listen on %s (use a port above 1023): %w", addr, syscall.EACCES)
	}
	return nil, fmt.Errorf("cannot listen on %s: %w", addr, err)
}

// timeouts bound how long a connection may take. A slow or half-sent
// request must not hold a connection (and its goroutine) open.
type timeouts struct {
	ReadHeader, Read, Write, Idle time.Duration
}

// DefaultTimeouts suits a handler that takes up to delay.
func DefaultTimeouts(delay time.Duration) timeouts {
	return timeouts{ReadHeader: 5 * time.Second, Read: 15 * time.Second, Write: 30*time.Second + 2*delay, Idle: 60 * time.Second}
}

// Serve runs handler on addr until ctx ends, then shuts down gracefully.
// It holds at most limits' connections. ready, when set, receives the
// bound address.
func Serve(ctx context.Context, addr string, handler http.Handler, t timeouts, limits Limits, ready func(addr string)) error {
	raw, err := listen(addr)
	if err != nil {
		return err
	}
	ln := limitListener(raw, limits)
	lc := &http.Server{Handler: handler, ReadHeaderTimeout: t.ReadHeader, ReadTimeout: t.Read, WriteTimeout: t.Write,
		IdleTimeout: t.Idle, MaxHeaderBytes: 64 << 10, ConnState: ln.connState}
	if ready != nil {
		ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- lc.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return lc.Shutdown(sctx)
	}
}
