//go:build !linux

package cmd

// hugeHeapFor does nothing where huge pages are not asked for this way.
func hugeHeapFor(int64) {}

// readingDone does nothing here.
func readingDone() {}

// hugeAgain does nothing here.
func hugeAgain() {}
