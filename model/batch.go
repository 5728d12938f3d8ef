package model

// Batch is a run of observations in source order, as a reader hands them
// to its consumer: prepared on a parallel worker, then consumed in order.
// A batch and everything it views are used again once consumed: copy what
// outlives Consume.
type Batch struct {
	Obs []Observation
	// Raw holds, for consumers that ask for it, each observation's record
	// as it was read (the JSON object, or the text line).
	Raw []string
	// Scratch belongs to the consumer: what its Prepare worked out for its
	// Consume. It stays with the batch when the batch is used again.
	Scratch any
}
