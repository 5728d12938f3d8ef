package gateway

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
)

// The faults a gateway can be started with, by name, and the machinery of
// those that act outside the store: the call to an external provider, the
// crash after it, and the connection dropped without an answer.

// Faults turn parts of the contract off.
type Faults struct {
	FailAfterCommit bool   // commit, then drop the connection without a response
	NoDedup         bool   // ignore keys: every delivery runs the effect
	NonAtomic       bool   // check, wait, then write: concurrent deliveries both run
	NoFingerprint   bool   // replay whatever came first, whatever the payload
	External        string // call this provider before recording completed
	// CrashAfterExternal is the naive integration: the provider gets no
	// key, and the terminal write after its call is lost, once per key,
	// with the reservation deleted.
	CrashAfterExternal bool
	// StuckReservation never recovers a reservation whose owner is gone:
	// its key answers "in progress" until an operator reconciles it.
	StuckReservation bool
}

// errUnknownFault is returned by Faults.Enable for a name it does not know.
var errUnknownFault = errors.New("unknown fault")

// switches maps each fault's name to its switch in f. External is a URL,
// not a switch, so it has no name here.
func (f *Faults) switches() map[string]*bool {
	return map[string]*bool{
		"fail-after-commit":    &f.FailAfterCommit,
		"no-dedup":             &f.NoDedup,
		"non-atomic":           &f.NonAtomic,
		"no-fingerprint":       &f.NoFingerprint,
		"crash-after-external": &f.CrashAfterExternal,
		"stuck-reservation":    &f.StuckReservation,
	}
}

// FaultNames lists the faults that Enable knows, sorted.
func FaultNames() []string {
	var names []string
	for name := range (&Faults{}).switches() {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// Enable turns on the fault called name.
func (f *Faults) Enable(name string) error {
	p, ok := f.switches()[name]
	if !ok {
		return fmt.Errorf("%w %q", errUnknownFault, name)
	}
	*p = true
	return nil
}

// Enabled lists the faults that are on, sorted, with the external
// provider's URL last.
func (f Faults) Enabled() []string {
	var on []string
	for name, p := range f.switches() {
		if *p {
			on = append(on, name)
		}
	}
	sort.Strings(on)
	if f.External != "" {
		on = append(on, "external "+f.External)
	}
	return on
}

// crashOnce reports whether the call for id is the first, the one that
// "crashes" under crash-after-external.
func (s *server) crashOnce(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.crashed[id] {
		return false
	}
	s.crashed[id] = true
	return true
}

// drop closes the connection without a response.
func drop(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}
