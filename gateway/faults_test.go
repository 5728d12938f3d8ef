package gateway

import (
	"errors"
	"strings"
	"testing"
)

func TestFaultsByName(t *testing.T) {
	var f Faults
	for _, name := range FaultNames() {
		if err := f.Enable(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if len(f.Enabled()) != len(FaultNames()) {
		t.Errorf("enabled %v, names %v", f.Enabled(), FaultNames())
	}
	if err := f.Enable("slow-disk"); !errors.Is(err, errUnknownFault) || strings.Contains(err.Error(), "--") {
		t.Errorf("an unknown fault: %v", err)
	}
	if got := (Faults{NonAtomic: true, External: "http://p"}).Enabled(); strings.Join(got, ",") != "non-atomic,external http://p" {
		t.Errorf("enabled: %v", got)
	}
}
