package gateway

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// Record is the durable key record: what a replay needs, never a bare
// "seen" flag.
type Record struct {
	Scope       string          `json:"scope"`
	KeyHash     string          `json:"key_hash"`
	Fingerprint string          `json:"fingerprint"`
	State       string          `json:"state"` // in_progress or completed
	Status      int             `json:"status,omitempty"`
	Body        json.RawMessage `json:"body,omitempty"` // the safe response body
	ResultID    string          `json:"result_id,omitempty"`
	Owner       string          `json:"owner"` // request id of the reservation's owner
	Created     time.Time       `json:"created"`
	Expires     time.Time       `json:"expires"`
}

// Effect is one business change the gateway made.
type Effect struct {
	ResultID string    `json:"result_id"`
	Route    string    `json:"route"`
	KeyHash  string    `json:"key_hash,omitempty"`
	Request  string    `json:"request_id"`
	Time     time.Time `json:"time"`
}

type state struct {
	Keys    map[string]*Record `json:"keys"`
	Effects []Effect           `json:"effects"`
	Seq     int                `json:"seq"`
}

// Store keeps key records and effects, in memory and, with a path, in one
// file rewritten atomically (temporary file, fsync, rename) after every
// change, so a restart keeps every receipt. A lock file stops a second
// process from sharing the state.
type Store struct {
	mu   sync.Mutex
	st   state
	path string
	lock *os.File
}

// ErrStateLocked means another process holds the state file.
var ErrStateLocked = errors.New("state file is in use by another idem gateway")

// OpenStore opens (or creates) the state at path; "" keeps state in memory.
func OpenStore(path string) (*Store, error) {
	s := &Store{st: state{Keys: map[string]*Record{}}, path: path}
	if path == "" {
		return s, nil
	}
	lock, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot create the state lock %s: %w", path+".lock", err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		return nil, fmt.Errorf("%s: %w", path, ErrStateLocked)
	}
	s.lock = lock
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := s.save(); err != nil {
			s.Close()
			return nil, err
		}
	case err != nil:
		s.Close()
		return nil, fmt.Errorf("cannot read state %s: %w", path, err)
	default:
		if err := json.Unmarshal(b, &s.st); err != nil {
			s.Close()
			return nil, fmt.Errorf("state %s is not valid: %w", path, err)
		}
		if s.st.Keys == nil {
			s.st.Keys = map[string]*Record{}
		}
	}
	return s, nil
}

// Close releases the lock.
func (s *Store) Close() error {
	if s.lock != nil {
		syscall.Flock(int(s.lock.Fd()), syscall.LOCK_UN)
		err := s.lock.Close()
		s.lock = nil
		return err
	}
	return nil
}

// save writes the state atomically. Callers hold mu.
func (s *Store) save() error {
	if s.path == "" {
		return nil
	}
	b, err := json.MarshalIndent(&s.st, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(s.path)
	tmp, err := os.CreateTemp(dir, filepath.Base(s.path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("cannot write state in %s: %w", dir, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("cannot write state: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("cannot sync state: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		return fmt.Errorf("cannot replace state %s: %w", s.path, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// purge drops expired keys. Callers hold mu.
func (s *Store) purge(now time.Time) {
	for id, r := range s.st.Keys {
		if !r.Expires.IsZero() && now.After(r.Expires) && r.State == "completed" {
			delete(s.st.Keys, id)
		}
	}
}

// Effects returns a copy of the effect records.
func (s *Store) Effects() []Effect {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Effect(nil), s.st.Effects...)
}

// nextID returns a new sequential id with the given prefix. Callers hold mu.
func (s *Store) nextID(prefix string) string {
	s.st.Seq++
	return fmt.Sprintf("%s_%06d", prefix, s.st.Seq)
}
