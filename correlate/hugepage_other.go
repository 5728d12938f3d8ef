//go:build !linux

package correlate

// hugePages does nothing where huge pages are not asked for this way.
func hugePages[T any](s []T) {}

// populate does nothing here.
func populate[T any](s []T) {}
