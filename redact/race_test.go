//go:build race

package redact

// raceEnabled slows every memory access: timing bounds are wider.
const raceEnabled = true
