package model

// Input summarises what was read from one input: how many lines, what
// they were recognised as, and what could not be read.
type Input struct {
	Path         string `json:"path"`
	Format       string `json:"format"` // the dominant format, or "mixed"
	Tier         string `json:"tier"`   // the dominant tier
	Compression  string `json:"compression,omitempty"`
	Lines        int    `json:"lines"`
	Observations int    `json:"observations"`
	Ignored      int    `json:"ignored"` // valid lines that say nothing about a request
	Skipped      int    `json:"skipped"`
	SkipSamples  []Skip `json:"skip_samples,omitempty"`
	// Unrecognised is the input's first line when none of its lines was
	// recognised (every one was skipped): most likely a format idem does
	// not know, which deserves a warning rather than a quiet "no findings".
	Unrecognised *Skip `json:"unrecognised,omitempty"`
	// Repaired counts lines read although they were not valid JSON: raw
	// control bytes inside strings, which RFC 8259 forbids and which are
	// read as if escaped. RepairSamples shows the first few.
	Repaired      int            `json:"repaired,omitempty"`
	RepairSamples []Skip         `json:"repair_samples,omitempty"`
	Formats       map[string]int `json:"formats,omitempty"`
	Secrets       map[string]int `json:"-"`
	// Err is a read error after which the rest of the input was lost, or
	// why the input could not be opened at all.
	Err error `json:"-"`
}

// Skip is a line that could not be read (or was read only after a
// repair), with why.
type Skip struct {
	Source Source `json:"source"`
	Reason string `json:"reason"`
	// Text is the start of the line, kept only for Input.Unrecognised:
	// raw log text, to be redacted and escaped before it is shown.
	Text string `json:"text,omitempty"`
}
