package gateway

import (
	"errors"
	"fmt"
	"sort"
)

// ErrUnknownFault is returned by Faults.Enable for a name it does not know.
var ErrUnknownFault = errors.New("unknown fault")

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
		return fmt.Errorf("%w %q", ErrUnknownFault, name)
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
