// Package a exports names some of which package b uses.
package a

import "fmt"

// Used is called by b.
func Used() {}

// Unused has no caller outside a.
func Unused() {}

// OnlyMine is used by a's own test, which is no other package.
const OnlyMine = 1

// T is used by b; its M is not, its String satisfies fmt.Stringer and
// Unwrap the errors package.
type T struct{}

func (T) M()              {}
func (T) String() string  { return "t" }
func (T) Error() string   { return "t" }
func (T) Unwrap() error   { return nil }
func (T) Called()         {}
func (t T) unexported()   { fmt.Println(t) }
func (t T) Named() string { return "n" }

// Namer is a's own interface: T's Named is there for it.
type Namer interface{ Named() string }

// UsedByTest is used by b's test only, which counts.
var UsedByTest = 2
