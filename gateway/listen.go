package gateway

import (
	"errors"
	"fmt"
	"net"
	"syscall"
)

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
