package model

// Input summarises what was read from one input: how many lines, what
// they were recognised as, and what could not be read.
type Input struct {
	Path   string `json:"path"`
	Format string `json:"format"` // the dominant format, or "mixed"
	Tier   string `json:"tier"`   // the dominant tier
	// TierAssumed says the tier is its format's default: no line of the
	// input said whose it was (a handled request's path, a caller's
	// absolute URL, error or retry).
	TierAssumed  bool   `json:"tier_assumed,omitempty"`
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
	// RequestLines are the lines no format read that look like HTTP
	// requests (a method, a target, a status), with a config pattern
	// laid out from the first: such an input is not one that says nothing
	// about a request.
	RequestLines *RequestLines `json:"request_lines,omitempty"`
	// Repaired counts lines read although they were not valid JSON: raw
	// control bytes inside strings, which RFC 8259 forbids and which are
	// read as if escaped. RepairSamples shows the first few.
	Repaired      int            `json:"repaired,omitempty"`
	RepairSamples []Skip         `json:"repair_samples,omitempty"`
	Formats       map[string]int `json:"formats,omitempty"`
	Secrets       map[string]int `json:"-"`
	// Fields say where its lines gave each field of the model, when the
	// reader was asked to explain (most used first).
	Fields []FieldUse `json:"fields,omitempty"`
	// Joined are the fields learned from the values they joined: no name
	// said what they were, the ids another tier logged did.
	Joined []FieldUse `json:"joined,omitempty"`
	// Candidates are sampled values, by path, of the lines whose request
	// id or key no reading named, when the reader samples them (for the
	// fields their values join); bounded.
	Candidates map[string][]string `json:"-"`
	// Err is a read error after which the rest of the input was lost, or
	// why the input could not be opened at all.
	Err error `json:"-"`
}

// FieldUse is where an input's lines gave one field of the model: the
// field (as a config's "fields" names it), the path in the line ("" when
// the format reads by position), what says the path means that (a
// vocabulary, the format's grammar, the config, the values that joined),
// and how many lines it was read from.
type FieldUse struct {
	Field string `json:"field"`
	Path  string `json:"path"`
	By    string `json:"by"`
	Lines int    `json:"lines"`
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

// RequestLines counts the lines of an input that look like HTTP requests
// but that no format read. Pattern is a config pattern's regular
// expression (docs/config.md) naming the fields found in the first, at
// First; it holds no value of the line.
type RequestLines struct {
	Lines   int    `json:"lines"`
	First   Source `json:"first"`
	Pattern string `json:"pattern,omitempty"`
}
