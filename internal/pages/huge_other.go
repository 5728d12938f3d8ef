//go:build !linux

package pages

// Advise does nothing where huge pages are not asked for this way.
func (r Range) Advise(huge bool) bool { return false }

// Populate does nothing here: the pages fault in as they are used.
func Populate[T any](s []T) {}
