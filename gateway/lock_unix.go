//go:build unix

package gateway

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockFile opens (creating) path and takes an exclusive flock on it.
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot open the state %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s: %w", path, ErrStateLocked)
		}
		return nil, fmt.Errorf("cannot lock the state %s: %w", path, err)
	}
	return f, nil
}

func unlock(f *os.File) error {
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return f.Close()
}
