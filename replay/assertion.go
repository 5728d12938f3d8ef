package replay

import (
	"bytes"
	"encoding/json"
)

// status is what an assertion came to. The zero value is Fail: an
// assertion passes only when it is shown to.
type status int

// Statuses.
const (
	Fail status = iota
	Pass
	// Skip is an expectation that is not known (the original status or
	// result id is in neither the capture nor the logs).
	Skip
	// Info is an observation the contract does not require; it counts as
	// no outcome.
	Info
	// Inconclusive is an answer from before the idempotency layer: it
	// tests nothing.
	Inconclusive
)

// String is the status's word in reports: PASS, FAIL, SKIP, INFO or
// INCONCLUSIVE.
func (s status) String() string {
	switch s {
	case Pass:
		return "PASS"
	case Skip:
		return "SKIP"
	case Info:
		return "INFO"
	case Inconclusive:
		return "INCONCLUSIVE"
	}
	return "FAIL"
}

// passIf is Pass when ok, else Fail.
func passIf(ok bool) status {
	if ok {
		return Pass
	}
	return Fail
}

// Assertion is one checked expectation, like one of hurl's asserts.
type Assertion struct {
	Probe    string // "" for the replay itself
	Name     string
	Status   status
	Expected string
	Actual   string
}

// outcome is the assertion's word in reports.
func (a Assertion) outcome() string { return a.Status.String() }

// assertionJSON is an assertion as idem.replay/v1 writes it: "pass"
// always, and a flag for a status that is neither a pass nor a failure.
type assertionJSON struct {
	Probe        string `json:"probe,omitempty"`
	Name         string `json:"name"`
	Pass         bool   `json:"pass"`
	Skipped      bool   `json:"skipped,omitempty"`
	Info         bool   `json:"info,omitempty"`
	Inconclusive bool   `json:"inconclusive,omitempty"`
	Expected     string `json:"expected"`
	Actual       string `json:"actual"`
}

// MarshalJSON writes the assertion in the idem.replay/v1 shape. It does
// not escape HTML: the report's encoder decides that, as it does for
// every other field.
func (a Assertion) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(assertionJSON{Probe: a.Probe, Name: a.Name, Pass: a.Status == Pass, Skipped: a.Status == Skip,
		Info: a.Status == Info, Inconclusive: a.Status == Inconclusive, Expected: a.Expected, Actual: a.Actual})
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), err
}

// UnmarshalJSON reads the idem.replay/v1 shape.
func (a *Assertion) UnmarshalJSON(data []byte) error {
	var j assertionJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	*a = Assertion{Probe: j.Probe, Name: j.Name, Expected: j.Expected, Actual: j.Actual}
	switch {
	case j.Inconclusive:
		a.Status = Inconclusive
	case j.Info:
		a.Status = Info
	case j.Skipped:
		a.Status = Skip
	case j.Pass:
		a.Status = Pass
	}
	return nil
}
