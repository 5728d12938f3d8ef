// Package b uses some of a.
package b

import "example.com/m/a"

// Exported is used by no one: b reports it too.
func Exported() { a.Used(); var t a.T; t.Called() }
